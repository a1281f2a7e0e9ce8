/* Impairments of the reference DUT, deterministic so that a test knows exactly what
 * happened (the lab's answer to netem where the kernel has no sch_netem). Per
 * ingress port, counting that port's forwarded frames from 1:
 *   frame n is dropped    when drop_every      divides n,
 *   else held (reordered) when reorder_every   divides n,
 *   else duplicated       when duplicate_every divides n  (0 = never, for each),
 *   else delayed by delay_us, when that is set (netem delay without jitter).
 * Only tester frames are impaired and counted: whatever else a lab link carries
 * (the kernel's IPv6 chatter) passes untouched. A held frame circulates through
 * the recirculation path until the port's next frame has gone out before it, so
 * the two leave swapped; a delayed frame circulates until its release time, and
 * delayed frames leave in the order they came. Both loops are bounded (a held
 * frame in time, both in passes): at the bound the frame leaves anyway. A
 * duplicate is a second copy right behind the first (multicast group
 * DUP_GROUP_BASE + egress port). */
#ifndef TESTER_DUT_IMPAIRMENTS_P4
#define TESTER_DUT_IMPAIRMENTS_P4

#include "../v1model/platform.p4"

/* Held frames go to this port, which has no interface; its egress recirculates. */
const port_t HOLD_PORT = 200;
/* A held frame waits at most this long for its successor (switch clock, us).
 * A bound in time rather than in loop passes: on a busy host the sender's frame
 * gaps stretch while the loop keeps spinning, and a pass count would run out (the
 * delay's pass bound does not apply to a hold). Half a second: a PTF sender beside
 * a busy core left 100 ms between two frames; a lab trial drains for longer. */
const bit<48> MAX_HOLD_US = 500000;
/* A delayed frame's bound: on BMv2 a pass takes some microseconds, so delays up to
 * a few hundred ms are exact; a longer one ends early and is counted timed out. */
const bit<16> MAX_DELAY_PASSES = 0xFFFF;
const bit<16> DUP_GROUP_BASE = 100;
const bit<8> HOLD_FIELDS = 1;

/* Index of the dut_impaired counter. */
const bit<32> IMPAIRED_DROPPED     = 0;
const bit<32> IMPAIRED_DUPLICATED  = 1;
const bit<32> IMPAIRED_HELD        = 2;
const bit<32> IMPAIRED_OVERTAKEN   = 3;  /* held frames released after a later one left */
const bit<32> IMPAIRED_TIMED_OUT   = 4;  /* circulating frames released by their bound */
const bit<32> IMPAIRED_DELAYED     = 5;
const bit<32> IMPAIRED_DELAY_PASSES = 6;  /* loop passes of delayed frames: the delay's
                                             granularity is D x delayed / passes */
#define IMPAIRED_KINDS 7

/* Why a frame circulates: waiting to be overtaken, or for its release time. */
const bit<8> HOLD_REORDER = 0;
const bit<8> HOLD_DELAY   = 1;
#define DUT_PORTS 64

struct hold_metadata_t {
    @field_list(HOLD_FIELDS) bit<32> epoch;      /* port's frames out when the hold began */
    @field_list(HOLD_FIELDS) bit<16> passes;
    @field_list(HOLD_FIELDS) port_t  out_port;
    @field_list(HOLD_FIELDS) port_t  in_port;
    @field_list(HOLD_FIELDS) bit<8>  kind;        /* HOLD_* */
    @field_list(HOLD_FIELDS) bit<48> release_at;  /* switch clock, us: DELAY release,
                                                     REORDER give-up time */
    /* HOLD_DELAY: the frame's place among its port's delayed frames. Frames due in
     * the same loop round could otherwise leave in the order the loop happens to
     * hold them; a delay without jitter keeps the order they came in. */
    @field_list(HOLD_FIELDS) bit<32> ticket;
    /* Egress saw the clock past release_at. Egress decides because
     * simple_switch keeps a recirculated frame's first ingress timestamp, while
     * the egress timestamp is taken anew at each pass. */
    @field_list(HOLD_FIELDS) bool    due;
}

/* Egress side of a hold: mark a delayed frame due, and send it round again. */
control HoldLoop(inout hold_metadata_t hold, in standard_metadata_t smeta) {
    apply {
        if (smeta.egress_global_timestamp >= hold.release_at) {
            hold.due = true;
        }
        recirculate_preserving_field_list(HOLD_FIELDS);
    }
}

