/* Receive-side checker on Tofino: the same figures as on BMv2, from the shared
 * arithmetic (common/), with state in registers that the controller reads and
 * clears over BfRt / P4Runtime. Tofino allows one access per register per pass,
 * so each register has one RegisterAction that reads and updates it at once;
 * the shared controls then decide from the values read. */
#ifndef TESTER_TNA_CHECKER_P4
#define TESTER_TNA_CHECKER_P4

#include "platform.p4"
#include "../common/sequence_verdict.p4"
#include "../common/latency_math.p4"
#include "../common/histogram_bins.p4"

/* A 64-bit running sum in two 32-bit halves, one access per pass: the carry is
 * taken when lo + addend wraps, i.e. when lo > ~addend (computed before). */
control Sum64(in bit<32> index, in bit<32> addend) {
    bit<32> headroom = 0;

    Register<sum64_t, bit<32>>(MAX_STREAMS, {0, 0}) cells;
    RegisterAction<sum64_t, bit<32>, bit<32>>(cells) add = {
        void apply(inout sum64_t sum) {
            if (sum.lo > headroom) {
                sum.hi = sum.hi + 1;
            }
            sum.lo = sum.lo + addend;
        }
    };

    apply {
        headroom = ~addend;
        add.execute(index);
    }
}

control StreamChecker(inout headers_t hdr, in timestamp_t rx_ts) {
    bit<32> s = 0;
    seq_t gap = 0;
    timestamp_t latency = 0;

    Register<seq_t, bit<32>>(MAX_STREAMS, 0) rx_next_expected;
    /* Same rule as SequenceVerdict's new_next_expected: move past the frame when
     * it is at or ahead of the expected one (modulo 2^32), else stay. */
    RegisterAction<seq_t, bit<32>, seq_t>(rx_next_expected) advance_next_expected = {
        void apply(inout seq_t next, out seq_t before) {
            before = next;
            if ((int<32>) (hdr.tester.seq - next) >= 0) {
                next = hdr.tester.seq + 1;
            }
        }
    };
    Register<seq_t, bit<32>>(MAX_STREAMS, 0) rx_last_seq;
    RegisterAction<seq_t, bit<32>, seq_t>(rx_last_seq) swap_last_seq = {
        void apply(inout seq_t last, out seq_t before) {
            before = last;
            last = hdr.tester.seq;
        }
    };
    /* 0 until the stream's first frame of the trial: no previous seq or latency. */
    Register<bit<8>, bit<32>>(MAX_STREAMS, 0) rx_seen;
    RegisterAction<bit<8>, bit<32>, bit<8>>(rx_seen) mark_seen = {
        void apply(inout bit<8> seen, out bit<8> before) {
            before = seen;
            seen = 1;
        }
    };
    /* Sum of sequence gaps, 32 bits: the controller reads it more often than it
     * can wrap and widens it. */
    Register<bit<32>, bit<32>>(MAX_STREAMS, 0) rx_lost;
    RegisterAction<bit<32>, bit<32>, bit<32>>(rx_lost) add_lost = {
        void apply(inout bit<32> lost) {
            lost = lost + gap;
        }
    };
    Register<timestamp_t, bit<32>>(MAX_STREAMS, 0) last_latency;
    RegisterAction<timestamp_t, bit<32>, timestamp_t>(last_latency) swap_latency = {
        void apply(inout timestamp_t last, out timestamp_t before) {
            before = last;
            last = latency;
        }
    };
    Register<timestamp_t, bit<32>>(MAX_STREAMS, 0xFFFFFFFF) latency_min;
    RegisterAction<timestamp_t, bit<32>, timestamp_t>(latency_min) lower_min = {
        void apply(inout timestamp_t low) {
            if (latency < low) {
                low = latency;
            }
        }
    };
    Register<timestamp_t, bit<32>>(MAX_STREAMS, 0) latency_max;
    RegisterAction<timestamp_t, bit<32>, timestamp_t>(latency_max) raise_max = {
        void apply(inout timestamp_t high) {
            if (latency > high) {
                high = latency;
            }
        }
    };

    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS_AND_BYTES) rx_stream;
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS) rx_gap_events;
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS) rx_reordered;
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS) rx_duplicate;
    /* Cell (stream << HIST_CELLS_LOG2) + bin. */
    Counter<bit<64>, bit<32>>(HIST_CELLS_TOTAL, CounterType_t.PACKETS) latency_hist;
    Counter<bit<64>, bit<32>>(HIST_CELLS_TOTAL, CounterType_t.PACKETS) qdepth_hist;

    SequenceVerdict() sequence_verdict;
    LatencyMath() latency_math;
    IpdvMath() ipdv_math;
    HistogramBins() bins;
    Sum64() latency_sum;
    Sum64() jitter_sum;

    apply {
        s = (bit<32>) hdr.tester.stream_id;
        rx_stream.count(s);

        seq_t next_expected = advance_next_expected.execute(s);
        seq_t last_seq = swap_last_seq.execute(s);
        bool have_previous = mark_seen.execute(s) != 0;
        bit<8> verdict;
        seq_t unused_next;
        sequence_verdict.apply(hdr.tester.seq, next_expected, last_seq, have_previous,
                               verdict, gap, unused_next);
        if (verdict == SEQ_GAP) {
            add_lost.execute(s);
            rx_gap_events.count(s);
        } else if (verdict == SEQ_REORDERED) {
            rx_reordered.count(s);
        } else if (verdict == SEQ_DUPLICATE) {
            rx_duplicate.count(s);
        }

        latency_math.apply(rx_ts, hdr.tester.tx_ts, latency);
        timestamp_t previous_latency = swap_latency.execute(s);
        timestamp_t ipdv_abs;
        ipdv_math.apply(latency, previous_latency, have_previous, ipdv_abs);
        lower_min.execute(s);
        raise_max.execute(s);
        latency_sum.apply(s, latency);
        jitter_sum.apply(s, ipdv_abs);

        hist_bin_t latency_bin;
        hist_bin_t qdepth_bin;
        bool dut_stamped = hdr.tester.flags & TESTER_FLAG_DUT_STAMPED != 0;
        bins.apply(hdr.tester.stream_id, latency, hdr.tester.dut_qdepth, dut_stamped,
                   latency_bin, qdepth_bin);
        bit<32> cell_base = s << HIST_CELLS_LOG2;
        latency_hist.count(cell_base + (bit<32>) latency_bin);
        if (dut_stamped) {
            qdepth_hist.count(cell_base + (bit<32>) qdepth_bin);
        }
    }
}

#endif
