/* The tester's clock as its stamps carry it on BMv2: the switch's clock (us since
 * the switch started) plus a setting the controller writes. Each BMv2 process has
 * its own clock, so testers of one test already differ by when their switches
 * started; a test may also give one an offset and a drift, as another host's clock
 * would have, and check that the probes measure them (control: tester.clock_offset).
 * The setting is 0 outside such tests: the stamp is the switch's clock.
 *
 * The setting: a fixed offset (us, added modulo 2^32) and a drift as a shift: the
 * clock gains (clock >> shift) us, 2^-shift of the time (shift 16: 15.3 ppm); 0 for
 * none. As on the eBPF target (psa/tester_clock.p4), the controller takes the drift's
 * value when it writes the setting out of the offset. */
#ifndef TESTER_V1MODEL_TESTER_CLOCK_P4
#define TESTER_V1MODEL_TESTER_CLOCK_P4

#include "platform.p4"
#include "../common/headers.p4"

/* The stamp of switch time `now` under the setting. */
timestamp_t tester_stamp(in bit<48> now, in timestamp_t offset, in bit<8> drift_shift) {
    timestamp_t stamp = now[31:0] + offset;
    if (drift_shift != 0) {
        bit<48> gained = now >> drift_shift;
        stamp = stamp + gained[31:0];
    }
    return stamp;
}

/* Ingress reads the setting once per packet into metadata, where egress finds it
 * too (a keyless table: one lookup, and the controller writes it over P4Runtime). */
control TesterClockSetting(inout local_metadata_t meta) {
    action simulate(bit<32> offset, bit<8> drift_shift) {
        meta.clock_offset = offset;
        meta.clock_drift_shift = drift_shift;
    }

    /* Controller writes the default action: simulate(offset us, drift shift 0..31). */
    table tester_clock {
        actions = { simulate; }
        default_action = simulate(0, 0);
        size = 1;
    }

    apply {
        tester_clock.apply();
    }
}

#endif
