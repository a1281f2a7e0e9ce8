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
    /* Frames that left the tester, per stream (bytes without FCS, counted before the
     * deparser removes the 8-byte generator tag: the driver subtracts it). */
    Counter<bit<32>, bit<32>>(MAX_STREAMS, PSA_CounterType_t.PACKETS_AND_BYTES) tx_stream;

    seq_t end_seq = 0;
    bit<8> run_value = 0;
    bit<8> epoch = 0;
    bool running = false;

    action run(seq_t last_seq_exclusive, bit<8> trial_run, bit<8> trial_epoch) {
        end_seq = last_seq_exclusive;
        run_value = trial_run;
        epoch = trial_epoch;
        running = true;
    }

    action stopped() {
        running = false;
    }

    /* Controller writes: stream -> run(initial seq + the trial's frames, run value,
     * epoch) to start, stopped() (or delete) to stop. A template of another run or
     * trial, or a copy past the budget, leaves no frame. */
    table gen_streams {
        key = { hdr.generator_tag.stream_id : exact @name("stream"); }
        actions = { run; stopped; }
        default_action = stopped();
        size = MAX_STREAMS;
    }

    apply {
        stamped = false;
        gen_streams.apply();
        bit<32> s = (bit<32>) hdr.generator_tag.stream_id;
        seq_t seq = tx_next_seq.read(s);
        bool this_trial = hdr.tester.isValid()
                          && hdr.tester.stream_id == hdr.generator_tag.stream_id
                          && hdr.tester.run == run_value
                          && (hdr.tester.flags & TESTER_FLAG_EPOCH_MASK) == epoch;
        if (running && this_trial && seq != end_seq) {
            seq_t next_seq = seq + 1;
            tx_next_seq.write(s, next_seq);
            hdr.tester.seq = seq;
            hdr.tester.tx_ts = clock_low32(egress_timestamp);
            tx_stream.count(s);
            stamped = true;
        } else {
            egress_drop(ostd);
        }
    }
}

#endif
