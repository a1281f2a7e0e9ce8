/* Generator on BMv2: a paced loop per stream.
 *
 * A seed (the stream's template, sent by the controller as a PacketOut) is put
 * into the egress queue of the stream's pacing port, whose rate the controller
 * sets. Each time the queue releases it, the packet recirculates; in ingress it
 * is replicated (multicast group MCAST_GROUP_BASE + stream) into one copy for
 * the pacing queue (the loop goes on) and the stream's frames per pass (k) for
 * the TX port. So the TX rate is k times the pacing queue's rate, as long as
 * enough seeds keep that queue busy; the controller sets the TX port's queue to
 * that rate too, so the k frames of a pass leave evenly spaced, not back to back.
 * One loop pass (an ingress and an egress pass) then serves k TX frames.
 * Egress numbers and timestamps only the copies that leave the TX port. */
#ifndef TESTER_V1MODEL_GENERATOR_P4
#define TESTER_V1MODEL_GENERATOR_P4

#include "platform.p4"
#include "../common/headers.p4"
#include "../common/stream_template.p4"
#include "field_steps.p4"
#include "tester_clock.p4"

control GeneratorIngress(inout headers_t hdr, inout local_metadata_t meta,
                         inout standard_metadata_t smeta) {
    /* TX copies made in this trial; the budget check keeps it exact. */
    register<bit<32>>(MAX_STREAMS) generated;

    bit<32> budget = 0;
    bit<8> run_value = 0;
    bit<8> epoch = 0;
    bit<32> per_pass = 1;
    bit<16> emit_below = 0;
    bool running = false;

    action run(bit<32> packet_budget, bit<8> trial_run, bit<8> trial_epoch,
               bit<8> frames_per_pass, bit<16> emit_threshold, bit<32> tx_clock_correction) {
        meta.tx_clock_correction = tx_clock_correction;
        budget = packet_budget;
        run_value = trial_run;
        epoch = trial_epoch;
        per_pass = (bit<32>) frames_per_pass;
        emit_below = emit_threshold;
        running = true;
    }

    action stopped() {
        running = false;
    }

    /* Controller writes: stream -> run(budget, run value, epoch, frames per pass,
     * emit threshold, TX clock correction) to start (the run byte and the TESTER_FLAG_EPOCH_MASK bits of
     * this trial's template; frames per pass 1..MAX_FRAMES_PER_PASS, as many TX
     * replicas as the stream's multicast group has; emit threshold 0: every pass
     * makes its frames, else a pass makes them only when a 16-bit random draw is below
     * it: Poisson arrivals by thinning a loop that runs 65536 / threshold times faster
     * than the frames; the correction, us added to the TX stamps modulo 2^32: 0, or
     * the offset of the receiving tester's clock when another tester checks the
     * stream); modify to stopped() (or delete) to stop: the stream's seeds
     * die at their next pass. */
    table gen_streams {
        key = { hdr.tester.stream_id : exact @name("stream"); }
        actions = { run; stopped; }
        default_action = stopped();
        size = MAX_STREAMS;
    }

    apply {
        if (meta.ctrl_op == CTRL_OP_CLEAR) {
            generated.write((bit<32>) meta.stream, 0);
        } else if (meta.ctrl_op == CTRL_OP_READ) {
            generated.read(hdr.stats.generated, (bit<32>) meta.stream);
        } else if (meta.ctrl_op == CTRL_OP_SEED) {
            if (is_stream_template(hdr)) {
                smeta.egress_spec = PACER_PORT_BASE + (port_t) hdr.tester.stream_id;
            } else {
                mark_to_drop(smeta);
            }
        } else if (smeta.instance_type == PKT_INSTANCE_TYPE_RECIRC) {
            if (is_stream_template(hdr)) {
                gen_streams.apply();
                bit<32> done;
                generated.read(done, (bit<32>) hdr.tester.stream_id);
                bool this_trial = hdr.tester.run == run_value
                                  && (hdr.tester.flags & TESTER_FLAG_EPOCH_MASK) == epoch;
                if (running && this_trial && done < budget) {
                    bit<32> copies = per_pass;
                    if (emit_below != 0) {
                        /* A skipped pass makes no frame and counts none: the budget
                         * stays exact, the loop goes on. */
                        bit<16> draw;
                        random(draw, 0, 0xFFFF);
                        if (draw >= emit_below) {
                            copies = 0;
                        }
                    }
                    if (budget - done < copies) {
                        copies = budget - done;
                    }
                    generated.write((bit<32>) hdr.tester.stream_id, done + copies);
                    meta.tx_copies = (bit<8>) copies;
                    smeta.mcast_grp = MCAST_GROUP_BASE + hdr.tester.stream_id;
                } else {
                    mark_to_drop(smeta);
                }
            } else {
                mark_to_drop(smeta);
            }
        }
    }
}

