/* ARP and IPv6 Neighbor Discovery for the tester's own addresses: a router in
 * front of the tester resolves the addresses its streams come from, and the
 * switch answers in the data plane, out of the port the request came in on (its
 * VLAN tags kept). What it does not answer goes to the controller, which learns
 * the DUT's MAC from it. Target-neutral; the ICMPv6 checksum of an answer is each
 * architecture's (v1model/checksums.p4, tna/parser.p4). */
#ifndef TESTER_COMMON_NEIGHBORS_P4
#define TESTER_COMMON_NEIGHBORS_P4

#include "headers.p4"

control NeighborResponder(inout headers_t hdr, in frame_metadata_t frame, in bit<16> port,
                          out bool is_control, out bool answered) {
    /* The three lookups are independent (Tofino puts them in one stage); the
     * rewrite follows from their results. */
    /* Set by every lookup's hit and miss actions: no initialisation step before
     * the lookups (which would cost Tofino a stage). */
    bool from_unspecified;
    bool arp_known;
    bool nd_known;
    bit<48> own_mac;

    action unspecified_source() {
        from_unspecified = true;
    }

    action specified_source() {
        from_unspecified = false;
    }

    /* The unspecified address (::) as a table: a 128-bit compare is too wide for
     * a Tofino condition. */
    table solicitation_source {
        key = { hdr.ipv6.src_addr : exact @name("src_ip6"); }
        actions = { unspecified_source; specified_source; }
        const entries = { 0 : unspecified_source(); }
        default_action = specified_source();
        size = 1;
    }

    action answer_arp(bit<48> mac) {
        arp_known = true;
        own_mac = mac;
    }

    action unknown_ip() {
        arp_known = false;
        own_mac = 0;
    }

    /* Controller writes: (tester port, one of its IPv4 addresses) -> answer_arp(its MAC). */
    table arp_reply {
        key = {
            port         : exact @name("port");
            hdr.arp.tpa  : exact @name("target_ip");
        }
        actions = { answer_arp; @defaultonly unknown_ip; }
        default_action = unknown_ip();
        size = 256;
    }

    action answer_nd(bit<48> mac) {
        nd_known = true;
        own_mac = mac;
    }

    action unknown_ip6() {
        nd_known = false;
        own_mac = 0;
    }

    /* Controller writes: (tester port, one of its IPv6 addresses) -> answer_nd(its MAC). */
    table nd_reply {
        key = {
            port           : exact @name("port");
            hdr.nd.target  : exact @name("target_ip6");
        }
        actions = { answer_nd; @defaultonly unknown_ip6; }
        default_action = unknown_ip6();
        size = 256;
    }

    action reply_arp() {
        hdr.ethernet.dst_addr = hdr.ethernet.src_addr;
        hdr.ethernet.src_addr = own_mac;
        hdr.arp.oper = ARP_OP_REPLY;
        hdr.arp.tha = hdr.arp.sha;
        hdr.arp.sha = own_mac;
        bit<32> asked = hdr.arp.tpa;
        hdr.arp.tpa = hdr.arp.spa;
        hdr.arp.spa = asked;
    }

    /* A solicited Neighbor Advertisement (S and O set) with the target link-layer
     * address option; the NS's own option, when it had one, becomes that option. */
    action advertise() {
        hdr.ethernet.dst_addr = hdr.ethernet.src_addr;
        hdr.ethernet.src_addr = own_mac;
        hdr.ipv6.dst_addr = hdr.ipv6.src_addr;
        hdr.ipv6.src_addr = hdr.nd.target;
        hdr.ipv6.hop_limit = 255;
        hdr.ipv6.payload_len = 32;   /* ICMPv6 4 + NA 20 + option 8 */
        hdr.icmpv6.type = ICMPV6_NA;
        hdr.icmpv6.code = 0;
        hdr.nd.flags = ND_NA_FLAGS_SOLICITED_OVERRIDE;
        hdr.nd_option.setValid();
        hdr.nd_option.type = ND_OPT_TARGET_LLA;
        hdr.nd_option.length = 1;
        hdr.nd_option.mac = own_mac;
    }

    apply {
        answered = false;
        if (hdr.arp.isValid()) {
            is_control = true;
            arp_reply.apply();
            /* An ARP reply to the tester's address is the DUT's: not answered. */
            if (arp_known && hdr.arp.oper == ARP_OP_REQUEST) {
                reply_arp();
                answered = true;
            }
        } else if (frame.neighbor_discovery) {
            is_control = true;
            solicitation_source.apply();
            nd_reply.apply();
            /* An NS from the unspecified address is duplicate address detection:
             * answering it would tell the asker its address is taken. */
            if (nd_known && hdr.icmpv6.type == ICMPV6_NS && !from_unspecified) {
                advertise();
                answered = true;
            }
        } else {
            is_control = false;
        }
    }
}

#endif
