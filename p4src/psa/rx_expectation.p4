/* The eBPF target's RxExpectation (common/rx_expectation.p4 says what it is
 * for): the same expectation per stream, held in a register cell the controller
 * writes at once instead of an exact table. An array read is an address
 * computation; a table here is a hash lookup for every frame checked. */
#ifndef TESTER_PSA_RX_EXPECTATION_P4
#define TESTER_PSA_RX_EXPECTATION_P4

#include "platform.p4"
#include "../common/headers.p4"

/* several_ports: the stream is received on several ports, so its frames' checker
 * slots are in rx_port_slots (rx_port_slots.p4); other streams' frames skip that read. */
const bit<64> IN_TRIAL_BIT = 1 << 40;
const bit<64> SEVERAL_PORTS_BIT = 1 << 41;

control RxExpectation(in headers_t hdr, out rx_expectation_t expected,
                      out bool several_ports) {
    /* Controller writes, per stream before each trial: bits 0-7 the run value
     * of the trial's template, 8-15 its epoch flags (the TESTER_FLAG_EPOCH_MASK
     * bits), 16-31 the port the stream's frames come back on, 32-39 IP_VERSION_4
     * or IP_VERSION_6 as the template, bit 40 set, bit 41 set when it is received on
     * several ports. 0 (or a stream past MAX_STREAMS): in no trial, its frames are
     * RX_KIND_STALE. */
    Register<bit<64>, bit<32>>(MAX_STREAMS) rx_expected;

    apply {
        bit<32> s = (bit<32>) hdr.tester.stream_id;
        bit<64> cell = rx_expected.read(s);
        /* Bits tested with masks: p4c-ebpf 1.2.4.8 compiles a one-bit slice compared
         * with 1 (cell[40:40] == 1) as (u8)(cell >> 40) == 1, without masking the bits
         * above it, so bit 41 set made every stream look as in no trial. */
        expected.in_trial = cell & IN_TRIAL_BIT != 0;
        expected.run_epoch = cell[7:0] ++ cell[15:9];
        expected.rx_port = cell[31:16];
        expected.ip_version = cell[39:32];
        several_ports = cell & SEVERAL_PORTS_BIT != 0;
    }
}

#endif
