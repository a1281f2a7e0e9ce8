/* Latency and IPDV (RFC 3393) of one packet from timestamps on one switch clock.
 * Two steps, because a target with one register access per pass (Tofino) must
 * know the latency before it swaps it with the stream's previous one. */
#ifndef TESTER_COMMON_LATENCY_MATH_P4
#define TESTER_COMMON_LATENCY_MATH_P4

#include "headers.p4"

control LatencyMath(in timestamp_t rx_ts, in timestamp_t tx_ts, out timestamp_t latency) {
    apply {
        /* Modulo 2^32: exact while latency < 2^32 clock units. */
        latency = rx_ts - tx_ts;
    }
}

/* |latency - previous latency|, 0 for a stream's first packet. */
control IpdvMath(in timestamp_t latency, in timestamp_t previous_latency,
                 in bool have_previous, out timestamp_t ipdv_abs) {
    apply {
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
