/* Target-neutral parser of a tester frame. Called as a sub-parser by each
 * architecture's parser. It walks what a DUT in front of the tester may add or
 * remove: VLAN and QinQ tags, an MPLS label stack, IPv4 or IPv6 (with an SRv6
 * SRH), UDP or TCP, and the tunnels VxLAN, GTP-U and IP-in-IPv6 (SRv6
 * encapsulation). The tester header follows the innermost UDP or TCP header; it
 * is found by its signature, or by the tester's UDP port.
 * Tofino parses at most 160 bytes deep (egress metadata included): Tofino 2
 * walks tunnels over IPv4 only (no SRv6, no VxLAN or GTP-U over IPv6), Tofino 1
 * no tunnels at all (constants.p4). */
#ifndef TESTER_COMMON_FRAME_PARSER_P4
#define TESTER_COMMON_FRAME_PARSER_P4

#include "headers.p4"

/* The next 16 bits / the next IP version nibble, not consumed. A target whose
 * compiler cannot look ahead by a bit type (p4c's eBPF backend) defines these
 * as a look ahead by a header type first (psa/platform.p4). */
#ifndef PEEK_16
#define PEEK_16(pkt) pkt.lookahead<bit<16>>()
#endif
#ifndef PEEK_IP_VERSION
#define PEEK_IP_VERSION(pkt) pkt.lookahead<bit<4>>()
#endif

parser FrameParser(packet_in pkt, inout headers_t hdr, inout frame_metadata_t meta) {
    state start {
        meta.tester_port_seen = false;
        meta.neighbor_discovery = false;
        meta.ip_version = 0;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN: parse_vlan;
            ETHERTYPE_ARP: parse_arp;
            ETHERTYPE_QINQ: parse_vlan_outer;
            ETHERTYPE_MPLS: parse_mpls;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    state parse_vlan_outer {
        pkt.extract(hdr.vlan_outer);
        transition select(hdr.vlan_outer.ether_type) {
            ETHERTYPE_VLAN: parse_vlan;
            ETHERTYPE_ARP: parse_arp;
            ETHERTYPE_MPLS: parse_mpls;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_ARP: parse_arp;
            ETHERTYPE_MPLS: parse_mpls;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    /* More than MPLS_MAX_LABELS labels: the stack overflows, a parser error, and
     * the frame is foreign. */
    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            0: parse_mpls;
            1: parse_mpls_payload;
        }
    }

    /* MPLS does not say what it carries: the IP version nibble does. */
    state parse_mpls_payload {
        transition select(PEEK_IP_VERSION(pkt)) {
            4: parse_ipv4;
            6: parse_ipv6;
            default: accept;
        }
    }

    /* Frames with IPv4 options or non-first fragments are not test frames
     * (the tester never sends them): they stay foreign. */
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        meta.ip_version = IP_VERSION_4;
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (IPV4_IHL_NO_OPTIONS, 0, IP_PROTO_UDP): parse_udp;
            (IPV4_IHL_NO_OPTIONS, 0, IP_PROTO_TCP): parse_tcp;
            default: accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        meta.ip_version = IP_VERSION_6;
        transition select(hdr.ipv6.next_hdr) {
#ifdef TESTER_IPV6_TUNNELS
            IP_PROTO_UDP: parse_udp;
            IP_PROTO_ROUTING: parse_srh;
            IP_PROTO_IPV4: parse_inner_ipv4;
            IP_PROTO_IPV6: parse_inner_ipv6;
#else
            IP_PROTO_UDP: parse_udp_no_tunnel;
#endif
            IP_PROTO_TCP: parse_tcp;
            IP_PROTO_ICMPV6: parse_icmpv6;
            default: accept;
        }
    }

    state parse_arp {
        pkt.extract(hdr.arp);
        transition accept;
    }

    /* Neighbor discovery (RS, RA, NS, NA, redirect) is control, not foreign. */
    state parse_icmpv6 {
        pkt.extract(hdr.icmpv6);
        transition select(hdr.icmpv6.type) {
            ICMPV6_NS: parse_nd;
            ICMPV6_NA: parse_nd;
            ICMPV6_RS: neighbor_discovery;
            ICMPV6_RA: neighbor_discovery;
            ICMPV6_REDIRECT: neighbor_discovery;
            default: accept;
        }
    }

    state neighbor_discovery {
        meta.neighbor_discovery = true;
        transition accept;
    }

    /* The link-layer address option, when it comes first (Linux sends only it). */
    state parse_nd {
        meta.neighbor_discovery = true;
        pkt.extract(hdr.nd);
        transition select(PEEK_16(pkt)) {
            0x0101: parse_nd_option;
            0x0201: parse_nd_option;
            default: accept;
        }
    }

    state parse_nd_option {
        pkt.extract(hdr.nd_option);
        transition accept;
    }

#ifndef TESTER_IPV6_TUNNELS
    /* UDP over an outer IPv6 where tunnels over IPv6 are left out. */
    state parse_udp_no_tunnel {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            TESTER_UDP_DST_PORT: parse_tester;
            default: find_tester;
        }
    }
