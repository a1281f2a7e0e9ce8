/* The tester for BMv2 simple_switch_grpc (v1model): generator and checker in one
 * program. This file only includes and wires; the logic is in common/ and in the
 * v1model adapters beside it. */
#include <core.p4>
#include <v1model.p4>

#include "platform.p4"
#include "../common/headers.p4"
#include "../common/rx_classifier.p4"
#include "../common/rx_expectation.p4"
#include "../common/rx_port_slots.p4"
#include "../common/neighbors.p4"
#include "parser.p4"
#include "checksums.p4"
#include "generator.p4"
#include "checker.p4"
#include "foreign.p4"
#include "capture.p4"
#include "tester_clock.p4"

control TesterIngress(inout headers_t hdr, inout local_metadata_t meta,
                      inout standard_metadata_t smeta) {
    /* Frames by RX_KIND_* (index); bytes without FCS. */
    counter(RX_KIND_COUNT, CounterType.packets_and_bytes) rx_kind;
    /* Every frame the program received from a front-panel port (index: port),
     * before classification. The controller compares it with the kernel's
     * rx_packets of the port's interface: a frame the interface delivered but
     * this counter never saw was dropped inside the tester (issue 10). */
    counter(FRONT_PANEL_PORTS, CounterType.packets_and_bytes) rx_port;
    /* Frames of a stream (index: stream id) that were not its: RX_KIND_STALE ones
     * in rx_stale, RX_KIND_MISMATCHED ones in rx_mismatched. */
    counter(MAX_STREAMS, CounterType.packets) rx_stale;
    counter(MAX_STREAMS, CounterType.packets) rx_mismatched;

    RxExpectation() expectation;
    RxPortSlots() port_slots;
    RxClassifier() classifier;
    GeneratorIngress() generator;
    StreamChecker() checker;
    ForeignTraffic() foreign;
    NeighborResponder() neighbors;
    FrameCapture() capture;
    TesterClockSetting() clock_setting;

    apply {
        /* The path is decided once, into flags: each control has one call site
         * (BMv2 allows a table one), and a received frame, the common case, meets
         * as few conditions as possible on its way to the checker. */
        bool check_frame = false;
        bool run_generator = true;
        clock_setting.apply(meta);
        timestamp_t rx_ts = tester_stamp(smeta.ingress_global_timestamp, meta.clock_offset,
                                         meta.clock_drift_shift);
        /* The checker's cells for this frame (common/rx_port_slots.p4); a CLEAR or READ
         * names its cell as its stream. */
        bit<32> seq_slot = 0;
        bit<32> figure_slot = 0;
        if (hdr.packet_out.isValid()) {
            meta.ctrl_op = hdr.packet_out.opcode;
            meta.stream = hdr.packet_out.stream_id;
            meta.initial_seq = hdr.packet_out.initial_seq;
            seq_slot = (bit<32>) meta.stream;
            figure_slot = seq_slot;
            hdr.packet_out.setInvalid();
            if (meta.ctrl_op == CTRL_OP_SEND) {
                /* stream_id carries the port the frame leaves by. */
                run_generator = false;
                smeta.egress_spec = (port_t) meta.stream;
            } else if ((bit<32>) meta.stream >= MAX_STREAMS_32) {
                meta.ctrl_op = CTRL_OP_NONE;
                run_generator = false;
                mark_to_drop(smeta);
            } else if (meta.ctrl_op == CTRL_OP_READ) {
                /* Valid before any control writes its part of the reply. */
                hdr.stats.setValid();
                smeta.egress_spec = CPU_PORT;
            } else if (meta.ctrl_op == CTRL_OP_CLEAR) {
                smeta.egress_spec = CPU_PORT;
            }
        } else if (smeta.instance_type == PKT_INSTANCE_TYPE_RECIRC
                   && meta.loop_stage == LOOP_STAGE_OUT) {
            /* Half way round the reference loop (platform.p4). */
            run_generator = false;
            smeta.egress_spec = REFERENCE_LOOP_PORT;
        } else if (smeta.instance_type != PKT_INSTANCE_TYPE_RECIRC
                   || meta.loop_stage == LOOP_STAGE_BACK) {
            run_generator = false;
            /* A reference frame comes back by its loop port, which has no interface
             * (no per-port count to compare with one), at the time egress read. */
            bit<16> arrival_port = (bit<16>) smeta.ingress_port;
            if (meta.loop_stage == LOOP_STAGE_BACK) {
                arrival_port = (bit<16>) REFERENCE_LOOP_PORT;
                rx_ts = meta.loop_rx_ts;
            } else {
                rx_port.count((bit<32>) smeta.ingress_port);
            }
            bool is_control;
            bool answered;
            neighbors.apply(hdr, meta.frame, arrival_port, is_control, answered);
            if (is_control) {
                meta.rx_kind = RX_KIND_CONTROL;
            } else {
                expectation.apply(hdr, meta.expected);
                bool listed;
                port_slots.apply(hdr.tester.stream_id, arrival_port, listed, seq_slot,
                                 figure_slot);
                classifier.apply(hdr, meta.frame, smeta.parser_error == error.NoError,
                                 meta.expected, arrival_port, listed, meta.rx_kind);
            }
            rx_kind.count((bit<32>) meta.rx_kind);
            if (meta.loop_stage == LOOP_STAGE_NONE) {
                capture.apply(hdr, meta, smeta);
            }
            if (meta.rx_kind == RX_KIND_CONTROL) {
                if (answered) {
                    meta.neighbor_answered = true;
                    smeta.egress_spec = smeta.ingress_port;
                } else {
                    smeta.egress_spec = CPU_PORT;
                }
            } else if (meta.rx_kind == RX_KIND_STREAM) {
                check_frame = true;
                mark_to_drop(smeta);
            } else if (meta.rx_kind == RX_KIND_FOREIGN) {
                foreign.apply(smeta);
            } else {
                if (meta.rx_kind == RX_KIND_STALE) {
                    rx_stale.count((bit<32>) hdr.tester.stream_id);
                } else if (meta.rx_kind == RX_KIND_MISMATCHED) {
                    rx_mismatched.count((bit<32>) hdr.tester.stream_id);
                }
                mark_to_drop(smeta);
            }
        }

        if (run_generator) {
            generator.apply(hdr, meta, smeta);
        }
        if (check_frame || meta.ctrl_op == CTRL_OP_CLEAR || meta.ctrl_op == CTRL_OP_READ) {
            checker.apply(hdr, meta, rx_ts, seq_slot, figure_slot);
        }
    }
}

