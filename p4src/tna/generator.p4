/* Generator on Tofino: the packet generator's timer applications emit the stream
 * templates; the controller sets each application's period and batch size for the
 * requested rate. An application runs in the generators of several pipes at once,
 * each making its share of the rate, so that no pipe's ingress carries much more
 * than what it receives. Ingress counts each (pipe, application)'s packets against
 * its share of the trial's budget and multicasts them (group MCAST_GROUP_BASE + app)
 * to the TX ports of all pipes: one replica per stream, whose replication id is the
 * stream id. Egress stamps the stream id, sequence number and TX timestamp into
 * each copy as it leaves, so copies made in different pipes share one sequence.
 *
 * Beside each count, the switch's clock when it last moved: the controller reads
 * the two at once, so every read is a count and the moment it held (what the trial
 * loop times its samples by, as BMv2's READ replies are timed).
 *
 * Poisson arrivals thin a fast generator: a Poisson stream's application runs its
 * timer about K times faster than the stream's rate, and ingress draws 16 random bits
 * for each packet: a draw below the application's drop_below drops the packet before
 * the budget is taken, so it counts nothing and the budget and the (made, last_tick)
 * cells stay exact (targets/tofino/poisson.py). drop_below 0 keeps every packet: the
 * smooth and bursts applications. */
#ifndef TESTER_TNA_GENERATOR_P4
#define TESTER_TNA_GENERATOR_P4

#include "platform.p4"
#if __TARGET_TOFINO__ == 2
#include "field_steps.p4"
#endif

control GeneratorIngress(inout tna_headers_t hdr, in generator_tick_t now,
                         inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                         inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    bit<32> budget = 0;
    /* The thinning: a packet goes on when drop_below |-| draw is 0 (draw >= drop_below).
     * A gateway tests a field against a constant but cannot compare two fields by size,
     * so an action saturates the difference first, one stage before the budget's. */
    bit<16> drop_below = 0;
    bit<16> draw = 0;
    bit<16> draw_short = 0;
    /* The tick copied to a container of its own by run(): the stateful ALU takes
     * whole containers, and the slice spans two of global_tstamp's. */
    generator_tick_t tick = 0;
    bool running = false;

    /* Packets made this trial per application, in each pipe (the register is per
     * pipe), and the tick of the last one; the controller zeroes both. */
    Register<generated_t, bit<32>>(PKTGEN_APPS, {0, 0}) generated;
    /* One access decides, counts and times: 1 while the budget lasts, 0 after (a
     * packet refused leaves the tick of the last one counted). */
    RegisterAction<generated_t, bit<32>, bit<8>>(generated) take_from_budget = {
        void apply(inout generated_t cell, out bit<8> granted) {
            granted = 0;
            if (cell.made < budget) {
                cell.made = cell.made + 1;
                cell.last_tick = tick;
                granted = 1;
            }
        }
    };

    Random<bit<16>>() thinning_draw;

    action run(MulticastGroupId_t mcast_group, bit<32> packet_budget,
               bit<16> drop_draws_below) {
        ig_tm_md.mcast_grp_a = mcast_group;
        budget = packet_budget;
        drop_below = drop_draws_below;
        tick = now;
        running = true;
    }

    /* Its own action, beside gen_apps: the random unit's value goes to the PHV whole
     * (bf-p4c cannot widen it inside an ALU operation). */
    action draw_for_thinning() {
        draw = thinning_draw.get();
    }

    action weigh_draw() {
        draw_short = drop_below |-| draw;
    }

    action stopped() {
        running = false;
    }

    /* Controller writes: (pipe, application) -> run(group, that pipe's share of the
     * budget, the draws it drops) to start; stopped() (or no entry) drops the
     * application's packets. */
    table gen_apps {
        key = {
            hdr.pktgen.pipe_id : exact @name("pipe_id");
            hdr.pktgen.app_id  : exact @name("app_id");
        }
        actions = { run; stopped; }
        default_action = stopped();
        size = PKTGEN_PIPES * PKTGEN_APPS;
    }

    apply {
        gen_apps.apply();
        draw_for_thinning();
        weigh_draw();
        bit<8> granted = 0;
        if (running && is_stream_template(hdr.frame) && draw_short == 0) {
            granted = take_from_budget.execute((bit<32>) hdr.pktgen.app_id);
        }
        hdr.pktgen.setInvalid();
        if (granted == 1) {
            hdr.bridge.setValid();
            hdr.bridge.role = ROLE_GENERATED;
            hdr.bridge.ingress_port = 0;
        } else {
            ig_dprsr_md.drop_ctl = 1;
        }
    }
}

control GeneratorEgress(inout tna_headers_t hdr, inout tna_metadata_t meta,
                        in egress_intrinsic_metadata_t eg_intr_md,
                        in egress_intrinsic_metadata_from_parser_t eg_prsr_md) {
    Register<seq_t, bit<32>>(MAX_STREAMS, 0) tx_next_seq;
    RegisterAction<seq_t, bit<32>, seq_t>(tx_next_seq) take_seq = {
        void apply(inout seq_t next, out seq_t taken) {
            taken = next;
            next = next + 1;
        }
    };
    /* Frames that left the tester, per stream (bytes as Tofino counts them, FCS included). */
    Counter<bit<64>, bit<32>>(MAX_STREAMS, CounterType_t.PACKETS_AND_BYTES) tx_stream;
#if __TARGET_TOFINO__ == 2
    FieldSteps() field_steps;
#endif

    /* The TX stamp: the switch's clock (ns, modulo 2^32), plus the stream's correction
     * when another tester checks it (several testers in one test): the offset the
     * controller measured from this switch's clock to the receiver's, so the receiver
     * subtracts a stamp of its own clock and its latencies are one-way delays. */
    action stamp_with(bit<32> correction_ns) {
        hdr.frame.tester.tx_ts = eg_prsr_md.global_tstamp[31:0] + correction_ns;
    }

    /* Controller writes: stream -> stamp_with(correction) for a stream another tester
     * checks; none: the switch's clock as it is. */
    table tx_clock_correction {
        key = { eg_intr_md.egress_rid : exact @name("stream"); }
        actions = { stamp_with; }
        default_action = stamp_with(0);
        size = MAX_STREAMS;
    }

    apply {
        if (hdr.bridge.role == ROLE_GENERATED && hdr.frame.tester.isValid()) {
            bit<32> stream = (bit<32>) eg_intr_md.egress_rid;
            hdr.frame.tester.stream_id = eg_intr_md.egress_rid;
            hdr.frame.tester.seq = take_seq.execute(stream);
            tx_clock_correction.apply();
            tx_stream.count(stream);
#if __TARGET_TOFINO__ == 2
            field_steps.apply(hdr, meta);
#endif
            /* The deparser makes the stamp checksum-neutral (constants.p4): the
             * template carries stream id, seq and tx_ts 0 and dut_qdelay 0xFFFF. */
#if __TARGET_TOFINO__ == 2
            if (!meta.vary.stepped) {
                meta.local.stamped_tx = true;
            }
#else
            meta.local.stamped_tx = true;
#endif
        }
    }
}

#endif
