"""Base of the checker tests: inject crafted test frames into a tester port and
read back the exact counters and registers they must have moved."""

from __future__ import annotations

import time
from collections.abc import Iterable

import ptf.testutils as tu
from scapy.packet import Packet

from p4tester.dataplane import names
from p4tester.dataplane.constants import RX_KIND_COUNT
from p4tester.dataplane.headers import StreamRegisters, TesterHeader

from tester_base import PORT_B, TesterBaseTest

SETTLE_TIMEOUT_S = 3.0


class CheckerTest(TesterBaseTest):
    rx_port = PORT_B

    def setUp(self) -> None:
        super().setUp()
        self.sent = 0

    def send_frames(self, frames: Iterable[Packet]) -> None:
        for frame in frames:
            tu.send_packet(self, self.rx_port, frame)
            self.sent += 1
        self.settle()

    def send_seqs(self, stream_id: int, seqs: Iterable[int], frame_size: int = 64,
                  tx_ts: int = 0) -> None:
        self.send_frames(
            self.tester_frame(TesterHeader(stream_id=stream_id, seq=s, tx_ts=tx_ts), frame_size)
            for s in seqs
        )

    def settle(self) -> None:
        """Wait until the switch has classified every frame sent so far."""
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        seen = -1
        while time.monotonic() < deadline:
            seen = sum(self.rx_kinds())
            if seen >= self.sent:
                return
            time.sleep(0.05)
        self.fail(f"the switch classified {seen} of {self.sent} frames in {SETTLE_TIMEOUT_S} s")

    def rx_kinds(self) -> list[int]:
        cells = self.tester.read_counter(names.RX_KIND)
        return [cells[i].packets if i in cells else 0 for i in range(RX_KIND_COUNT)]

    def stream_counter(self, name: str, stream_id: int) -> int:
        cells = self.tester.read_counter(name)
        return cells[stream_id].packets if stream_id in cells else 0

    def registers(self, stream_id: int) -> StreamRegisters:
        return self.tester.read_stream_registers(stream_id)

    def assert_stream_figures(self, stream_id: int, *, received: int, next_expected: int,
                              lost: int, gap_events: int, reordered: int,
                              duplicates: int) -> None:
        state = self.registers(stream_id)
        self.assertEqual(self.stream_counter(names.RX_STREAM, stream_id), received)
        self.assertEqual(state.rx_samples, received)
        self.assertEqual(state.rx_next_expected, next_expected)
        self.assertEqual(state.rx_lost, lost)
        self.assertEqual(self.stream_counter(names.RX_GAP_EVENTS, stream_id), gap_events)
        self.assertEqual(self.stream_counter(names.RX_REORDERED, stream_id), reordered)
        self.assertEqual(self.stream_counter(names.RX_DUPLICATE, stream_id), duplicates)

    def assert_no_stream_touched(self) -> None:
        for name in (names.RX_STREAM, names.RX_GAP_EVENTS, names.RX_REORDERED,
                     names.RX_DUPLICATE, names.LATENCY_HIST, names.QDEPTH_HIST):
            cells = self.tester.read_counter(name)
            self.assertEqual(sum(c.packets for c in cells.values()), 0, name)
