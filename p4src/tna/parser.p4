/* TNA parsers and deparsers of the tester: intrinsic metadata, then the packet
 * generator's header or the bridge header, then the shared frame parser. */
#ifndef TESTER_TNA_PARSER_P4
#define TESTER_TNA_PARSER_P4

#include "platform.p4"
#include "../common/frame_parser.p4"

parser TesterIngressParser(packet_in pkt, out tna_headers_t hdr, out tna_metadata_t meta,
                           out ingress_intrinsic_metadata_t ig_intr_md) {
    FrameParser() frame_parser;

    state start {
        meta.local = {{false, 0, false}, CTRL_OP_NONE, 0, 0, RX_KIND_FOREIGN, false, {false, 0, 0, 0}, false, 0,
                      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, 0, 0};
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port[6:0]) {
            PKTGEN_PORT_IN_PIPE: parse_pktgen;
            default: parse_frame;
        }
    }

    /* The generator emits its 6-byte header in front of the template it reads from
     * its buffer (the controller stores the frame as it is, without FCS); ingress
     * removes the header, so what leaves is the template. */
    state parse_pktgen {
        pkt.extract(hdr.pktgen);
        transition parse_frame;
    }

    state parse_frame {
        frame_parser.apply(pkt, hdr.frame, meta.local.frame);
        transition accept;
    }
}

control TesterIngressDeparser(packet_out pkt, inout tna_headers_t hdr, in tna_metadata_t meta,
                              in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    EmitFrame() emit_frame;
    Checksum() icmpv6_checksum;

    apply {
        /* A Neighbor Advertisement the ingress made from a solicitation. */
        if (meta.local.neighbor_answered && hdr.frame.nd_option.isValid()) {
            hdr.frame.icmpv6.checksum = icmpv6_checksum.update({
                hdr.frame.ipv6.src_addr, hdr.frame.ipv6.dst_addr,
                hdr.frame.ipv6.payload_len, 8w0, hdr.frame.ipv6.next_hdr,
                hdr.frame.icmpv6.type, hdr.frame.icmpv6.code,
                hdr.frame.nd.flags, hdr.frame.nd.target,
                hdr.frame.nd_option.type, hdr.frame.nd_option.length, hdr.frame.nd_option.mac});
        }
        pkt.emit(hdr.bridge);
        emit_frame.apply(pkt, hdr.frame);
    }
}

parser TesterEgressParser(packet_in pkt, out tna_headers_t hdr, out tna_metadata_t meta,
                          out egress_intrinsic_metadata_t eg_intr_md) {
    FrameParser() frame_parser;

    state start {
        meta.local = {{false, 0, false}, CTRL_OP_NONE, 0, 0, RX_KIND_FOREIGN, false, {false, 0, 0, 0}, false, 0,
                      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, 0, 0};
#if __TARGET_TOFINO__ == 2
        meta.vary = {false, false, 0};
#endif
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.bridge);
        frame_parser.apply(pkt, hdr.frame, meta.local.frame);
        transition accept;
    }
}

control TesterEgressDeparser(packet_out pkt, inout tna_headers_t hdr, in tna_metadata_t meta,
                             in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    EmitFrame() emit_frame;
    Checksum() stamp_checksum;
#if __TARGET_TOFINO__ == 2
    Checksum() varied_stamp_checksum;
    Checksum() ipv4_checksum;
#endif

    apply {
        /* ~(sum of the stamps): with it, every UDP/TCP checksum of the template,
         * inner and outer, holds for the stamped copy. */
        if (meta.local.stamped_tx) {
            hdr.frame.tester.dut_qdelay = stamp_checksum.update({
                hdr.frame.tester.stream_id, hdr.frame.tester.seq, hdr.frame.tester.tx_ts});
        }
#if __TARGET_TOFINO__ == 2
        /* A varying stream's frame (field_steps.p4): the stamps, plus every word the
         * UDP or TCP checksum covers that a field may change (addresses, ports), less
         * the template's (template_words). The deparser sums the fields of valid
         * headers only. */
        if (meta.vary.stepped) {
            hdr.frame.tester.dut_qdelay = varied_stamp_checksum.update({
                hdr.frame.tester.stream_id, hdr.frame.tester.seq, hdr.frame.tester.tx_ts,
                hdr.frame.ipv4.src_addr, hdr.frame.ipv4.dst_addr,
                hdr.frame.ipv6.src_addr, hdr.frame.ipv6.dst_addr,
                hdr.frame.udp.src_port, hdr.frame.udp.dst_port,
                hdr.frame.tcp.src_port, hdr.frame.tcp.dst_port,
                meta.vary.template_words});
        }
        if (meta.vary.ipv4_header) {
            hdr.frame.ipv4.hdr_checksum = ipv4_checksum.update({
                hdr.frame.ipv4.version, hdr.frame.ipv4.ihl, hdr.frame.ipv4.dscp_ecn,
                hdr.frame.ipv4.total_len, hdr.frame.ipv4.identification,
                hdr.frame.ipv4.flags, hdr.frame.ipv4.frag_offset,
                hdr.frame.ipv4.ttl, hdr.frame.ipv4.protocol,
                hdr.frame.ipv4.src_addr, hdr.frame.ipv4.dst_addr});
        }
#endif
        pkt.emit(hdr.frame.packet_in);
        emit_frame.apply(pkt, hdr.frame);
    }
}

#endif
