/* Receive-side checker on Tofino: the same figures as on BMv2, from the shared
 * arithmetic (common/), with state in registers that the controller reads and
 * clears over BfRt. Tofino allows one access per register per pass, so each
 * register has one RegisterAction that reads and updates it at once; the shared
 * controls then decide from the values read.
 *
 * State is indexed by slot (common/rx_port_slots.p4): the sequence registers and
 * counters by cm.seq_slot, the rest by cm.figure_slot; both are the stream id unless
 * the stream is received on several ports. Registers are per pipe: a spread stream's
 * one sequence holds only over RX ports of one pipe (the driver refuses others).
 *
 * Every intermediate value lives in checker_metadata_t, not in locals: the
 * compiler substitutes a local's defining expression into its uses, and a Tofino
 * action cannot use a value computed in the same stage (latency = rx - tx feeding
 * ~latency, say). A metadata field is computed once, in its own stage. */
#ifndef TESTER_TNA_CHECKER_P4
#define TESTER_TNA_CHECKER_P4

#include "platform.p4"
#include "../common/sequence_verdict.p4"
#include "../common/latency_math.p4"
#include "../common/histogram_bins.p4"

/* A 64-bit running sum in two 32-bit halves, one access per pass: the carry is
 * taken when lo + addend wraps, i.e. when lo > ~addend. The caller computes
 * headroom = ~addend one stage earlier (a stateful ALU compares, it cannot invert). */
control Sum64(in bit<32> index, in bit<32> addend, in bit<32> headroom) {
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
        add.execute(index);
    }
}

