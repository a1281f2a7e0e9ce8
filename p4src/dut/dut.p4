/* Reference DUT for the labs (BMv2 v1model): a port-to-port forwarder with a
 * buffer and bottleneck the lab sets over thrift (set_queue_depth /
 * set_queue_rate). When a frame carries the tester header, the DUT writes its
 * own egress queue depth (packets at enqueue) and queue delay (us) into it, so
 * the tester can plot latency against the DUT's queue. It can also drop, reorder
 * and duplicate tester frames in a known pattern (impairments.p4), and act as an
 * MPLS edge: push a label on what a port brings in, or pop the one it carries. */
#include <core.p4>
#include <v1model.p4>

#include "../v1model/platform.p4"
#include "../common/headers.p4"
#include "../common/frame_parser.p4"
#include "../common/dut_stamp.p4"
#include "../common/stream_template.p4"
#include "../v1model/checksums.p4"
#include "impairments.p4"

struct dut_metadata_t {
    local_metadata_t local;
    hold_metadata_t  hold;
}

parser DutParser(packet_in pkt, out headers_t hdr, inout dut_metadata_t meta,
                 inout standard_metadata_t smeta) {
    FrameParser() frame_parser;

    state start {
        frame_parser.apply(pkt, hdr, meta.local.frame);
        transition accept;
    }
}

control DutIngress(inout headers_t hdr, inout dut_metadata_t meta,
                   inout standard_metadata_t smeta) {
    /* Every frame the DUT received from a port (index: port), before anything
     * else: the lab compares it with the kernel's rx_packets of the DUT's
     * interface, to tell a DUT starved of CPU from the DUT it was configured to
     * be (issue 10). */
    counter(DUT_PORTS, CounterType.packets_and_bytes) dut_rx_port;

    Impairments() impairments;

    action forward(port_t port) {
        smeta.egress_spec = port;
    }

    action drop() {
        mark_to_drop(smeta);
    }

    action push_label(bit<20> label) {
        hdr.mpls.push_front(1);
        hdr.mpls[0].setValid();
        hdr.mpls[0].label = label;
        hdr.mpls[0].tc = 0;
        hdr.mpls[0].bos = 1;
        hdr.mpls[0].ttl = 64;
        hdr.ethernet.ether_type = ETHERTYPE_MPLS;
    }

    /* The payload's IP version (parsed behind the label) gives the new EtherType. */
    action pop_label() {
        hdr.mpls.pop_front(1);
        hdr.ethernet.ether_type = hdr.ipv4.isValid() ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6;
    }

    /* Controller (the lab) writes: (ingress port, labelled false) -> push_label(label),
     * (ingress port, labelled true) -> pop_label(); no entry: neither. IP frames only. */
    table mpls_edge {
        key = {
            smeta.ingress_port     : exact @name("ingress_port");
            hdr.mpls[0].isValid()  : exact @name("labelled");
        }
        actions = { push_label; pop_label; NoAction; }
        default_action = NoAction();
        size = 64;
    }

    /* Controller (the lab) writes: ingress port -> forward(egress port). */
    table port_forward {
        key = { smeta.ingress_port : exact @name("ingress_port"); }
        actions = { forward; drop; }
        default_action = drop();
        size = 64;
    }

    apply {
        /* One call site (BMv2 allows a table one): a held frame's next pass, or a
         * tester frame on its way through. */
        bool impair = smeta.instance_type == PKT_INSTANCE_TYPE_RECIRC;
        if (!impair) {
            dut_rx_port.count((bit<32>) smeta.ingress_port);
            impair = port_forward.apply().hit && is_stream_template(hdr);
            if (hdr.ipv4.isValid() || hdr.ipv6.isValid()) {
                mpls_edge.apply();
            }
        }
        if (impair) {
            impairments.apply(meta.hold, smeta);
        }
    }
}

control DutEgress(inout headers_t hdr, inout dut_metadata_t meta,
                  inout standard_metadata_t smeta) {
    /* Every frame that left the DUT's queue by a port (index: port): frames in
     * minus frames out is what the queue and the impairments dropped. */
    counter(DUT_PORTS, CounterType.packets_and_bytes) dut_tx_port;

    DutQueueStamp() queue_stamp;
    HoldLoop() hold_loop;

    apply {
        if (smeta.egress_port == HOLD_PORT) {
            hold_loop.apply(meta.hold, smeta);
        } else {
            dut_tx_port.count((bit<32>) smeta.egress_port);
            queue_stamp.apply(hdr, (bit<32>) smeta.enq_qdepth, smeta.deq_timedelta);
            meta.local.stamped_tx = hdr.tester.isValid();
            if (hdr.tester.isValid() && hdr.ipv4.isValid() && hdr.udp.isValid()
                    && !hdr.inner_ipv4.isValid() && !hdr.inner_ipv6.isValid()) {
                /* The stamp breaks the tester's checksum-neutral one: RFC 768's
                 * "no checksum" instead (IPv6: DutChecksums recomputes it). */
                hdr.udp.checksum = 0;
            }
        }
    }
}

control DutChecksums(inout headers_t hdr, inout dut_metadata_t meta) {
    TesterHeaderChecksums() tester_header;

    apply {
        tester_header.apply(hdr, meta.local);
    }
}

control DutNoChecksumVerify(inout headers_t hdr, inout dut_metadata_t meta) {
    apply { }
}

control DutDeparser(packet_out pkt, in headers_t hdr) {
    EmitFrame() emit_frame;

    apply {
        emit_frame.apply(pkt, hdr);
    }
}

V1Switch(DutParser(), DutNoChecksumVerify(), DutIngress(), DutEgress(),
         DutChecksums(), DutDeparser()) main;
