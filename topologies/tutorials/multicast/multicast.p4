/* A small multicast L2 switch for v1model, the DUT of topologies/mininet-multicast.yaml:
 * a frame's destination MAC picks a port or a multicast group; the switch's replication
 * engine (BMv2's PRE) copies a group's frames to its ports, and an egress table can
 * prune a group's copies on a port (a replica port that is down, or misconfigured).
 * Written for p4tester in the shape of the p4lang/tutorials exercises (tables and
 * actions driven by a runtime_json), not copied from one. */
#include <core.p4>
#include <v1model.p4>

typedef bit<9>  port_t;
typedef bit<48> mac_t;

header ethernet_h {
    mac_t   dst_addr;
    mac_t   src_addr;
    bit<16> ether_type;
}

struct headers_t {
    ethernet_h ethernet;
}

struct metadata_t {}

parser McastParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition accept;
    }
}

control McastVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {}
}

control McastIngress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    action drop() {
        mark_to_drop(standard_metadata);
    }

    action forward(port_t port) {
        standard_metadata.egress_spec = port;
    }

    /* The PRE copies the frame to each port of the group (multicast_group_entries). */
    action replicate(bit<16> group) {
        standard_metadata.mcast_grp = group;
    }

    /* The runtime_json writes one entry per destination: MAC -> a port or a group. */
    table dmac {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { forward; replicate; drop; }
        size = 256;
        default_action = drop();
    }

    apply {
        dmac.apply();
    }
}

control McastEgress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    action prune() {
        mark_to_drop(standard_metadata);
    }

    /* The runtime_json writes: (group, egress port) -> prune for a group's copies a
     * port must not send; no entry: the copy leaves. Unicast frames (group 0) too. */
    table replica_filter {
        key = {
            standard_metadata.mcast_grp:   exact;
            standard_metadata.egress_port: exact;
        }
        actions = { prune; NoAction; }
        size = 256;
        default_action = NoAction();
    }

    apply {
        replica_filter.apply();
    }
}

control McastComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {}
}

control McastDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
    }
}

V1Switch(McastParser(), McastVerifyChecksum(), McastIngress(), McastEgress(),
         McastComputeChecksum(), McastDeparser()) main;
