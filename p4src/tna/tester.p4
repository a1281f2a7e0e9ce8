/* The tester for Intel Tofino (TNA): generator and checker in one program. This
 * file only includes and wires; the logic is in common/ and in the TNA adapters
 * beside it. Build for Tofino 1 and 2 with bf-p4c: make build-tna. */
#include <core.p4>
#if __TARGET_TOFINO__ == 2
#include <t2na.p4>
#else
#include <tna.p4>
#endif

/* Tofino has no wide range match: the controller expands each bin's range into
 * ternary prefixes. */
#define BIN_VALUE_MATCH ternary

#include "platform.p4"
#include "../common/headers.p4"
#include "../common/rx_classifier.p4"
#include "../common/neighbors.p4"
#include "../common/rx_expectation.p4"
#include "../common/rx_port_slots.p4"
#include "../common/stream_template.p4"
#include "parser.p4"
#include "generator.p4"
#include "checker.p4"
#include "foreign.p4"

control TesterIngress(inout tna_headers_t hdr, inout tna_metadata_t meta,
                      in ingress_intrinsic_metadata_t ig_intr_md,
                      in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                      inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                      inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    /* Frames by RX_KIND_* (index); bytes as Tofino counts them, FCS included. */
    Counter<bit<64>, bit<32>>(RX_KIND_COUNT, CounterType_t.PACKETS_AND_BYTES) rx_kind;
    /* Frames of a stream (index: stream id) that were not its: RX_KIND_STALE ones
     * in rx_stale, RX_KIND_MISMATCHED ones in rx_mismatched. */
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS) rx_stale;
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS) rx_mismatched;
    /* Frames from each front-panel port (index: dev port), before classification:
     * the self-check compares them with the port's MAC counters (FramesReceivedOK). */
    Counter<bit<64>, port_t>(DEV_PORTS, CounterType_t.PACKETS_AND_BYTES) rx_port;

    RxExpectation() expectation;
    RxPortSlots() port_slots;
    RxClassifier() classifier;
    GeneratorIngress() generator;
    StreamChecker() checker;
    ForeignTraffic() foreign;
    NeighborResponder() neighbors;

    apply {
        if (hdr.pktgen.isValid()) {
            /* generator_tick_t: global_tstamp in 256-ns ticks (platform.p4). */
            generator.apply(hdr, ig_prsr_md.global_tstamp[39:8], ig_dprsr_md, ig_tm_md);
        } else {
            if (IS_FRONT_PANEL(ig_intr_md.ingress_port)) {
                rx_port.count(ig_intr_md.ingress_port);
            }
            /* A branch sets the bool: the classifier's condition then fits a gateway. */
            meta.parsed_whole = false;
            if (ig_prsr_md.parser_err == 0) {
                meta.parsed_whole = true;
            }
            bool is_control;
            bool answered;
            neighbors.apply(hdr.frame, meta.local.frame, (bit<16>) ig_intr_md.ingress_port, is_control, answered);
            /* All always: independent, they share stages (Tofino 1's budget). */
            expectation.apply(hdr.frame, meta.local.expected);
            port_slots.apply(hdr.frame.tester.stream_id, (bit<16>) ig_intr_md.ingress_port,
                             meta.checker.listed, meta.checker.seq_slot,
                             meta.checker.figure_slot);
            classifier.apply(hdr.frame, meta.local.frame, meta.parsed_whole,
                             meta.local.expected, (bit<16>) ig_intr_md.ingress_port,
                             meta.checker.listed, meta.local.rx_kind);
            if (is_control) {
                meta.local.rx_kind = RX_KIND_CONTROL;
            }
            rx_kind.count((bit<32>) meta.local.rx_kind);
            if (meta.local.rx_kind == RX_KIND_CONTROL) {
                hdr.bridge.setValid();
                hdr.bridge.ingress_port = (bit<16>) ig_intr_md.ingress_port;
                if (answered) {
                    meta.local.neighbor_answered = true;
                    hdr.bridge.role = ROLE_NONE;
                    ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
                } else {
                    hdr.bridge.role = ROLE_CONTROL;
                    ig_tm_md.ucast_egress_port = CPU_PORT;
                }
            } else if (meta.local.rx_kind == RX_KIND_STREAM) {
                /* MAC timestamp: taken as the frame arrived, before any queue. */
                checker.apply(hdr.frame, ig_intr_md.ingress_mac_tstamp[31:0], meta.checker);
                ig_dprsr_md.drop_ctl = 1;
            } else if (meta.local.rx_kind == RX_KIND_FOREIGN) {
                foreign.apply(hdr, ig_intr_md.ingress_port, ig_dprsr_md, ig_tm_md);
            } else {
                if (meta.local.rx_kind == RX_KIND_STALE) {
                    rx_stale.count((bit<32>) hdr.frame.tester.stream_id);
                } else if (meta.local.rx_kind == RX_KIND_MISMATCHED) {
                    rx_mismatched.count((bit<32>) hdr.frame.tester.stream_id);
                }
                ig_dprsr_md.drop_ctl = 1;
            }
        }
    }
}

control TesterEgress(inout tna_headers_t hdr, inout tna_metadata_t meta,
                     in egress_intrinsic_metadata_t eg_intr_md,
                     in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                     inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                     inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    GeneratorEgress() generator;
    /* Frames leaving each front-panel port (index: dev port): the self-check compares
     * them with the port's MAC counters (FramesTransmittedOK). */
    Counter<bit<64>, port_t>(DEV_PORTS, CounterType_t.PACKETS_AND_BYTES) tx_port;

    apply {
        if (IS_FRONT_PANEL(eg_intr_md.egress_port)) {
            tx_port.count(eg_intr_md.egress_port);
        }
        generator.apply(hdr, meta, eg_intr_md, eg_prsr_md);
        if (hdr.bridge.role == ROLE_PUNTED) {
            hdr.frame.packet_in.setValid();
            hdr.frame.packet_in.reason = PUNT_REASON_FOREIGN;
            hdr.frame.packet_in.ingress_port = hdr.bridge.ingress_port;
        } else if (hdr.bridge.role == ROLE_CONTROL) {
            hdr.frame.packet_in.setValid();
            hdr.frame.packet_in.reason = PUNT_REASON_CONTROL;
            hdr.frame.packet_in.ingress_port = hdr.bridge.ingress_port;
        }
        hdr.bridge.setInvalid();
    }
}

Pipeline(TesterIngressParser(), TesterIngress(), TesterIngressDeparser(),
         TesterEgressParser(), TesterEgress(), TesterEgressDeparser()) pipe;

Switch(pipe) main;
