/* The eBPF target's RxPortSlots (common/rx_port_slots.p4 says what it is for): the
 * same (stream, RX port) -> slots map, held in register cells the controller writes
 * instead of an exact table. An array read is an address computation; a table here is
 * a hash lookup for every frame checked. */
#ifndef TESTER_PSA_RX_PORT_SLOTS_P4
#define TESTER_PSA_RX_PORT_SLOTS_P4

#include "platform.p4"
#include "../common/headers.p4"

const bit<64> LISTED_BIT = 1 << 40;

control RxPortSlots(in stream_id_t stream, in bit<16> rx_port, out bool listed,
                    out bit<32> seq_slot, out bit<32> figure_slot) {
    /* Controller writes, per several-port stream before each trial, cell
     * stream x FRONT_PANEL_PORTS + RX port: bits 0-15 the seq slot, 16-31 the figure
     * slot, bit 40 set. 0 (no cell written, or a stream past MAX_STREAMS): the
     * stream's id for both, and the port is not one of several. */
    Register<bit<64>, bit<32>>(RX_PORT_SLOT_CELLS) rx_port_slots;

    apply {
        bit<32> index = (((bit<32>) stream) << FRONT_PANEL_PORTS_LOG2)
                        + (bit<32>) rx_port[FRONT_PANEL_PORTS_LOG2 - 1:0];
        bit<64> cell = rx_port_slots.read(index);
        listed = cell & LISTED_BIT != 0;  /* a mask: see rx_expectation.p4 */
        seq_slot = (bit<32>) stream;
        figure_slot = (bit<32>) stream;
        if (listed) {
            seq_slot = (bit<32>) cell[15:0];
            figure_slot = (bit<32>) cell[31:16];
        }
    }
}

#endif
