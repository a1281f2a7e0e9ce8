/* A small IPv4 router for v1model, the DUT of topologies/mininet-tutorials-basic.yaml:
 * longest-prefix match on the destination address picks the egress port and the next
 * hop's MAC; the switch writes its own MAC as source and decrements TTL. Written for
 * p4tester in the shape of the p4lang/tutorials `basic` exercise (same table and action
 * roles, so a tutorials runtime_json drives it), not copied from it. */
#include <core.p4>
#include <v1model.p4>

const bit<16> ETHERTYPE_IPV4 = 0x0800;

typedef bit<9>  port_t;
typedef bit<48> mac_t;
typedef bit<32> ipv4_t;

header ethernet_h {
    mac_t   dst_addr;
    mac_t   src_addr;
    bit<16> ether_type;
}

header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    ipv4_t  src_addr;
    ipv4_t  dst_addr;
}

struct headers_t {
    ethernet_h ethernet;
    ipv4_h     ipv4;
}

struct metadata_t {}

parser RoutedParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control RoutedVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {}
}

control RoutedIngress(inout headers_t hdr, inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {
    action drop() {
        mark_to_drop(standard_metadata);
    }

    /* The controller writes one entry per route: prefix -> (next hop MAC, port). */
    action ipv4_forward(mac_t dst_addr, port_t port) {
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = dst_addr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        standard_metadata.egress_spec = port;
    }

    table ipv4_lpm {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { ipv4_forward; drop; NoAction; }
        size = 1024;
        default_action = drop();
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
    }
}

control RoutedEgress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    apply {}
}

control RoutedComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control RoutedDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(RoutedParser(), RoutedVerifyChecksum(), RoutedIngress(), RoutedEgress(),
         RoutedComputeChecksum(), RoutedDeparser()) main;