control TesterEgress(inout headers_t hdr, inout local_metadata_t meta,
                     inout standard_metadata_t smeta) {
    /* Every frame that leaves by a front-panel port (index: port): stream frames,
     * forwarded foreign frames. The controller compares it with the kernel's
     * tx_packets of the port's interface (issue 10). */
    counter(FRONT_PANEL_PORTS, CounterType.packets_and_bytes) tx_port;

    GeneratorEgress() generator;

    apply {
        generator.apply(hdr, meta, smeta);
        /* Not a TX replica the generator dropped (the budget's last pass). */
        if (smeta.egress_port < PACER_PORT_BASE && smeta.egress_spec != DROP_PORT) {
            tx_port.count((bit<32>) smeta.egress_port);
        }
        if (smeta.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = (bit<16>) smeta.ingress_port;
            if (smeta.instance_type == PKT_INSTANCE_TYPE_INGRESS_CLONE) {
                hdr.packet_in.reason = PUNT_REASON_CAPTURE;
                hdr.packet_in.ingress_port = meta.capture_port;
            } else if (meta.ctrl_op == CTRL_OP_CLEAR || meta.ctrl_op == CTRL_OP_READ) {
                hdr.packet_in.reason = meta.ctrl_op;
            } else if (meta.rx_kind == RX_KIND_CONTROL) {
                hdr.packet_in.reason = PUNT_REASON_CONTROL;
            } else {
                hdr.packet_in.reason = PUNT_REASON_FOREIGN;
            }
        }
    }
}

V1Switch(TesterParser(), NoChecksumVerify(), TesterIngress(), TesterEgress(),
         TesterStampChecksum(), TesterDeparser()) main;