#endif

#ifdef TESTER_IPV6_TUNNELS
    /* An SRH without TLVs (hdr_ext_len = 2 x segments) of 1..SRH_MAX_SEGMENTS
     * segments; anything else is not a tester frame. */
    state parse_srh {
        pkt.extract(hdr.srh);
        transition select(hdr.srh.routing_type, hdr.srh.last_entry, hdr.srh.hdr_ext_len) {
            (SRH_ROUTING_TYPE, 0, 2): parse_srh_segments_1;
            (SRH_ROUTING_TYPE, 1, 4): parse_srh_segments_2;
            (SRH_ROUTING_TYPE, 2, 6): parse_srh_segments_3;
            (SRH_ROUTING_TYPE, 3, 8): parse_srh_segments_4;
            default: accept;
        }
    }

    state parse_srh_segments_4 {
        pkt.extract(hdr.srh_segments.next);
        transition parse_srh_segments_3;
    }

    state parse_srh_segments_3 {
        pkt.extract(hdr.srh_segments.next);
        transition parse_srh_segments_2;
    }

    state parse_srh_segments_2 {
        pkt.extract(hdr.srh_segments.next);
        transition parse_srh_segments_1;
    }

    state parse_srh_segments_1 {
        pkt.extract(hdr.srh_segments.next);
        transition select(hdr.srh.next_hdr) {
            IP_PROTO_UDP: parse_udp;
            IP_PROTO_TCP: parse_tcp;
            IP_PROTO_IPV4: parse_inner_ipv4;
            IP_PROTO_IPV6: parse_inner_ipv6;
            default: accept;
        }
    }

#endif

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            TESTER_UDP_DST_PORT: parse_tester;
#ifdef TESTER_TUNNELS
            UDP_PORT_VXLAN: vxlan_or_tester;
            UDP_PORT_GTPU: gtpu_or_tester;
#endif
            default: find_tester;
        }
    }

#ifdef TESTER_TUNNELS
    /* A tunnel's port with the tester's signature right after UDP: an untunnelled
     * stream whose varied or drawn destination port is the tunnel's (4789, 2152).
     * No VxLAN or GTP-U header starts with it (their first byte is flags: 0x08,
     * 0x3x), so the tunnels are still parsed as tunnels. */
    state vxlan_or_tester {
        transition select(PEEK_16(pkt)) {
            TESTER_SIGNATURE: parse_tester;
            default: parse_vxlan;
        }
    }

    state gtpu_or_tester {
        transition select(PEEK_16(pkt)) {
            TESTER_SIGNATURE: parse_tester;
            default: parse_gtpu;
        }
    }
#endif

    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition select(hdr.tcp.data_offset) {
            TCP_DATA_OFFSET_NO_OPTIONS: find_tester;
            default: accept;
        }
    }

