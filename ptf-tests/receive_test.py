"""Streams received on several ports (p4src/v1model/rx_port_slots.p4): a replicated
stream's figures per RX port, each port with a sequence of its own; a spread stream's
one sequence over its ports, with counts and latency per port. Exact figures."""

from __future__ import annotations

from p4tester.dataplane import names
from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM, RX_KIND_MISMATCHED, RX_KIND_STREAM
from p4tester.dataplane.headers import TesterHeader

from checker_base import CheckerTest
from tester_base import PORT_A, PORT_B, PORT_C, PORT_D

STREAM = 5
# Slots no stream of these tests uses (the controller picks them: tester.receive_slots).
SLOT_C = 40
SLOT_D = 41


class SeveralPortTest(CheckerTest):
    def frames(self, seqs: list[int], tx_ts: int = 0) -> list:
        return [self.tester_frame(TesterHeader(stream_id=STREAM, seq=s, tx_ts=tx_ts))
                for s in seqs]

    def clear(self, *slots: int) -> None:
        for slot in (STREAM, *slots):
            self.tester.clear_stream(slot)

    def histogram_total(self, slot: int) -> int:
        cells = self.tester.read_counter(names.LATENCY_HIST)
        base = slot * HIST_CELLS_PER_STREAM
        return sum(cells[i].packets for i in range(base, base + HIST_CELLS_PER_STREAM)
                   if i in cells)


class ReplicatedStreamHasASequencePerPort(SeveralPortTest):
    """Stream 5 replicated to ports B (its own slot) and C (slot 40): B gets 0..5
    whole, C gets 0 1 2 5 5: C's gap of 2 and duplicate are C's alone."""

    def runTest(self) -> None:
        self.tester.set_receive_slots({(STREAM, PORT_B): (STREAM, STREAM),
                                       (STREAM, PORT_C): (SLOT_C, SLOT_C)})
        self.clear(SLOT_C)
        self.send_frames(self.frames(list(range(6))), port=PORT_B)
        self.send_frames(self.frames([0, 1, 2, 5, 5]), port=PORT_C)
        self.assert_stream_figures(STREAM, received=6, next_expected=6, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assert_stream_figures(SLOT_C, received=5, next_expected=6, lost=2, gap_events=1,
                                   reordered=0, duplicates=1)
        self.assertEqual(self.histogram_total(STREAM), 6)
        self.assertEqual(self.histogram_total(SLOT_C), 5)
        self.assertEqual(self.rx_kinds()[RX_KIND_STREAM], 11)
        self.assert_stream_untouched_by(STREAM, stale=0, mismatched=0)


class SpreadStreamHasOneSequenceOverItsPorts(SeveralPortTest):
    """Stream 5 spread over C (slot 40) and D (slot 41), its sequence in its own slot:
    0 2 4 on C and 1 3 5 on D are one sequence, in order. Then 5 again on C is a
    duplicate of the frame just before it, though it came on the other port, and 3
    again on D is late (reordered)."""

    def runTest(self) -> None:
        self.tester.set_receive_slots({(STREAM, PORT_C): (STREAM, SLOT_C),
                                       (STREAM, PORT_D): (STREAM, SLOT_D)})
        self.clear(SLOT_C, SLOT_D)
        for seq in range(6):
            self.send_frames(self.frames([seq]), port=PORT_C if seq % 2 == 0 else PORT_D)
        self.send_frames(self.frames([5]), port=PORT_C)
        self.send_frames(self.frames([3]), port=PORT_D)
        state = self.registers(STREAM)
        # The sequence over both ports: 8 frames, one duplicate, one reordered, no gap.
        self.assertEqual(state.rx_samples, 8)
        self.assertEqual(state.rx_next_expected, 6)
        self.assertEqual(state.rx_lost, 0)
        self.assertEqual(self.stream_counter(names.RX_DUPLICATE, STREAM), 1)
        self.assertEqual(self.stream_counter(names.RX_REORDERED, STREAM), 1)
        self.assertEqual(self.stream_counter(names.RX_GAP_EVENTS, STREAM), 0)
        # Counts and latency per port, in the ports' slots; none in the stream's own.
        self.assertEqual(self.stream_counter(names.RX_STREAM, SLOT_C), 4)
        self.assertEqual(self.stream_counter(names.RX_STREAM, SLOT_D), 4)
        self.assertEqual(self.stream_counter(names.RX_STREAM, STREAM), 0)
        self.assertEqual(self.registers(SLOT_C).rx_samples, 4)
        self.assertEqual(self.registers(SLOT_D).rx_samples, 4)
        self.assertEqual(self.histogram_total(SLOT_C), 4)
        self.assertEqual(self.histogram_total(SLOT_D), 4)
        self.assertEqual(self.histogram_total(STREAM), 0)
        # The ports' slots keep no sequence of their own.
        self.assertEqual(self.stream_counter(names.RX_GAP_EVENTS, SLOT_C), 0)
        self.assertEqual(self.stream_counter(names.RX_REORDERED, SLOT_D), 0)


class PortNotListedIsMismatched(SeveralPortTest):
    """A stream received on C and D: its frames on A, or on B (its rx_expected port is
    B only for streams of one port), are mismatched; the listed ports take theirs."""

    def runTest(self) -> None:
        self.tester.expect_stream(STREAM, PORT_C)
        self.tester.set_receive_slots({(STREAM, PORT_C): (STREAM, SLOT_C),
                                       (STREAM, PORT_D): (STREAM, SLOT_D)})
        self.clear(SLOT_C, SLOT_D)
        self.send_frames(self.frames([0]), port=PORT_C)
        self.send_frames(self.frames([1]), port=PORT_A)
        self.send_frames(self.frames([1]), port=PORT_B)
        self.send_frames(self.frames([1]), port=PORT_D)
        kinds = self.rx_kinds()
        self.assertEqual((kinds[RX_KIND_STREAM], kinds[RX_KIND_MISMATCHED]), (2, 2))
        self.assert_stream_untouched_by(STREAM, stale=0, mismatched=2)
        self.assertEqual(self.registers(STREAM).rx_samples, 2)


class ReceiveSlotsOfAnotherRunGo(SeveralPortTest):
    """set_receive_slots leaves exactly the entries it is given: a port an earlier
    run's stream was received on is a wrong port afterwards."""

    def runTest(self) -> None:
        self.tester.set_receive_slots({(STREAM, PORT_B): (STREAM, STREAM),
                                       (STREAM, PORT_C): (SLOT_C, SLOT_C),
                                       (7, PORT_D): (SLOT_D, SLOT_D)})
        self.tester.set_receive_slots({(STREAM, PORT_B): (STREAM, STREAM)})
        entries = self.client.read_table(self.schema, names.RX_PORT_SLOTS)
        self.assertEqual(len(entries), 1)
        self.clear(SLOT_C)
        self.send_frames(self.frames([0]), port=PORT_B)
        self.send_frames(self.frames([0]), port=PORT_C)
        kinds = self.rx_kinds()
        self.assertEqual((kinds[RX_KIND_STREAM], kinds[RX_KIND_MISMATCHED]), (1, 1))
        self.assertEqual(self.stream_counter(names.RX_STREAM, SLOT_C), 0)
