/* Baseline for `make bench`: the least a BMv2 program can do to move a frame,
 * one exact-match table from ingress port to egress port. The tester's checker
 * path is measured against it. */
#include <core.p4>
#include <v1model.p4>

#include "../common/headers.p4"

parser BaselineParser(packet_in pkt, out headers_t hdr, inout local_metadata_t meta,
                      inout standard_metadata_t smeta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control BaselineNoChecksum(inout headers_t hdr, inout local_metadata_t meta) {
    apply { }
}

control BaselineIngress(inout headers_t hdr, inout local_metadata_t meta,
                        inout standard_metadata_t smeta) {
    action forward(bit<9> port) {
        smeta.egress_spec = port;
    }

    action drop() {
        mark_to_drop(smeta);
    }

    /* Controller (the bench) writes: ingress port -> forward(egress port). */
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

control BaselineEgress(inout headers_t hdr, inout local_metadata_t meta,
                       inout standard_metadata_t smeta) {
    apply { }
}

control BaselineDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

V1Switch(BaselineParser(), BaselineNoChecksum(), BaselineIngress(), BaselineEgress(),
         BaselineNoChecksum(), BaselineDeparser()) main;
