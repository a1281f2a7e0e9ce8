/* Parsers and deparsers of the eBPF tester (what they leave out and why:
 * platform.p4). */
#ifndef TESTER_PSA_PARSER_P4
#define TESTER_PSA_PARSER_P4

#include "platform.p4"
#include "../common/frame_parser.p4"

/* A generator frame (tag after the MAC addresses) stops at its tag: ingress only
 * replicates it. Anything else is a received frame for the checker. */
parser TesterIngressParser(packet_in pkt, out headers_t hdr,
                           inout local_metadata_t meta,
                           in psa_ingress_parser_input_metadata_t istd,
                           in empty_t resubmit_meta, in empty_t recirculate_meta) {
    FrameParser() frame_parser;

    state start {
        generator_peek_h peek = pkt.lookahead<generator_peek_h>();
        transition select(peek.ether_type, peek.signature) {
            (GENERATOR_TAG_ETHERTYPE, GENERATOR_TAG_SIGNATURE): parse_generator_tag;
            default: parse_frame;
        }
    }

    state parse_generator_tag {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.generator_tag);
        transition accept;
    }

    state parse_frame {
        frame_parser.apply(pkt, hdr, meta.frame);
        transition accept;
    }
}

/* Re-emits what leaves ingress: a generator frame (Ethernet and tag) or a
 * neighbor answer (Ethernet, VLAN tags, ARP or IPv6 ND). */
control TesterIngressDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                              out empty_t resubmit_meta, out empty_t normal_meta,
                              inout headers_t hdr, in local_metadata_t meta,
                              in psa_ingress_output_metadata_t istd) {
    InternetChecksum() nd_checksum;

    apply {
        /* A Neighbor Advertisement the program made from a solicitation (a
         * received one is dropped, its checksum does not matter; p4c-ebpf's
         * deparsers cannot read user metadata to tell them apart). */
        if (hdr.nd_option.isValid() && hdr.icmpv6.type == ICMPV6_NA) {
            nd_checksum.clear();
            nd_checksum.add({ hdr.ipv6.src_addr, hdr.ipv6.dst_addr,
                              16w0, hdr.ipv6.payload_len, 24w0, hdr.ipv6.next_hdr,
                              hdr.icmpv6.type, hdr.icmpv6.code, 16w0,
                              hdr.nd.flags, hdr.nd.target,
                              hdr.nd_option.type, hdr.nd_option.length,
                              hdr.nd_option.mac });
            hdr.icmpv6.checksum = nd_checksum.get();
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.generator_tag);
        pkt.emit(hdr.vlan_outer);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.arp);
        pkt.emit(hdr.ipv6);
        pkt.emit(hdr.icmpv6);
        pkt.emit(hdr.nd);
        pkt.emit(hdr.nd_option);
    }
}

/* Egress sees the generator's copies (tagged) and neighbor answers (passed as
 * they are). A copy's bytes up to the tester header are carried, not parsed. */
parser TesterEgressParser(packet_in pkt, out headers_t hdr,
                          inout local_metadata_t meta,
                          in psa_egress_parser_input_metadata_t istd,
                          in empty_t normal_meta, in empty_t clone_i2e_meta,
                          in empty_t clone_e2e_meta) {
    state start {
        generator_peek_h peek = pkt.lookahead<generator_peek_h>();
        transition select(peek.ether_type, peek.signature) {
            (GENERATOR_TAG_ETHERTYPE, GENERATOR_TAG_SIGNATURE): parse_generator_tag;
            default: accept;
        }
    }

    state parse_generator_tag {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.generator_tag);
        /* Masks, not slices: p4c-ebpf does not mask a sliced select key. */
        transition select(hdr.generator_tag.tester_offset) {
            0x00 &&& 0xC0: chunk_32;
            0x40 &&& 0xC0: chunk_64;
            default: accept;   /* deeper than any template: no tester header */
        }
    }

    state chunk_64 {
        pkt.extract(hdr.chunk64);
        transition chunk_32;
    }

    state chunk_32 {
        transition select(hdr.generator_tag.tester_offset) {
            0x20 &&& 0x20: extract_32;
            default: chunk_16;
        }
    }

    state extract_32 {
        pkt.extract(hdr.chunk32);
        transition chunk_16;
    }

    state chunk_16 {
        transition select(hdr.generator_tag.tester_offset) {
            0x10 &&& 0x10: extract_16;
            default: chunk_8;
        }
    }

    state extract_16 {
        pkt.extract(hdr.chunk16);
        transition chunk_8;
    }

    state chunk_8 {
        transition select(hdr.generator_tag.tester_offset) {
            0x08 &&& 0x08: extract_8;
            default: chunk_4;
        }
    }

    state extract_8 {
        pkt.extract(hdr.chunk8);
        transition chunk_4;
    }

    state chunk_4 {
        transition select(hdr.generator_tag.tester_offset) {
            0x04 &&& 0x07: extract_4;
            0x00 &&& 0x07: parse_tester;
            default: accept;   /* not a multiple of 4: no template has that */
        }
    }

    state extract_4 {
        pkt.extract(hdr.chunk4);
        transition parse_tester;
    }

    state parse_tester {
        pkt.extract(hdr.tester);
        transition accept;
    }
}

/* A generator copy leaves without its tag, with the template's EtherType and its
 * stamp made checksum-neutral (constants.p4: dut_qdelay = ~(seq + tx_ts) in
 * ones' complement, so every UDP/TCP checksum of the template holds). */
control TesterEgressDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                             out empty_t recirculate_meta, inout headers_t hdr,
                             in local_metadata_t meta,
                             in psa_egress_output_metadata_t istd,
                             in psa_egress_deparser_input_metadata_t edstd) {
    InternetChecksum() stamp_checksum;

    apply {
        if (hdr.tester.isValid()) {
            stamp_checksum.clear();
            stamp_checksum.add({ hdr.tester.seq, hdr.tester.tx_ts });
            hdr.tester.dut_qdelay = stamp_checksum.get();
        }
        if (hdr.generator_tag.isValid()) {
            hdr.ethernet.ether_type = hdr.generator_tag.ether_type;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.chunk64);
        pkt.emit(hdr.chunk32);
        pkt.emit(hdr.chunk16);
        pkt.emit(hdr.chunk8);
        pkt.emit(hdr.chunk4);
        pkt.emit(hdr.tester);
    }
}

#endif
