/* What a cooperating DUT writes into a passing tester header: its own egress
 * queue depth and queue delay, saturated to the 16-bit fields. */
#ifndef TESTER_COMMON_DUT_STAMP_P4
#define TESTER_COMMON_DUT_STAMP_P4

#include "headers.p4"

control DutQueueStamp(inout headers_t hdr, in bit<32> queue_depth, in bit<32> queue_delay) {
    apply {
        if (hdr.tester.isValid() && hdr.tester.signature == TESTER_SIGNATURE) {
            if (queue_depth > (bit<32>) SATURATED_16) {
                hdr.tester.dut_qdepth = SATURATED_16;
            } else {
                hdr.tester.dut_qdepth = (bit<16>) queue_depth;
            }
            if (queue_delay > (bit<32>) SATURATED_16) {
                hdr.tester.dut_qdelay = SATURATED_16;
            } else {
                hdr.tester.dut_qdelay = (bit<16>) queue_delay;
            }
            hdr.tester.flags = hdr.tester.flags | TESTER_FLAG_DUT_STAMPED;
        }
    }
}

#endif
