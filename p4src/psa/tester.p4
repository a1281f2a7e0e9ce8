/* The tester on the Linux kernel's eBPF data path (p4c-ebpf, PSA, TC hook):
 * the checker and the generator's replication and stamping in one program,
 * attached to every tester port and to the generator interface. This file only
 * includes and wires; the logic is in common/ and in the adapters beside it.
 * What the other targets do and this one does differently:
 * - frames come from the controller's sender (generator.p4), not a loop inside
 *   the switch; there is no CPU port: the controller reads and clears the
 *   per-stream registers as maps, and frames the checker does not answer
 *   (foreign, the DUT's ARP and ND) are counted and dropped;
 * - histogram bins match by ternary (platform.p4). */
#include <core.p4>
#include <psa.p4>

#include "platform.p4"
#include "../common/headers.p4"
#include "../common/rx_classifier.p4"
#include "rx_expectation.p4"
#include "rx_port_slots.p4"
#include "../common/neighbors.p4"
#include "parser.p4"
#include "tester_clock.p4"
#include "generator.p4"
#include "checker.p4"

control TesterIngress(inout headers_t hdr, inout local_metadata_t meta,
                      in psa_ingress_input_metadata_t istd,
                      inout psa_ingress_output_metadata_t ostd) {
    /* Frames by RX_KIND_* (index); bytes without FCS. */
    Counter<bit<32>, bit<32>>(RX_KIND_COUNT, PSA_CounterType_t.PACKETS_AND_BYTES) rx_kind;
    /* Every frame the program received from a tester port (index: its number),
     * before classification: compared with the interface's rx_packets. */
    Counter<bit<32>, bit<32>>(FRONT_PANEL_PORTS, PSA_CounterType_t.PACKETS_AND_BYTES) rx_port;
    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS) rx_stale;
    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS) rx_mismatched;

    RxExpectation() expectation;
    RxPortSlots() port_slots;
    RxClassifier() classifier;
    GeneratorIngress() generator;
    StreamChecker() checker;
    NeighborResponder() neighbors;
    TesterClock() rx_clock;

    bit<16> port_number = 0;
    bool is_tester_port = false;
    bool is_generator_port = false;
    /* The checker's cells for a stream frame (rx_port_slots.p4). */
    bool listed = false;
    bit<32> seq_slot = 0;
    bit<32> figure_slot = 0;

    action tester_port(bit<16> number) {
        port_number = number;
        is_tester_port = true;
    }

    action generator_port() {
        is_generator_port = true;
    }

    action other_port() {
    }

    /* A cache of `ports` in front of it, because every frame looks its port up
     * and a table is a hash lookup here, a register an array read. Cell
     * (ifindex mod PORT_CACHE_CELLS): bits 32-63 the ifindex, 16-17 PORT_KIND_*,
     * 0-15 the port's number. The controller writes a port's cell unless another
     * ifindex holds it; a frame whose cell names another ifindex (or none) is
     * looked up in the table. */
    Register<bit<64>, bit<32>>(PORT_CACHE_CELLS) port_cache;

    /* Controller writes: ifindex -> tester_port(its topology number), or
     * generator_port() for the interface the sender writes templates into. */
    table ports {
        key = { istd.ingress_port : exact @name("ifindex"); }
        actions = { tester_port; generator_port; other_port; }
        default_action = other_port();
        size = 64;
    }

    apply {
        ingress_drop(ostd);
        bit<32> ifindex = (bit<32>) (PortIdUint_t) istd.ingress_port;
        bit<32> slot = ifindex & (PORT_CACHE_CELLS - 1);
        bit<64> cached = port_cache.read(slot);
        if (cached[63:32] == ifindex && cached[17:16] == PORT_KIND_TESTER) {
            tester_port(cached[15:0]);
        } else if (cached[63:32] == ifindex && cached[17:16] == PORT_KIND_GENERATOR) {
            generator_port();
        } else {
            ports.apply();
        }
        if (hdr.generator_tag.isValid()) {
            /* A tagged frame from anywhere but the generator interface is dropped
             * (the rx_port count still shows it). */
            if (is_generator_port) {
                generator.apply(hdr.generator_tag, ostd);
            } else if (is_tester_port) {
                rx_port.count((bit<32>) port_number);
            }
        } else if (is_tester_port) {
            rx_port.count((bit<32>) port_number);
            bool is_control;
            bool answered;
            neighbors.apply(hdr, meta.frame, port_number, is_control, answered);
            if (is_control) {
                meta.rx_kind = RX_KIND_CONTROL;
            } else {
                bool several_ports;
                expectation.apply(hdr, meta.expected, several_ports);
                seq_slot = (bit<32>) hdr.tester.stream_id;
                figure_slot = seq_slot;
                if (several_ports) {
                    port_slots.apply(hdr.tester.stream_id, port_number, listed, seq_slot,
                                     figure_slot);
                }
                classifier.apply(hdr, meta.frame, istd.parser_error == error.NoError,
                                 meta.expected, port_number, listed, meta.rx_kind);
            }
            bit<32> kind = (bit<32>) meta.rx_kind;
            rx_kind.count(kind);
            if (meta.rx_kind == RX_KIND_STREAM) {
                timestamp_t rx_ts;
                rx_clock.apply(istd.ingress_timestamp, rx_ts);
                checker.apply(hdr, rx_ts, seq_slot, figure_slot);
            } else if (meta.rx_kind == RX_KIND_STALE) {
                rx_stale.count((bit<32>) hdr.tester.stream_id);
            } else if (meta.rx_kind == RX_KIND_MISMATCHED) {
                rx_mismatched.count((bit<32>) hdr.tester.stream_id);
            } else if (answered && !hdr.mpls[0].isValid()) {
                /* Ingress re-emits no MPLS label (platform.p4). */
                send_to_port(ostd, istd.ingress_port);
            }
        }
    }
}

