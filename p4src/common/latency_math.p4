/* Latency and IPDV (RFC 3393) of one packet from timestamps on one switch clock. */
#ifndef TESTER_COMMON_LATENCY_MATH_P4
#define TESTER_COMMON_LATENCY_MATH_P4

#include "headers.p4"

control LatencyMath(in timestamp_t rx_ts, in timestamp_t tx_ts,
                    in timestamp_t previous_latency, in bool have_previous,
                    out timestamp_t latency, out timestamp_t ipdv_abs) {
    apply {
        /* Modulo 2^32: exact while latency < 2^32 clock units. */
        latency = rx_ts - tx_ts;
        ipdv_abs = 0;
        if (have_previous) {
            timestamp_t delta = latency - previous_latency;
            if (delta[31:31] == 1) {
                ipdv_abs = previous_latency - latency;
            } else {
                ipdv_abs = delta;
            }
        }
    }
}

#endif
