/* Generator on the eBPF target. The kernel's data path cannot originate frames:
 * the controller's sender writes each stream's template, tagged
 * (platform.p4: generator_tag_h), into the generator interface at the stream's
 * template rate. Ingress replicates a template by the stream's multicast group
 * (k members on its TX port: k frames per template); egress numbers and
 * timestamps each copy as it leaves, up to the trial's last sequence number, so
 * the frame count is exact whatever the sender wrote. */
#ifndef TESTER_PSA_GENERATOR_P4
#define TESTER_PSA_GENERATOR_P4

#include "platform.p4"
#include "tester_clock.p4"

control GeneratorIngress(in generator_tag_h tag, inout psa_ingress_output_metadata_t ostd) {
    /* Templates the sender wrote, per stream: what it offered, before replication. */
    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS) templates;

    apply {
        if ((bit<32>) tag.stream_id < MAX_STREAMS_32) {
            templates.count((bit<32>) tag.stream_id);
            multicast(ostd, (MulticastGroup_t) (bit<32>) (MCAST_GROUP_BASE + tag.stream_id));
        } else {
            ingress_drop(ostd);
        }
    }
}

control GeneratorEgress(inout headers_t hdr, inout psa_egress_output_metadata_t ostd,
                        in Timestamp_t egress_timestamp, out bool stamped) {
    Register<seq_t, bit<32>>(MAX_STREAMS) tx_next_seq;
    /* Per stream, one 64-bit cell the controller writes at once: bits 0-31 the
     * initial seq + the trial's frames (exclusive), 32-39 the run value, 40-47
     * the epoch flags, bit 48 running. 0: stopped. A template of another run or
     * trial, or a copy past the budget, leaves no frame. (A cell, not an exact
     * table: one array read instead of a hash lookup per copy.) */
    Register<bit<64>, bit<32>>(MAX_STREAMS) gen_state;
    /* Frames that left the tester, per stream (bytes without FCS, counted before the
     * deparser removes the 8-byte generator tag: the driver subtracts it). */
    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS_AND_BYTES) tx_stream;
    /* Per stream, ns added to its TX stamps (modulo 2^32): a stream received by
     * another tester is stamped on the receiver's clock, the offset between the
     * two measured before the trial (control: tester.clock_offset), so the
     * receiver's figures are one-way delays. 0 for a stream this tester receives. */
    Register<bit<32>, bit<32>>(MAX_STREAMS) tx_clock_correction;
    TesterClock() tx_clock;

    apply {
        stamped = false;
        bit<32> s = (bit<32>) hdr.generator_tag.stream_id;
        bit<64> state = gen_state.read(s);
        seq_t end_seq = state[31:0];
        bool running = state[48:48] == 1;
        seq_t seq = tx_next_seq.read(s);
        bool this_trial = hdr.tester.isValid()
                          && hdr.tester.stream_id == hdr.generator_tag.stream_id
                          && hdr.tester.run == state[39:32]
                          && (hdr.tester.flags & TESTER_FLAG_EPOCH_MASK) == state[47:40];
        if (running && this_trial && seq != end_seq) {
            seq_t next_seq = seq + 1;
            tx_next_seq.write(s, next_seq);
            hdr.tester.seq = seq;
            timestamp_t tx_ts;
            tx_clock.apply(egress_timestamp, tx_ts);
            hdr.tester.tx_ts = tx_ts + tx_clock_correction.read(s);
            tx_stream.count(s);
            stamped = true;
        } else {
            egress_drop(ostd);
        }
    }
}

#endif
