/* Target-neutral parser of a tester frame: Ethernet, optional VLAN, IPv4 or IPv6,
 * UDP, tester header. Called as a sub-parser by each architecture's parser. */
#ifndef TESTER_COMMON_FRAME_PARSER_P4
#define TESTER_COMMON_FRAME_PARSER_P4

#include "headers.p4"

parser FrameParser(packet_in pkt, inout headers_t hdr, inout frame_metadata_t meta) {
    state start {
        meta.tester_port_seen = false;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN: parse_vlan;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    /* Frames with IPv4 options or non-first fragments are not test frames
     * (the tester never sends them): they stay foreign. */
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (IPV4_IHL_NO_OPTIONS, 0, IP_PROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            IP_PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            TESTER_UDP_DST_PORT: parse_tester;
            default: accept;
        }
    }

    /* Set before the extract: when the frame is too short for the header the
     * extract fails, and the checker still knows a tester header was due. */
    state parse_tester {
        meta.tester_port_seen = true;
        pkt.extract(hdr.tester);
        transition accept;
    }
}

/* Emits the frame headers in wire order; each architecture's deparser calls it. */
control EmitFrame(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv6);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.tester);
    }
}

#endif
