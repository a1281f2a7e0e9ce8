/* v1model checksum controls of the tester and the reference DUT. IP headers are
 * never changed, but for the lengths of a frame cut short (random sizes). The
 * tester's stamp is checksum-neutral (constants.p4): it writes dut_qdelay = the
 * checksum of what it stamped, so that every UDP and TCP checksum the controller
 * computed for the template, inner and outer, holds for each copy. The reference
 * DUT stamps queue figures into plain IPv4/IPv6 UDP frames: IPv4 ones carry a
 * zero UDP checksum then, IPv6 forbids that, so it recomputes the UDP checksum
 * over the pseudo header, the UDP header, the tester header and the rest of the
 * payload. */
#ifndef TESTER_V1MODEL_CHECKSUMS_P4
#define TESTER_V1MODEL_CHECKSUMS_P4

#include "platform.p4"
#include "../common/headers.p4"

control NoChecksumVerify(inout headers_t hdr, inout local_metadata_t meta) {
    apply { }
}

control TesterStampChecksum(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        /* csum16 = ~(ones'-complement sum): with it, stamped fields + dut_qdelay
         * sum to 0xFFFF, as in the template (seq, tx_ts 0; dut_qdelay = ~ports). */
        update_checksum(meta.stamped_tx && hdr.tester.isValid() && meta.size_cut == 0,
                        { hdr.tester.seq, hdr.tester.tx_ts,
                          meta.vary_src_port, meta.vary_dst_port, meta.vary_l4_delta },
                        hdr.tester.dut_qdelay, HashAlgorithm.csum16);
        /* A frame cut short (generator.p4, tx_resize): the L4 checksum also covers
         * its length, twice for UDP (pseudo header and header), once for TCP (pseudo
         * header): the stamp adds new - old for each, so the template's checksum
         * still holds. */
        update_checksum(meta.stamped_tx && hdr.tester.isValid() && meta.size_cut != 0
                            && hdr.udp.isValid(),
                        { hdr.tester.seq, hdr.tester.tx_ts,
                          meta.vary_src_port, meta.vary_dst_port, meta.vary_l4_delta,
                          meta.l4_len_after, meta.l4_len_after,
                          meta.l4_len_before_neg, meta.l4_len_before_neg },
                        hdr.tester.dut_qdelay, HashAlgorithm.csum16);
        update_checksum(meta.stamped_tx && hdr.tester.isValid() && meta.size_cut != 0
                            && hdr.tcp.isValid(),
                        { hdr.tester.seq, hdr.tester.tx_ts,
                          meta.vary_src_port, meta.vary_dst_port, meta.vary_l4_delta,
                          meta.l4_len_after, meta.l4_len_before_neg },
                        hdr.tester.dut_qdelay, HashAlgorithm.csum16);
        update_checksum((meta.size_cut != 0 || meta.vary_ipv4_header) && hdr.ipv4.isValid(),
                        { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn,
                          hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.flags,
                          hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
                          hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
                        hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
        /* A Neighbor Advertisement the switch made from a solicitation. */
        update_checksum(meta.neighbor_answered && hdr.nd_option.isValid(),
                        { hdr.ipv6.src_addr, hdr.ipv6.dst_addr,
                          16w0, hdr.ipv6.payload_len, 24w0, hdr.ipv6.next_hdr,
                          hdr.icmpv6.type, hdr.icmpv6.code, 16w0,
                          hdr.nd.flags, hdr.nd.target,
                          hdr.nd_option.type, hdr.nd_option.length, hdr.nd_option.mac },
                        hdr.icmpv6.checksum, HashAlgorithm.csum16);
    }
}

control TesterHeaderChecksums(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        update_checksum_with_payload(
            meta.stamped_tx && hdr.ipv6.isValid() && hdr.udp.isValid() && hdr.tester.isValid()
                && !hdr.inner_ipv4.isValid() && !hdr.inner_ipv6.isValid(),
            { hdr.ipv6.src_addr,
              hdr.ipv6.dst_addr,
              16w0, hdr.udp.length,
              24w0, hdr.ipv6.next_hdr,
              hdr.udp.src_port,
              hdr.udp.dst_port,
              hdr.udp.length,
              hdr.tester.signature,
              hdr.tester.run,
              hdr.tester.flags,
              hdr.tester.stream_id,
              hdr.tester.seq,
              hdr.tester.tx_ts,
              hdr.tester.dut_qdepth,
              hdr.tester.dut_qdelay },
            hdr.udp.checksum,
            HashAlgorithm.csum16);
    }
}

#endif