#ifdef TESTER_TUNNELS
    state parse_vxlan {
        pkt.extract(hdr.vxlan);
        pkt.extract(hdr.inner_ethernet);
        transition select(hdr.inner_ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_inner_ipv4;
            ETHERTYPE_IPV6: parse_inner_ipv6;
            default: accept;
        }
    }

    /* A G-PDU (user data) of GTP version 1. */
    state parse_gtpu {
        pkt.extract(hdr.gtpu);
        transition select(hdr.gtpu.version, hdr.gtpu.msg_type, hdr.gtpu.ext_flag,
                          hdr.gtpu.seq_flag, hdr.gtpu.npdu_flag) {
            (1, GTPU_MSG_GPDU, 0, 0, 0): parse_gtpu_payload;
            (1, GTPU_MSG_GPDU, _, _, _): parse_gtpu_opt;
            default: accept;
        }
    }

    state parse_gtpu_opt {
        pkt.extract(hdr.gtpu_opt);
        transition select(hdr.gtpu_opt.next_ext) {
            0: parse_gtpu_payload;
            default: parse_gtpu_ext;
        }
    }

    /* One extension header of 4 bytes (e.g. the PDU Session Container), last. */
    state parse_gtpu_ext {
        pkt.extract(hdr.gtpu_ext);
        transition select(hdr.gtpu_ext.length, hdr.gtpu_ext.next_ext) {
            (1, 0): parse_gtpu_payload;
            default: accept;
        }
    }

    state parse_gtpu_payload {
        transition select(PEEK_IP_VERSION(pkt)) {
            4: parse_inner_ipv4;
            6: parse_inner_ipv6;
            default: accept;
        }
    }

    state parse_inner_ipv4 {
        pkt.extract(hdr.inner_ipv4);
        meta.ip_version = IP_VERSION_4;
        transition select(hdr.inner_ipv4.ihl, hdr.inner_ipv4.frag_offset,
                          hdr.inner_ipv4.protocol) {
            (IPV4_IHL_NO_OPTIONS, 0, IP_PROTO_UDP): parse_inner_udp;
            (IPV4_IHL_NO_OPTIONS, 0, IP_PROTO_TCP): parse_inner_tcp;
            default: accept;
        }
    }

    state parse_inner_ipv6 {
        pkt.extract(hdr.inner_ipv6);
        meta.ip_version = IP_VERSION_6;
        transition select(hdr.inner_ipv6.next_hdr) {
            IP_PROTO_UDP: parse_inner_udp;
            IP_PROTO_TCP: parse_inner_tcp;
            default: accept;
        }
    }

    state parse_inner_udp {
        pkt.extract(hdr.inner_udp);
        transition select(hdr.inner_udp.dst_port) {
            TESTER_UDP_DST_PORT: parse_tester;
            default: find_tester;
        }
    }

    state parse_inner_tcp {
        pkt.extract(hdr.inner_tcp);
        transition select(hdr.inner_tcp.data_offset) {
            TCP_DATA_OFFSET_NO_OPTIONS: find_tester;
            default: accept;
        }
    }

#endif

    /* Any other port: the payload is the tester's when it starts with the
     * signature (a foreign frame matches by chance once in 2^16, and is then
     * still no stream's frame unless its stream, run and epoch match one). */
    state find_tester {
        transition select(PEEK_16(pkt)) {
            TESTER_SIGNATURE: parse_tester;
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
        pkt.emit(hdr.vlan_outer);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.arp);
        pkt.emit(hdr.mpls);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv6);
#ifdef TESTER_IPV6_TUNNELS
        pkt.emit(hdr.srh);
        pkt.emit(hdr.srh_segments);
#endif
        pkt.emit(hdr.icmpv6);
        pkt.emit(hdr.nd);
        pkt.emit(hdr.nd_option);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.vxlan);
        pkt.emit(hdr.gtpu);
        pkt.emit(hdr.gtpu_opt);
        pkt.emit(hdr.gtpu_ext);
        pkt.emit(hdr.inner_ethernet);
        pkt.emit(hdr.inner_ipv4);
        pkt.emit(hdr.inner_ipv6);
        pkt.emit(hdr.inner_udp);
        pkt.emit(hdr.inner_tcp);
        pkt.emit(hdr.tester);
    }
}

#endif
