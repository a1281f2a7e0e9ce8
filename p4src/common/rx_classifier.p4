/* Decides what a received frame is (RX_KIND_*), before any stream state is
 * touched: only RX_KIND_STREAM frames may change a stream's figures. */
#ifndef TESTER_COMMON_RX_CLASSIFIER_P4
#define TESTER_COMMON_RX_CLASSIFIER_P4

#include "headers.p4"

/* expected: the rx_expected entry of the frame's stream (rx_expectation.p4), looked
 * up before; rx_port: the port the frame arrived on; listed: that port is one of the
 * stream's several RX ports (rx_port_slots.p4). */
control RxClassifier(in headers_t hdr, in frame_metadata_t frame, in bool parsed_whole,
                     in rx_expectation_t expected, in bit<16> rx_port, in bool listed,
                     out bit<8> rx_kind) {
    apply {
        /* The tester's own IP and UDP are the innermost (the parser noted them):
         * a DUT may add or remove the tunnel around them. */
        /* The UDP length to check: the inner one in a tunnel (an outer one is
         * longer than what it carries, so checking it is harmless); TCP has
         * none (0xFFFF). Set by branches: a Tofino branch tests a bool, it does
         * not assign one. */
        bit<16> l4_length = 0xFFFF;
#ifdef TESTER_TUNNELS
        if (hdr.inner_udp.isValid()) {
            l4_length = hdr.inner_udp.length;
        } else if (hdr.udp.isValid()) {
            l4_length = hdr.udp.length;
        }
#else
        if (hdr.udp.isValid()) {
            l4_length = hdr.udp.length;
        }
#endif
        bit<15> run_epoch = hdr.tester.run ++ hdr.tester.flags[7:1];
        if (!frame.tester_port_seen) {
            rx_kind = RX_KIND_FOREIGN;
        } else if (!parsed_whole || !hdr.tester.isValid()
                   || (l4_length[15:8] == 0
                       && l4_length[7:0] < (bit<8>) MIN_TESTER_UDP_LENGTH)) {
            /* Either the frame ended inside the tester header, or Ethernet
             * padding hides the cut and only the UDP length tells. The length
             * test is "< MIN_TESTER_UDP_LENGTH" split at 8 bits (the minimum is
             * below 256): a Tofino branch compares at most 12 bits by range. */
            rx_kind = RX_KIND_TRUNCATED;
        } else if (hdr.tester.signature != TESTER_SIGNATURE) {
            rx_kind = RX_KIND_BAD_SIGNATURE;
        } else if ((bit<32>) hdr.tester.stream_id >= MAX_STREAMS_32) {
            rx_kind = RX_KIND_BAD_STREAM;
        } else if (!expected.in_trial || run_epoch != expected.run_epoch) {
            /* Another run's or trial's frame (or the stream is in none): its
             * sequence numbers and timestamps belong to no figure of this trial. */
            rx_kind = RX_KIND_STALE;
        } else if ((rx_port != expected.rx_port && !listed)
                   || frame.ip_version != expected.ip_version) {
            /* This trial's epoch, but not what the stream's template sends where:
             * a look-alike, which would otherwise show as duplicates or reordering. */
            rx_kind = RX_KIND_MISMATCHED;
        } else {
            rx_kind = RX_KIND_STREAM;
        }
    }
}

#endif