control TesterEgress(inout headers_t hdr, inout local_metadata_t meta,
                     in psa_egress_input_metadata_t istd,
                     inout psa_egress_output_metadata_t ostd) {
    /* Every frame that leaves by a tester port (index: its number): compared
     * with the interface's tx_packets. */
    Counter<bit<32>, bit<32>>(FRONT_PANEL_PORTS, PSA_CounterType_t.PACKETS_AND_BYTES) tx_port;
    GeneratorEgress() generator;

    bit<16> port_number = 0;
    bool is_tester_port = false;

    action tester_port(bit<16> number) {
        port_number = number;
        is_tester_port = true;
    }

    action other_port() {
    }

    /* Controller writes: ifindex -> tester_port(its topology number). */
    table egress_ports {
        key = { istd.egress_port : exact @name("ifindex"); }
        actions = { tester_port; other_port; }
        default_action = other_port();
        size = 64;
    }

    apply {
        if (hdr.generator_tag.isValid()) {
            bool stamped;
            generator.apply(hdr, ostd, istd.egress_timestamp, stamped);
            if (stamped) {
                /* The tag names the copy's port, as the stream's multicast group
                 * does: no lookup of the egress port for each copy. */
                bit<32> port = (bit<32>) hdr.generator_tag.tx_port;
                tx_port.count(port);
            }
        } else {
            /* A neighbor answer: rare, so its port is looked up. */
            egress_ports.apply();
            if (is_tester_port) {
                tx_port.count((bit<32>) port_number);
            }
        }
    }
}

IngressPipeline(TesterIngressParser(), TesterIngress(), TesterIngressDeparser()) ingress_pipeline;
EgressPipeline(TesterEgressParser(), TesterEgress(), TesterEgressDeparser()) egress_pipeline;
PSA_Switch(ingress_pipeline, PacketReplicationEngine(), egress_pipeline,
           BufferingQueueingEngine()) main;
