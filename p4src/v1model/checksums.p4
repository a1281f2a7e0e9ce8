/* v1model checksum controls shared by the tester and the reference DUT.
 * IPv4 headers are never changed, and IPv4/UDP test frames carry a zero UDP
 * checksum (allowed by RFC 768). IPv6 forbids a zero UDP checksum, so it is
 * recomputed over the pseudo header, the UDP header, the tester header and the
 * rest of the payload whenever the tester header was rewritten. */
#ifndef TESTER_V1MODEL_CHECKSUMS_P4
#define TESTER_V1MODEL_CHECKSUMS_P4

#include "platform.p4"
#include "../common/headers.p4"

control NoChecksumVerify(inout headers_t hdr, inout local_metadata_t meta) {
    apply { }
}

control TesterHeaderChecksums(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        update_checksum_with_payload(
            meta.stamped_tx && hdr.ipv6.isValid() && hdr.udp.isValid() && hdr.tester.isValid(),
            { hdr.ipv6.src_addr,
              hdr.ipv6.dst_addr,
              16w0, hdr.udp.length,
              24w0, hdr.ipv6.next_hdr,
              hdr.udp.src_port,
              hdr.udp.dst_port,
              hdr.udp.length,
              hdr.tester.signature,
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
