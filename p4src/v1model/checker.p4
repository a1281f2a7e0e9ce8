/* Receive-side checker on BMv2: per-stream state in registers (read in-band by
 * CTRL_OP_READ), per-stream events and histograms in counters (read over
 * P4Runtime). The arithmetic is shared (common/); this file only holds state.
 * State is indexed by slot (common/rx_port_slots.p4): sequence state by seq_slot, counts,
 * latency and histograms by figure_slot; both are the stream id unless the stream
 * is received on several ports. rx_samples is kept in both: the seq slot's counts
 * every frame of the sequence (a repeat needs a frame before it), the figure slot's
 * the frames whose latency the figure slot sums (its mean and its IPDV). */
#ifndef TESTER_V1MODEL_CHECKER_P4
#define TESTER_V1MODEL_CHECKER_P4

#include "platform.p4"
#include "../common/headers.p4"
#include "../common/sequence_verdict.p4"
#include "../common/latency_math.p4"
#include "../common/histogram_bins.p4"

control StreamChecker(inout headers_t hdr, in local_metadata_t meta, in timestamp_t rx_ts,
                      in bit<32> seq_slot, in bit<32> figure_slot) {
    register<seq_t>(MAX_STREAMS)       rx_next_expected;
    register<seq_t>(MAX_STREAMS)       rx_last_seq;
    register<bit<64>>(MAX_STREAMS)     rx_samples;
    register<bit<64>>(MAX_STREAMS)     rx_lost;
    register<timestamp_t>(MAX_STREAMS) latency_min;
    register<timestamp_t>(MAX_STREAMS) latency_max;
    register<bit<64>>(MAX_STREAMS)     latency_sum;
    register<bit<64>>(MAX_STREAMS)     jitter_sum;
    register<timestamp_t>(MAX_STREAMS) last_latency;

    counter(MAX_STREAMS, CounterType.packets_and_bytes) rx_stream;
    counter(MAX_STREAMS, CounterType.packets) rx_gap_events;
    counter(MAX_STREAMS, CounterType.packets) rx_reordered;
    counter(MAX_STREAMS, CounterType.packets) rx_duplicate;
    /* Cell (stream << HIST_CELLS_LOG2) + bin. */
    counter(HIST_CELLS_TOTAL, CounterType.packets) latency_hist;
    counter(HIST_CELLS_TOTAL, CounterType.packets) qdepth_hist;

    SequenceVerdict() sequence_verdict;
    LatencyMath() latency_math;
    IpdvMath() ipdv_math;
    HistogramBins() bins;

    apply {
        /* The per-frame branch first: it is the one that runs at line rate. */
        /* Applied to received stream frames (ctrl_op NONE) and to CLEAR / READ. */
        if (meta.ctrl_op == CTRL_OP_NONE) {
            bit<32> q = seq_slot;
            bit<32> s = figure_slot;
            rx_stream.count(s);

            seq_t next_expected;
            seq_t last_seq;
            bit<64> samples;
            rx_next_expected.read(next_expected, q);
            rx_last_seq.read(last_seq, q);
            rx_samples.read(samples, q);
            bool have_previous = samples != 0;
            /* The figure slot's own frames: the same cell unless the stream spreads. */
            bool have_previous_here = have_previous;
            if (s != q) {
                bit<64> samples_here;
                rx_samples.read(samples_here, s);
                have_previous_here = samples_here != 0;
                rx_samples.write(s, samples_here + 1);
            }

            bit<8> verdict;
            seq_t gap;
            seq_t new_next_expected;
            sequence_verdict.apply(hdr.tester.seq, next_expected, last_seq, have_previous,
                                   verdict, gap, new_next_expected);
            rx_next_expected.write(q, new_next_expected);
            rx_last_seq.write(q, hdr.tester.seq);
            rx_samples.write(q, samples + 1);
            if (verdict != SEQ_IN_ORDER) {
                if (verdict == SEQ_GAP) {
                    bit<64> lost;
                    rx_lost.read(lost, q);
                    rx_lost.write(q, lost + (bit<64>) gap);
                    rx_gap_events.count(q);
                } else if (verdict == SEQ_REORDERED) {
                    rx_reordered.count(q);
                } else {
                    rx_duplicate.count(q);
                }
            }

            timestamp_t previous_latency;
            last_latency.read(previous_latency, s);
            timestamp_t latency;
            timestamp_t ipdv_abs;
            latency_math.apply(rx_ts, hdr.tester.tx_ts, latency);
            ipdv_math.apply(latency, previous_latency, have_previous_here, ipdv_abs);
            last_latency.write(s, latency);

            timestamp_t current_min;
            latency_min.read(current_min, s);
            if (latency < current_min) {
                latency_min.write(s, latency);
            }
            timestamp_t current_max;
            latency_max.read(current_max, s);
            if (latency > current_max) {
                latency_max.write(s, latency);
            }
            bit<64> sum;
            latency_sum.read(sum, s);
            latency_sum.write(s, sum + (bit<64>) latency);
            bit<64> jitter;
            jitter_sum.read(jitter, s);
            jitter_sum.write(s, jitter + (bit<64>) ipdv_abs);

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
        } else if (meta.ctrl_op == CTRL_OP_CLEAR) {
            bit<32> s = (bit<32>) meta.stream;
            rx_next_expected.write(s, meta.initial_seq);
            rx_last_seq.write(s, meta.initial_seq - 1);
            rx_samples.write(s, 0);
            rx_lost.write(s, 0);
            latency_min.write(s, 0xFFFFFFFF);
            latency_max.write(s, 0);
            latency_sum.write(s, 0);
            jitter_sum.write(s, 0);
            last_latency.write(s, 0);
        } else if (meta.ctrl_op == CTRL_OP_READ) {
            bit<32> s = (bit<32>) meta.stream;
            hdr.stats.stream_id = meta.stream;
            rx_next_expected.read(hdr.stats.rx_next_expected, s);
            rx_last_seq.read(hdr.stats.rx_last_seq, s);
            rx_samples.read(hdr.stats.rx_samples, s);
            rx_lost.read(hdr.stats.rx_lost, s);
            latency_min.read(hdr.stats.latency_min, s);
            latency_max.read(hdr.stats.latency_max, s);
            latency_sum.read(hdr.stats.latency_sum, s);
            jitter_sum.read(hdr.stats.jitter_sum, s);
            last_latency.read(hdr.stats.last_latency, s);
        }
    }
}

#endif
