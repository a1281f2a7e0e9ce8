/* Streams received on several ports (issue 24, item 1): where a received stream
 * frame's figures go. A DUT that replicates a stream (multicast) delivers every frame
 * on each of its RX ports; one that spreads it (ECMP, LAG) delivers each frame once, on
 * any of them. The checker's state is indexed by slot, not by stream: a frame's
 * sequence state (next expected, last seq, gaps, reordering, duplicates) goes to its
 * seq slot, and its counts, latency and histograms to its figure slot. A stream with
 * one RX port has no entry here: both slots are its stream id, as before. Slots are
 * below MAX_STREAMS: the controller gives a several-port stream slots no stream of the
 * trial uses (tester.receive_slots). The same table on every target. */
#ifndef TESTER_COMMON_RX_PORT_SLOTS_P4
#define TESTER_COMMON_RX_PORT_SLOTS_P4

#include "headers.p4"

/* listed: the frame came back on one of its stream's several RX ports (the classifier
 * then takes it on that port, not only on rx_expected's). */
control RxPortSlots(in stream_id_t stream, in bit<16> rx_port, out bool listed,
                    out bit<32> seq_slot, out bit<32> figure_slot) {
    action receive_as(bit<16> seq, bit<16> figures) {
        listed = true;
        seq_slot = (bit<32>) seq;
        figure_slot = (bit<32>) figures;
    }

    action one_port() {
        listed = false;
        seq_slot = (bit<32>) stream;
        figure_slot = (bit<32>) stream;
    }

    /* Controller writes, per several-port stream before each trial, one entry per RX
     * port: (stream, port) -> receive_as(seq, figures). Replicate: both slots the
     * port's own (every port sees the whole sequence). Spread: seq the stream's id for
     * every port (one sequence over all of them: a frame duplicated onto two ports is a
     * duplicate), figures the port's own. A frame on a port with no entry is checked
     * against rx_expected's port alone (RX_KIND_MISMATCHED on any other). */
    table rx_port_slots {
        key = {
            stream  : exact @name("stream");
            rx_port : exact @name("rx_port");
        }
        actions = { receive_as; one_port; }
        default_action = one_port();
        size = RX_PORT_SLOT_ENTRIES;
    }

    apply {
        rx_port_slots.apply();
    }
}

#endif
