/* Decides what a received frame is (RX_KIND_*), before any stream state is
 * touched: only RX_KIND_STREAM frames may change a stream's figures. */
#ifndef TESTER_COMMON_RX_CLASSIFIER_P4
#define TESTER_COMMON_RX_CLASSIFIER_P4

#include "headers.p4"

control RxClassifier(in headers_t hdr, in frame_metadata_t frame, in bool parsed_whole,
                     out bit<8> rx_kind) {
    apply {
        if (!frame.tester_port_seen) {
            rx_kind = RX_KIND_FOREIGN;
        } else if (!parsed_whole || !hdr.tester.isValid()
                   || (hdr.udp.length[15:8] == 0
                       && hdr.udp.length[7:0] < (bit<8>) MIN_TESTER_UDP_LENGTH)) {
            /* Either the frame ended inside the tester header, or Ethernet
             * padding hides the cut and only the UDP length tells. The length
             * test is "< MIN_TESTER_UDP_LENGTH" split at 8 bits (the minimum is
             * below 256): a Tofino branch compares at most 12 bits by range. */
            rx_kind = RX_KIND_TRUNCATED;
        } else if (hdr.tester.signature != TESTER_SIGNATURE) {
            rx_kind = RX_KIND_BAD_SIGNATURE;
        } else if ((bit<32>) hdr.tester.stream_id >= MAX_STREAMS_32) {
            rx_kind = RX_KIND_BAD_STREAM;
        } else {
            rx_kind = RX_KIND_STREAM;
        }
    }
}

#endif