control StreamChecker(inout headers_t hdr, in timestamp_t rx_ts,
                      inout checker_metadata_t cm) {
    Register<seq_t, bit<32>>(MAX_STREAMS, 0) rx_next_expected;
    /* Same rule as SequenceVerdict's new_next_expected: move past the frame when
     * it is at or ahead of the expected one (modulo 2^32), else stay. */
    /* Returns seq - next expected (the frame's distance ahead, modulo 2^32). */
    RegisterAction<seq_t, bit<32>, seq_t>(rx_next_expected) advance_next_expected = {
        void apply(inout seq_t next, out seq_t ahead) {
            ahead = hdr.tester.seq - next;
            if ((int<32>) (hdr.tester.seq - next) >= 0) {
                next = hdr.tester.seq + 1;
            }
        }
    };
    Register<seq_t, bit<32>>(MAX_STREAMS, 0) rx_last_seq;
    /* Returns 1 when the frame repeats the previous one (seq == last seq). */
    RegisterAction<seq_t, bit<32>, bit<8>>(rx_last_seq) swap_last_seq = {
        void apply(inout seq_t last, out bit<8> repeat) {
            repeat = 0;
            if (hdr.tester.seq == last) {
                repeat = 1;
            }
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
            lost = lost + cm.gap;
        }
    };
    /* NO_LATENCY until the figure slot's first frame of the trial: a spread stream's
     * port may get its first frame after other ports had theirs, when the sequence's
     * rx_seen is set already, and its IPDV must not count that frame's whole latency. */
    Register<timestamp_t, bit<32>>(MAX_STREAMS, NO_LATENCY) last_latency;
    /* Swaps in the latency and returns its change since the previous frame (0 for the
     * slot's first: no previous frame). */
    RegisterAction<timestamp_t, bit<32>, timestamp_t>(last_latency) swap_latency = {
        void apply(inout timestamp_t last, out timestamp_t change) {
            if (last == NO_LATENCY) {
                change = 0;
            } else {
                change = cm.latency - last;
            }
            last = cm.latency;
        }
    };
    Register<timestamp_t, bit<32>>(MAX_STREAMS, 0xFFFFFFFF) latency_min;
    RegisterAction<timestamp_t, bit<32>, timestamp_t>(latency_min) lower_min = {
        void apply(inout timestamp_t low) {
            if (cm.latency < low) {
                low = cm.latency;
            }
        }
    };
    Register<timestamp_t, bit<32>>(MAX_STREAMS, 0) latency_max;
    RegisterAction<timestamp_t, bit<32>, timestamp_t>(latency_max) raise_max = {
        void apply(inout timestamp_t high) {
            if (cm.latency > high) {
                high = cm.latency;
            }
        }
    };

    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS_AND_BYTES) rx_stream;
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS) rx_gap_events;
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS) rx_reordered;
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS) rx_duplicate;
    /* Cell stream ++ bin (HIST_CELLS_LOG2 bits). */
    Counter<bit<64>, hist_cell_t>(HIST_CELLS_TOTAL, CounterType_t.PACKETS) latency_hist;
    Counter<bit<64>, hist_cell_t>(HIST_CELLS_TOTAL, CounterType_t.PACKETS) qdepth_hist;

    SequenceVerdict() sequence_verdict;
    LatencyMath() latency_math;
    IpdvMath() ipdv_math;
    HistogramBins() bins;
    Sum64() latency_sum;
    Sum64() jitter_sum;

    /* Steps called as actions of their own: the compiler merges plain statements
     * that follow each other into one action, and these use what the step before
     * them computed. */
    action swap_previous_latency() {
        cm.latency_change = swap_latency.execute(cm.figure_slot);
        cm.latency_headroom = ~cm.latency;
    }

    action complement_ipdv() {
        cm.ipdv_headroom = ~cm.ipdv_abs;
    }

    apply {
        rx_stream.count(cm.figure_slot);

        cm.ahead = advance_next_expected.execute(cm.seq_slot);
        cm.repeat = swap_last_seq.execute(cm.seq_slot);
        /* Tofino assigns no comparison results: a bool is set by a branch. */
        cm.have_previous = false;
        if (mark_seen.execute(cm.seq_slot) != 0) {
            cm.have_previous = true;
        }
        cm.is_repeat = false;
        if (cm.have_previous && cm.repeat == 1) {
            cm.is_repeat = true;
        }
        /* The stateful ALUs did the 32-bit comparisons, which a Tofino branch cannot:
         * SequenceVerdict decides from seq - next expected and "seq == last seq" only,
         * so it gets the frame shifted by -next expected (seq' = ahead, next' = 0) and
         * a previous frame equal to it exactly when the frame is a repeat. */
        sequence_verdict.apply(cm.ahead, 0, cm.ahead, cm.is_repeat,
                               cm.verdict, cm.gap, cm.new_next_expected);
        if (cm.verdict == SEQ_GAP) {
            add_lost.execute(cm.seq_slot);
            rx_gap_events.count(cm.seq_slot);
        } else if (cm.verdict == SEQ_REORDERED) {
            rx_reordered.count(cm.seq_slot);
        } else if (cm.verdict == SEQ_DUPLICATE) {
            rx_duplicate.count(cm.seq_slot);
        }

        latency_math.apply(rx_ts, hdr.tester.tx_ts, cm.latency);
        swap_previous_latency();
        /* |latency - previous| = |change - 0|: the stateful ALU did the subtraction. */
        ipdv_math.apply(cm.latency_change, 0, cm.have_previous, cm.ipdv_abs);
        complement_ipdv();
        lower_min.execute(cm.figure_slot);
        raise_max.execute(cm.figure_slot);
        latency_sum.apply(cm.figure_slot, cm.latency, cm.latency_headroom);
        jitter_sum.apply(cm.figure_slot, cm.ipdv_abs, cm.ipdv_headroom);

        cm.dut_stamped = false;
        if (hdr.tester.flags & TESTER_FLAG_DUT_STAMPED != 0) {
            cm.dut_stamped = true;
        }
        bins.apply(hdr.tester.stream_id, cm.latency, hdr.tester.dut_qdepth, cm.dut_stamped,
                   cm.latency_bin, cm.qdepth_bin);
        /* A counter index is one field on Tofino: slot ++ bin, built first. */
        cm.latency_cell = cm.figure_slot[STREAM_BITS - 1:0]
                          ++ cm.latency_bin[HIST_CELLS_LOG2 - 1:0];
        cm.qdepth_cell = cm.figure_slot[STREAM_BITS - 1:0]
                         ++ cm.qdepth_bin[HIST_CELLS_LOG2 - 1:0];
        latency_hist.count(cm.latency_cell);
        if (cm.dut_stamped) {
            qdepth_hist.count(cm.qdepth_cell);
        }
    }
}

#endif
