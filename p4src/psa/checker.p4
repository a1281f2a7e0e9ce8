/* Receive-side checker on the eBPF target: per-stream state in registers (BPF
 * array maps the controller reads and clears directly, so there is no in-band
 * READ or CLEAR), per-stream events and histograms in counters. The arithmetic
 * is shared (common/); this file only holds state. State is indexed by slot
 * (rx_port_slots.p4): sequence state by seq_slot, counts, latency and histograms by
 * figure_slot, both the stream id unless the stream is received on several ports;
 * rx_samples is kept in both, as on BMv2 (v1model/checker.p4).
 * A stream's frames are checked by one CPU at a time as long as they arrive on
 * one interface queue (a veth, a NIC queue without RSS spreading the stream):
 * the register updates are not atomic across CPUs. */
#ifndef TESTER_PSA_CHECKER_P4
#define TESTER_PSA_CHECKER_P4

#include "platform.p4"
#include "../common/headers.p4"
#include "../common/sequence_verdict.p4"
#include "../common/latency_math.p4"
#include "histogram_bins.p4"

control StreamChecker(in headers_t hdr, in timestamp_t rx_ts, in bit<32> seq_slot,
                      in bit<32> figure_slot) {
    Register<seq_t, bit<32>>(MAX_STREAMS)       rx_next_expected;
    Register<seq_t, bit<32>>(MAX_STREAMS)       rx_last_seq;
    Register<bit<64>, bit<32>>(MAX_STREAMS)     rx_samples;
    Register<bit<64>, bit<32>>(MAX_STREAMS)     rx_lost;
    Register<timestamp_t, bit<32>>(MAX_STREAMS) latency_min;
    Register<timestamp_t, bit<32>>(MAX_STREAMS) latency_max;
    Register<bit<64>, bit<32>>(MAX_STREAMS)     latency_sum;
    Register<bit<64>, bit<32>>(MAX_STREAMS)     jitter_sum;
    Register<timestamp_t, bit<32>>(MAX_STREAMS) last_latency;

    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS_AND_BYTES) rx_stream;
    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS) rx_gap_events;
    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS) rx_reordered;
    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS) rx_duplicate;
    /* Cell (stream << HIST_CELLS_LOG2) + bin. */
    Counter<bit<32>, bit<32>>(HIST_CELLS_TOTAL, PSA_CounterType_t.PACKETS) latency_hist;
    Counter<bit<32>, bit<32>>(HIST_CELLS_TOTAL, PSA_CounterType_t.PACKETS) qdepth_hist;

    SequenceVerdict() sequence_verdict;
    LatencyMath() latency_math;
    IpdvMath() ipdv_math;
    HistogramBins() bins;

    apply {
        /* p4c-ebpf passes register indices and values by address: each one is a
         * variable, never an expression. */
        bit<32> q = seq_slot;
        bit<32> s = figure_slot;
        rx_stream.count(s);

        seq_t next_expected = rx_next_expected.read(q);
        seq_t last_seq = rx_last_seq.read(q);
        bit<64> samples = rx_samples.read(q);
        bool have_previous = samples != 0;
        /* The figure slot's own frames: the same cell unless the stream spreads. */
        bool have_previous_here = have_previous;
        if (s != q) {
            bit<64> samples_here = rx_samples.read(s);
            have_previous_here = samples_here != 0;
            bit<64> new_samples_here = samples_here + 1;
            rx_samples.write(s, new_samples_here);
        }

        bit<8> verdict;
        seq_t gap;
        seq_t new_next_expected;
        seq_t seq = hdr.tester.seq;
        sequence_verdict.apply(seq, next_expected, last_seq, have_previous,
                               verdict, gap, new_next_expected);
        rx_next_expected.write(q, new_next_expected);
        rx_last_seq.write(q, seq);
        bit<64> new_samples = samples + 1;
        rx_samples.write(q, new_samples);
        if (verdict == SEQ_GAP) {
            bit<64> lost = rx_lost.read(q) + (bit<64>) gap;
            rx_lost.write(q, lost);
            rx_gap_events.count(q);
        } else if (verdict == SEQ_REORDERED) {
            rx_reordered.count(q);
        } else if (verdict == SEQ_DUPLICATE) {
            rx_duplicate.count(q);
        }

        timestamp_t previous_latency = last_latency.read(s);
        timestamp_t latency;
        timestamp_t ipdv_abs;
        latency_math.apply(rx_ts, hdr.tester.tx_ts, latency);
        ipdv_math.apply(latency, previous_latency, have_previous_here, ipdv_abs);
        last_latency.write(s, latency);

        if (latency < latency_min.read(s)) {
            latency_min.write(s, latency);
        }
        if (latency > latency_max.read(s)) {
            latency_max.write(s, latency);
        }
        bit<64> sum = latency_sum.read(s) + (bit<64>) latency;
        latency_sum.write(s, sum);
        bit<64> jitter = jitter_sum.read(s) + (bit<64>) ipdv_abs;
        jitter_sum.write(s, jitter);

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
