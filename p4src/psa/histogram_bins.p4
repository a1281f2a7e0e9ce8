/* Histogram binning on the eBPF target: a binary search over the bins' edges,
 * held in a register the controller writes, instead of common/'s bin tables.
 * p4c-ebpf has no range match, and a ternary table is a tuple search: one hash
 * lookup per distinct mask. The default log-spaced latency bins expand into 470
 * prefixes of 25 masks, which made the checker cost 1.5 us a frame instead of
 * 0.4 (bpftool's run_time_ns, bench: p4tester.bench.ebpf_loopback). The search
 * reads the edge array 7 times whatever the bins. Bins apply to every stream
 * (the other targets also allow per-stream bins; the eBPF driver never wrote
 * them). */
#ifndef TESTER_PSA_HISTOGRAM_BINS_P4
#define TESTER_PSA_HISTOGRAM_BINS_P4

#include "platform.p4"
#include "../common/headers.p4"

/* The bin of `value`: bin i is [edges[i], edges[i+1] - 1] for i < bin_count.
 * Controller writes: edges[0..bin_count] increasing, every cell after them
 * 2^64 - 1 (above any value, so the search never lands there by a value), and
 * bin_count[0]. All zero (nothing written): every value is outside. */
control BinSearch(in bit<64> value, out hist_bin_t bin) {
    Register<bit<64>, bit<32>>(HIST_CELLS_PER_STREAM) edges;
    Register<bit<32>, bit<32>>(1) bin_count;

    apply {
        /* p4c-ebpf passes register indices by address: each is a variable. The
         * largest i with edges[i] <= value, in 5 halvings of 32 cells. */
        bit<32> i = 0;
        bit<32> probe = 16;
        bit<64> edge = edges.read(probe);
        if (edge <= value) { i = probe; }
        probe = i + 8;
        edge = edges.read(probe);
        if (edge <= value) { i = probe; }
        probe = i + 4;
        edge = edges.read(probe);
        if (edge <= value) { i = probe; }
        probe = i + 2;
        edge = edges.read(probe);
        if (edge <= value) { i = probe; }
        probe = i + 1;
        edge = edges.read(probe);
        if (edge <= value) { i = probe; }

        bit<32> zero = 0;
        bit<64> lowest = edges.read(zero);
        bit<32> count = bin_count.read(zero);
        if (value < lowest || i >= count) {
            bin = HIST_OUTSIDE_BIN;
        } else {
            bin = (hist_bin_t) i;
        }
    }
}

/* The interface of common/histogram_bins.p4 (the stream is not a key here). */
control HistogramBins(in stream_id_t stream, in timestamp_t latency, in bit<16> qdepth,
                      in bool qdepth_valid,
                      out hist_bin_t latency_bin, out hist_bin_t qdepth_bin) {
    BinSearch() latency_bins;
    BinSearch() qdepth_bins;

    apply {
        latency_bins.apply((bit<64>) latency, latency_bin);
        /* Only a DUT-stamped frame has a queue depth: skip the search otherwise. */
        qdepth_bin = HIST_OUTSIDE_BIN;
        if (qdepth_valid) {
            qdepth_bins.apply((bit<64>) qdepth, qdepth_bin);
        }
    }
}

#endif