control GeneratorEgress(inout headers_t hdr, inout local_metadata_t meta,
                        inout standard_metadata_t smeta) {
    register<seq_t>(MAX_STREAMS) tx_next_seq;
    /* Frames that left the tester, per stream (bytes without FCS). */
    counter(MAX_STREAMS, CounterType.packets_and_bytes) tx_stream;

    /* Per-field variation: frame i of a varying stream carries the L4 ports, VNI
     * and MACs of entry i mod count (the index restarts at each trial's CLEAR). */
    register<bit<16>>(MAX_STREAMS) vary_next;
    bit<16> vary_count = 0;

    action vary(bit<16> count) {
        vary_count = count;
    }

    /* Controller writes: stream -> vary(count of tx_vary_fields entries); none: the
     * template's fields. */
    table tx_vary {
        key = { hdr.tester.stream_id : exact @name("stream"); }
        actions = { vary; NoAction; }
        default_action = NoAction();
        size = MAX_STREAMS;
    }

    bit<24> vary_vni = 0;

    /* The VNI applies to VxLAN streams only (the template's VNI when it does not vary).
     * The MACs are the outer Ethernet header's, what a learning switch learns from
     * (the template's when they do not vary); no checksum covers them. */
    action set_fields(bit<16> src_port, bit<16> dst_port, bit<24> vni,
                      bit<48> src_mac, bit<48> dst_mac) {
        meta.vary_src_port = src_port;
        meta.vary_dst_port = dst_port;
        vary_vni = vni;
        hdr.ethernet.src_addr = src_mac;
        hdr.ethernet.dst_addr = dst_mac;
    }

    /* A new VNI changes what the outer UDP checksum covers, and nothing the inner
     * one does: the outer checksum is updated incrementally (RFC 1624, eqn. 3) for
     * the two 16-bit words the VNI spans; a zero (absent) IPv4 checksum stays zero. */
    action write_vni() {
        bit<32> sum = (bit<32>) ~hdr.udp.checksum
                      + (bit<32>) ~hdr.vxlan.vni[23:8]
                      + (bit<32>) ~(hdr.vxlan.vni[7:0] ++ hdr.vxlan.reserved2)
                      + (bit<32>) vary_vni[23:8]
                      + (bit<32>) (vary_vni[7:0] ++ hdr.vxlan.reserved2);
        sum = (bit<32>) sum[15:0] + (bit<32>) sum[31:16];
        sum = (bit<32>) sum[15:0] + (bit<32>) sum[31:16];
        bit<16> updated = ~sum[15:0];
        hdr.udp.checksum = updated == 0 ? 16w0xFFFF : updated;
        hdr.vxlan.vni = vary_vni;
    }

    /* Controller writes: (stream, index 0..count-1) -> set_fields(...). */
    table tx_vary_fields {
        key = {
            hdr.tester.stream_id : exact @name("stream");
            meta.vary_index      : exact @name("index");
        }
        actions = { set_fields; NoAction; }
        default_action = NoAction();
        size = MAX_VARY_ENTRIES;
    }

    /* Per-field patterns beyond the table: increments, draws, lists of any field. */
    FieldSteps() field_steps;

    /* The L4 header that carries the tester header: the innermost. */
    action write_ports() {
        if (hdr.inner_udp.isValid()) {
            hdr.inner_udp.src_port = meta.vary_src_port;
            hdr.inner_udp.dst_port = meta.vary_dst_port;
        } else if (hdr.inner_tcp.isValid()) {
            hdr.inner_tcp.src_port = meta.vary_src_port;
            hdr.inner_tcp.dst_port = meta.vary_dst_port;
        } else if (hdr.tcp.isValid()) {
            hdr.tcp.src_port = meta.vary_src_port;
            hdr.tcp.dst_port = meta.vary_dst_port;
        } else {
            hdr.udp.src_port = meta.vary_src_port;
            hdr.udp.dst_port = meta.vary_dst_port;
        }
    }

    /* Random frame sizes (an OTG flow's size.random): frame i is the template less
     * a uniform draw of 0..max_cut bytes of its zero padding, its IP and L4 lengths
     * shortened to match. Zeros add nothing to a checksum, so the L4 checksum changes
     * only by its length words, which the stamp takes in (checksums.p4); the IPv4
     * header checksum is recomputed. */
    bit<16> max_cut = 0;
    bit<32> template_bytes = 0;

    action resize(bit<16> cut_limit, bit<32> frame_bytes) {
        max_cut = cut_limit;
        template_bytes = frame_bytes;
    }

    /* Controller writes: stream -> resize(largest cut, template bytes without FCS);
     * none: every frame is the template's size. Plain (untunnelled) frames only. */
    table tx_resize {
        key = { hdr.tester.stream_id : exact @name("stream"); }
        actions = { resize; NoAction; }
        default_action = NoAction();
        size = MAX_STREAMS;
    }

    /* The bytes frames lost, bit b of each frame's cut counted in cell base + b:
     * a stream's cells from stream * CUT_BITS, a TX port's from (MAX_STREAMS + port) *
     * CUT_BITS (ports below CUT_PORTS: the controller refuses random sizes on others).
     * BMv2 counts a frame's bytes before the cut, so the controller takes
     * sum(2^b x cell b) off the stream's and the port's TX bytes (tester.snapshot). */
    counter((MAX_STREAMS + CUT_PORTS) * CUT_BITS, CounterType.packets) tx_cut_bits;

    action stamp_tx_frame() {
        seq_t seq;
        tx_next_seq.read(seq, (bit<32>) hdr.tester.stream_id);
        tx_next_seq.write((bit<32>) hdr.tester.stream_id, seq + 1);
        hdr.tester.seq = seq;
        hdr.tester.tx_ts = tester_stamp(smeta.egress_global_timestamp, meta.clock_offset,
                                        meta.clock_drift_shift) + meta.tx_clock_correction;
        tx_stream.count((bit<32>) hdr.tester.stream_id);
        meta.stamped_tx = true;
    }

#define COUNT_CUT_BIT(b) if (meta.size_cut[b:b] == 1) { \
        tx_cut_bits.count(stream_cells + b); \
        if (smeta.egress_port < CUT_PORTS) { tx_cut_bits.count(port_cells + b); } }

    action cut_frame(bit<16> cut) {
        truncate(template_bytes - (bit<32>) cut);
        meta.size_cut = cut;
    }

    apply {
        /* field_steps applies at one place only: BMv2 lays each table out once. */
        bool steps_now = false;
        bool table_ports = false;
        if (meta.ctrl_op == CTRL_OP_CLEAR) {
            tx_next_seq.write((bit<32>) meta.stream, meta.initial_seq);
            vary_next.write((bit<32>) meta.stream, 0);
            steps_now = true;
        } else if (meta.ctrl_op == CTRL_OP_READ) {
            /* The frames that left and the time together: a read may wait in the CPU
             * port's queue, and the offered-load proof divides one by the other. */
            tx_next_seq.read(hdr.stats.tx_next_seq, (bit<32>) meta.stream);
            hdr.stats.switch_time = (timestamp_t) smeta.egress_global_timestamp;
        } else if (smeta.egress_port >= PACER_PORT_BASE && smeta.egress_port <= PACER_PORT_LAST) {
            recirculate_preserving_field_list(RECIRC_FIELDS_NONE);
        } else if (smeta.egress_port == REFERENCE_LOOP_PORT && meta.loop_stage == LOOP_STAGE_OUT) {
            meta.loop_rx_ts = tester_stamp(smeta.egress_global_timestamp, meta.clock_offset,
                                           meta.clock_drift_shift);
            meta.loop_stage = LOOP_STAGE_BACK;
            recirculate_preserving_field_list(RECIRC_FIELDS_REFERENCE);
        } else if (smeta.egress_rid >= REPLICA_TX
                   && smeta.egress_rid < REPLICA_TX + MAX_FRAMES_PER_PASS
                   && hdr.tester.isValid()) {
            if ((bit<8>) (smeta.egress_rid - REPLICA_TX) >= meta.tx_copies) {
                /* A TX replica the budget's last pass does not need. */
                mark_to_drop(smeta);
            } else {
                stamp_tx_frame();
                if (smeta.egress_port == REFERENCE_LOOP_PORT) {
                    meta.loop_stage = LOOP_STAGE_OUT;
                    recirculate_preserving_field_list(RECIRC_FIELDS_REFERENCE);
                }
                if (tx_resize.apply().hit) {
                    bit<16> cut;
                    random(cut, 16w0, max_cut);
                    cut_frame(cut);
                    /* The L4 length before the cut: UDP's field; TCP's, the IP payload
                     * (no options in the tester's frames). */
                    bit<16> l4_len = hdr.udp.length;
                    if (hdr.ipv4.isValid()) {
                        if (hdr.tcp.isValid()) {
                            l4_len = hdr.ipv4.total_len - (((bit<16>) hdr.ipv4.ihl) << 2);
                        }
                        hdr.ipv4.total_len = hdr.ipv4.total_len - cut;
                    } else if (hdr.ipv6.isValid()) {
                        if (hdr.tcp.isValid()) {
                            l4_len = hdr.ipv6.payload_len;
                        }
                        hdr.ipv6.payload_len = hdr.ipv6.payload_len - cut;
                    }
                    if (hdr.udp.isValid()) {
                        hdr.udp.length = hdr.udp.length - cut;
                    }
                    meta.l4_len_before_neg = ~l4_len;
                    meta.l4_len_after = l4_len - cut;
                    bit<32> stream_cells = (bit<32>) hdr.tester.stream_id * CUT_BITS;
                    bit<32> port_cells = ((bit<32>) MAX_STREAMS + (bit<32>) smeta.egress_port)
                                         * CUT_BITS;
                    COUNT_CUT_BIT(0)  COUNT_CUT_BIT(1)  COUNT_CUT_BIT(2)  COUNT_CUT_BIT(3)
                    COUNT_CUT_BIT(4)  COUNT_CUT_BIT(5)  COUNT_CUT_BIT(6)  COUNT_CUT_BIT(7)
                    COUNT_CUT_BIT(8)  COUNT_CUT_BIT(9)  COUNT_CUT_BIT(10) COUNT_CUT_BIT(11)
                    COUNT_CUT_BIT(12) COUNT_CUT_BIT(13)
                }
                if (tx_vary.apply().hit) {
                    vary_next.read(meta.vary_index, (bit<32>) hdr.tester.stream_id);
                    vary_next.write((bit<32>) hdr.tester.stream_id,
                                    meta.vary_index + 1 >= vary_count ? 16w0
                                                                      : meta.vary_index + 1);
                    if (tx_vary_fields.apply().hit) {
                        table_ports = true;
                        if (hdr.vxlan.isValid()) {
                            if (hdr.udp.checksum != 0) {
                                write_vni();
                            } else {
                                hdr.vxlan.vni = vary_vni;
                            }
                        }
                    }
                }
                steps_now = true;
            }
        }
        if (steps_now) {
            bool stepped;
            field_steps.apply(hdr, meta, table_ports, stepped);
            if (table_ports || stepped) {
                write_ports();
            }
        }
    }
}

#endif