/* Decides, in ingress, a forwarded frame's fate; egress_spec is already set. */
control Impairments(inout hold_metadata_t hold, inout standard_metadata_t smeta) {
    /* Per ingress port and impairment: frames since that impairment last struck. */
    register<bit<32>>(DUT_PORTS) drop_since;
    register<bit<32>>(DUT_PORTS) reorder_since;
    register<bit<32>>(DUT_PORTS) duplicate_since;
    /* Frames of the ingress port that went on to egress (not held, not dropped). */
    register<bit<32>>(DUT_PORTS) passed;
    /* Per ingress port: the next delayed frame's ticket, and the oldest ticket not
     * yet out. A due frame leaves only when every earlier one has left. */
    register<bit<32>>(DUT_PORTS) delay_issued;
    register<bit<32>>(DUT_PORTS) delay_released;
    counter(IMPAIRED_KINDS, CounterType.packets) dut_impaired;

    bit<32> drop_every = 0;
    bit<32> reorder_every = 0;
    bit<32> duplicate_every = 0;
    bit<32> delay = 0;

    action impair(bit<32> drop_every_n, bit<32> reorder_every_n, bit<32> duplicate_every_n,
                  bit<32> delay_us) {
        drop_every = drop_every_n;
        reorder_every = reorder_every_n;
        duplicate_every = duplicate_every_n;
        delay = delay_us;
    }

    /* Controller (the lab) writes: ingress port -> impair(...); no entry: none. */
    table impairments {
        key = { smeta.ingress_port : exact @name("ingress_port"); }
        actions = { impair; NoAction; }
        default_action = NoAction();
        size = DUT_PORTS;
    }

    apply {
        bit<32> port = (bit<32>) smeta.ingress_port;
        if (smeta.instance_type == PKT_INSTANCE_TYPE_RECIRC) {
            /* A circulating frame: a held one is out once a later frame of its port
             * has gone ahead, a delayed one at the first pass after its release
             * time (late by at most one pass) once every earlier delayed frame of
             * its port is out; either at its pass bound. */
            bool ready = hold.due;
            bool timed_out = hold.passes >= MAX_DELAY_PASSES;
            if (hold.kind == HOLD_REORDER) {
                bit<32> now_passed;
                passed.read(now_passed, (bit<32>) hold.in_port);
                ready = now_passed != hold.epoch;
                timed_out = hold.due;
                if (ready) {
                    dut_impaired.count(IMPAIRED_OVERTAKEN);
                }
            }
            bit<32> released;
            delay_released.read(released, (bit<32>) hold.in_port);
            if (hold.kind == HOLD_DELAY) {
                /* Modulo 2^32: the ticket is at or before the oldest one not out. */
                ready = ready && released - hold.ticket < 0x80000000;
            }
            bool leaves = ready || timed_out;
            if (leaves && hold.kind == HOLD_DELAY
                    && hold.ticket + 1 - released < 0x80000000) {
                /* A frame out at its pass bound releases those before it too. */
                delay_released.write((bit<32>) hold.in_port, hold.ticket + 1);
            }
            if (ready) {
                smeta.egress_spec = hold.out_port;
            } else if (leaves) {
                dut_impaired.count(IMPAIRED_TIMED_OUT);
                smeta.egress_spec = hold.out_port;
            } else {
                if (hold.kind == HOLD_DELAY) {
                    dut_impaired.count(IMPAIRED_DELAY_PASSES);
                }
                hold.passes = hold.passes + 1;
                smeta.egress_spec = HOLD_PORT;
            }
            return;
        }
        impairments.apply();
        /* Each count runs on every tester frame of the port, impaired or not, so
         * frame n meets impairment X exactly when X's period divides n. */
        bit<32> drop_seen;
        bit<32> reorder_seen;
        bit<32> duplicate_seen;
        drop_since.read(drop_seen, port);
        reorder_since.read(reorder_seen, port);
        duplicate_since.read(duplicate_seen, port);
        drop_seen = drop_seen + 1;
        reorder_seen = reorder_seen + 1;
        duplicate_seen = duplicate_seen + 1;
        bool drop_due = drop_every != 0 && drop_seen >= drop_every;
        bool reorder_due = reorder_every != 0 && reorder_seen >= reorder_every;
        bool duplicate_due = duplicate_every != 0 && duplicate_seen >= duplicate_every;
        drop_since.write(port, drop_due ? 0 : drop_seen);
        reorder_since.write(port, reorder_due ? 0 : reorder_seen);
        duplicate_since.write(port, duplicate_due ? 0 : duplicate_seen);

        if (drop_due) {
            dut_impaired.count(IMPAIRED_DROPPED);
            mark_to_drop(smeta);
        } else if (reorder_due) {
            dut_impaired.count(IMPAIRED_HELD);
            passed.read(hold.epoch, port);
            hold.kind = HOLD_REORDER;
            hold.passes = 0;
            hold.due = false;
            hold.release_at = smeta.ingress_global_timestamp + MAX_HOLD_US;
            hold.out_port = smeta.egress_spec;
            hold.in_port = smeta.ingress_port;
            smeta.egress_spec = HOLD_PORT;
        } else {
            bit<32> passed_now;
            passed.read(passed_now, port);
            passed.write(port, passed_now + 1);
            if (duplicate_due) {
                dut_impaired.count(IMPAIRED_DUPLICATED);
                smeta.mcast_grp = DUP_GROUP_BASE + (bit<16>) smeta.egress_spec;
            } else if (delay != 0) {
                dut_impaired.count(IMPAIRED_DELAYED);
                hold.kind = HOLD_DELAY;
                hold.passes = 0;
                hold.due = false;
                hold.release_at = smeta.ingress_global_timestamp + (bit<48>) delay;
                delay_issued.read(hold.ticket, port);
                delay_issued.write(port, hold.ticket + 1);
                hold.in_port = smeta.ingress_port;
                hold.out_port = smeta.egress_spec;
                smeta.egress_spec = HOLD_PORT;
            }
        }
    }
}

#endif
