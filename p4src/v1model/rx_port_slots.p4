/* Streams received on several ports (issue 24, item 1), on BMv2: where a received
 * stream frame's figures go. A DUT that replicates a stream (multicast) delivers
 * every frame on each of its RX ports; one that spreads it (ECMP, LAG) delivers
 * each frame once, on any of them. The checker's state is indexed by slot, not by
 * stream: a frame's sequence state (next expected, last seq, gaps, reordering,
 * duplicates) goes to its seq slot, and its counts, latency and histograms to its
 * figure slot. A stream with one RX port has no entry here: both slots are its
 * stream id, as before. Slots are below MAX_STREAMS: the controller gives a
 * several-port stream slots that no stream of the trial uses. */
#ifndef TESTER_V1MODEL_RX_PORT_SLOTS_P4
#define TESTER_V1MODEL_RX_PORT_SLOTS_P4

#include "platform.p4"
#include "../common/headers.p4"

control RxPortSlots(in stream_id_t stream, in bit<16> rx_port,
                    inout rx_expectation_t expected,
                    out bit<32> seq_slot, out bit<32> figure_slot) {
    /* The frame came back on one of its stream's RX ports: the classifier takes it
     * as the stream's (it compares expected.rx_port with the frame's port). */
    action receive_as(bit<16> seq, bit<16> figures) {
        expected.rx_port = rx_port;
        seq_slot = (bit<32>) seq;
        figure_slot = (bit<32>) figures;
    }

    /* Controller writes, per several-port stream before each trial, one entry per
     * RX port: (stream, port) -> receive_as(seq, figures). Replicate: both slots
     * the port's own (every port sees the whole sequence). Spread: seq the stream's
     * id for every port (one sequence over all of them: a frame duplicated onto two
     * ports is a duplicate), figures the port's own. A frame on a port with no entry
     * keeps the rx_expected port, and so is RX_KIND_MISMATCHED on any other. */
    table rx_port_slots {
        key = {
            stream  : exact @name("stream");
            rx_port : exact @name("rx_port");
        }
        actions = { receive_as; NoAction; }
        default_action = NoAction();
        size = RX_PORT_SLOT_ENTRIES;
    }

    apply {
        seq_slot = (bit<32>) stream;
        figure_slot = (bit<32>) stream;
        rx_port_slots.apply();
    }
}

#endif
