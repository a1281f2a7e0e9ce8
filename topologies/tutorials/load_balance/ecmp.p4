/* A small ECMP router for v1model, the DUT of topologies/mininet-load-balance.yaml: a
 * route names a group of next hops and how many members it has; a CRC32 hash of the
 * frame's 5-tuple (addresses, protocol, L4 ports) picks the member, so each flow keeps
 * one path and flows spread over the members. A next hop listed as several members
 * takes that many shares (weighted ECMP). Written for p4tester in the shape of the
 * p4lang/tutorials load_balance exercise (tables driven by a runtime_json), not copied
 * from it. */
#include <core.p4>
#include <v1model.p4>

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IP_PROTO_TCP = 6;
const bit<8>  IP_PROTO_UDP = 17;

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

/* The first four bytes of UDP and TCP alike: the ports. */
header l4_ports_h {
    bit<16> src_port;
    bit<16> dst_port;
}

struct headers_t {
    ethernet_h ethernet;
    ipv4_h     ipv4;
    l4_ports_h l4;
}

struct metadata_t {
    bit<16> ecmp_group;
    bit<16> ecmp_member;
}

parser EcmpParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
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
        transition select(hdr.ipv4.ihl, hdr.ipv4.protocol) {
            (5, IP_PROTO_UDP): parse_l4;
            (5, IP_PROTO_TCP): parse_l4;
            default: accept;
        }
    }
    state parse_l4 {
        packet.extract(hdr.l4);
        transition accept;
    }
}

control EcmpVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {}
}

control EcmpIngress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    action drop() {
        mark_to_drop(standard_metadata);
    }

    /* The member: CRC32 of the 5-tuple, modulo the group's member count. A frame
     * without L4 ports hashes with ports 0 (the header is invalid: its fields read 0).
     * Not CRC16: a CRC is linear, and flows that differ only in the low byte of their
     * source port all got CRC16 (ARC) values whose two low bits are 00 or 01, so with
     * four members every flow took member 0 or 1 (hash polarization, seen with the
     * tester); CRC32's low bits take all four values over them. */
    action set_ecmp(bit<16> group, bit<16> members) {
        meta.ecmp_group = group;
        hash(meta.ecmp_member, HashAlgorithm.crc32, (bit<16>) 0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               hdr.l4.src_port, hdr.l4.dst_port }, members);
    }

    action set_nhop(mac_t dst_addr, port_t port) {
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = dst_addr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        standard_metadata.egress_spec = port;
    }

    /* The runtime_json writes one entry per route: prefix -> set_ecmp(group, members). */
    table ecmp_route {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { set_ecmp; drop; }
        size = 256;
        default_action = drop();
    }

    /* ...and one per member of a group: (group, member) -> set_nhop(MAC, port). */
    table ecmp_nhop {
        key = {
            meta.ecmp_group:  exact;
            meta.ecmp_member: exact;
        }
        actions = { set_nhop; drop; }
        size = 1024;
        default_action = drop();
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            if (ecmp_route.apply().hit) {
                ecmp_nhop.apply();
            }
        } else {
            drop();
        }
    }
}

control EcmpEgress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    apply {}
}

control EcmpComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control EcmpDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.l4);
    }
}

V1Switch(EcmpParser(), EcmpVerifyChecksum(), EcmpIngress(), EcmpEgress(),
         EcmpComputeChecksum(), EcmpDeparser()) main;
