/* The tester's clock as its stamps carry it: the kernel's monotonic clock
 * (platform.p4: clock_low32) plus a setting the controller writes. On one host
 * every tester shares that clock; a test of several testers gives one of them an
 * offset and a drift, as two hosts' clocks would have, and checks that the
 * offset the probes measure (control: tester.clock_offset) is the one it gave.
 * The setting is 0 outside such tests: the stamp is the kernel's clock.
 *
 * One 64-bit cell: bits 0-31 a fixed offset (ns, added modulo 2^32), bits
 * 32-36 a drift as a shift: the clock gains (clock >> shift) ns, 2^-shift of
 * the time (shift 16: 15.3 ppm); 0 for none (p4c-ebpf shifts by 5 bits at most). The drift's value at the moment
 * the setting is written is in the offset (the controller subtracts it). */
#ifndef TESTER_PSA_TESTER_CLOCK_P4
#define TESTER_PSA_TESTER_CLOCK_P4

#include "platform.p4"

control TesterClock(in Timestamp_t now, out timestamp_t stamp) {
    Register<bit<64>, bit<32>>(1) clock_setting;

    /* A variable, not the constant 0: p4c-ebpf writes `&0` for a constant index. */
    bit<32> cell = 0;

    apply {
        bit<64> setting = clock_setting.read(cell);
        bit<5> shift = setting[36:32];
        stamp = clock_low32(now) + setting[31:0];
        if (shift != 0) {
            bit<64> gained = ((bit<64>) now) >> shift;
            stamp = stamp + gained[31:0];
        }
    }
}

#endif
