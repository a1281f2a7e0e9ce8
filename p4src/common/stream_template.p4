/* Whether a frame can serve as a generator template: it carries a tester header
 * with the right signature and a stream id the data plane has state for. */
#ifndef TESTER_COMMON_STREAM_TEMPLATE_P4
#define TESTER_COMMON_STREAM_TEMPLATE_P4

#include "headers.p4"

bool is_stream_template(in headers_t hdr) {
    return hdr.tester.isValid() && hdr.tester.signature == TESTER_SIGNATURE
           && (bit<32>) hdr.tester.stream_id < MAX_STREAMS_32;
}

#endif
