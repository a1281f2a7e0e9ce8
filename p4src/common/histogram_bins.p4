/* Histogram binning by tables whose entries the controller writes at run time:
 * one entry per bin, key = (stream, value range), action param = bin index.
 * A wildcard stream entry serves all streams; a per-stream entry with a higher
 * priority overrides it. Values outside every bin land in HIST_OUTSIDE_BIN. */
#ifndef TESTER_COMMON_HISTOGRAM_BINS_P4
#define TESTER_COMMON_HISTOGRAM_BINS_P4

#include "headers.p4"

/* Tofino has no wide range match: its program defines this as ternary and the
 * controller expands each range into prefixes. */
#ifndef BIN_VALUE_MATCH
#define BIN_VALUE_MATCH range
#endif

control HistogramBins(in stream_id_t stream, in timestamp_t latency, in bit<16> qdepth,
                      in bool qdepth_valid,
                      out hist_bin_t latency_bin, out hist_bin_t qdepth_bin) {
    action set_latency_bin(hist_bin_t bin) {
        latency_bin = bin;
    }

    action set_qdepth_bin(hist_bin_t bin) {
        qdepth_bin = bin;
    }

    /* Controller writes: (stream or wildcard, [low, high] latency in clock units) -> bin. */
    table latency_bins {
        key = {
            stream  : ternary @name("stream");
            latency : BIN_VALUE_MATCH @name("latency");
        }
        actions = { set_latency_bin; }
        default_action = set_latency_bin(HIST_OUTSIDE_BIN);
        size = BIN_TABLE_SIZE;
    }

    /* Controller writes: (stream or wildcard, [low, high] DUT queue depth) -> bin. */
    table qdepth_bins {
        key = {
            stream : ternary @name("stream");
            qdepth : BIN_VALUE_MATCH @name("qdepth");
        }
        actions = { set_qdepth_bin; }
        default_action = set_qdepth_bin(HIST_OUTSIDE_BIN);
        size = BIN_TABLE_SIZE;
    }

    apply {
        latency_bins.apply();
        /* Only a DUT-stamped frame has a queue depth: skip the lookup otherwise. */
        qdepth_bin = HIST_OUTSIDE_BIN;
        if (qdepth_valid) {
            qdepth_bins.apply();
        }
    }
}

#endif
