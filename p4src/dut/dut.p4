/* Reference DUT for the labs (BMv2 v1model): a port-to-port forwarder with a
 * buffer and bottleneck the lab sets over thrift (set_queue_depth /
 * set_queue_rate). When a frame carries the tester header, the DUT writes its
 * own egress queue depth (packets at enqueue) and queue delay (us) into it, so
 * the tester can plot latency against the DUT's queue. */
#include <core.p4>
#include <v1model.p4>

#include "../v1model/platform.p4"
#include "../common/headers.p4"
#include "../common/frame_parser.p4"
#include "../common/dut_stamp.p4"
#include "../v1model/checksums.p4"

parser DutParser(packet_in pkt, out headers_t hdr, inout local_metadata_t meta,
                 inout standard_metadata_t smeta) {
    FrameParser() frame_parser;

    state start {
        frame_parser.apply(pkt, hdr, meta.frame);
        transition accept;
    }
}

control DutIngress(inout headers_t hdr, inout local_metadata_t meta,
                   inout standard_metadata_t smeta) {
    action forward(port_t port) {
        smeta.egress_spec = port;
    }

    action drop() {
        mark_to_drop(smeta);
    }

    /* Controller (the lab) writes: ingress port -> forward(egress port). */
    table port_forward {
        key = { smeta.ingress_port : exact @name("ingress_port"); }
        actions = { forward; drop; }
        default_action = drop();
        size = 64;
    }

    apply {
        port_forward.apply();
    }
}

control DutEgress(inout headers_t hdr, inout local_metadata_t meta,
                  inout standard_metadata_t smeta) {
    DutQueueStamp() queue_stamp;

    apply {
        queue_stamp.apply(hdr, (bit<32>) smeta.enq_qdepth, smeta.deq_timedelta);
        meta.stamped_tx = hdr.tester.isValid();
    }
}

control DutDeparser(packet_out pkt, in headers_t hdr) {
    EmitFrame() emit_frame;

    apply {
        emit_frame.apply(pkt, hdr);
    }
}

V1Switch(DutParser(), NoChecksumVerify(), DutIngress(), DutEgress(),
         TesterHeaderChecksums(), DutDeparser()) main;
