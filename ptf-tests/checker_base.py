"""Base of the checker tests: inject crafted test frames into a tester port and
read back the exact counters and registers they must have moved."""

from __future__ import annotations

import time
from collections.abc import Iterable

import ptf.testutils as tu
from scapy.packet import Packet

from p4tester.dataplane import names
from p4tester.dataplane.constants import (
    IP_VERSION_4,
    MAX_STREAMS,
    RX_KIND_COUNT,
    RX_KIND_MISMATCHED,
    RX_KIND_STALE,
)
from p4tester.dataplane.headers import StreamRegisters, TesterHeader, epoch_flags
from p4tester.p4rt import Exact, build_table_entry

from tester_base import PORT_B, TesterBaseTest

SETTLE_TIMEOUT_S = 3.0


class CheckerTest(TesterBaseTest):
    rx_port = PORT_B

    def setUp(self) -> None:
        super().setUp()
        self.sent = 0
        self.expect_every_stream()

    def expect_every_stream(self, epoch: int = 0) -> None:
        """Every stream in a trial of this epoch (run 0), on rx_port, IPv4 (what the crafted
        frames are), written in one batch; a test overrides single streams with
        self.tester.expect_stream."""
        self.client.insert(*(
            build_table_entry(self.schema, names.RX_EXPECTED, {"stream": Exact(stream)},
                              names.RX_EXPECT, {"trial_run": 0,
                                                "trial_epoch": epoch_flags(epoch),
                                                "rx_port": self.rx_port,
                                                "ip_version": IP_VERSION_4})
            for stream in range(MAX_STREAMS)
        ))

    def send_frames(self, frames: Iterable[Packet], port: int | None = None) -> None:
        for frame in frames:
            tu.send_packet(self, self.rx_port if port is None else port, frame)
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

    def assert_stream_untouched_by(self, stream_id: int, *, stale: int,
                                   mismatched: int) -> None:
        """Frames of the stream that were not its: counted under their own kind and
        per stream, never as its frames."""
        kinds = self.rx_kinds()
        self.assertEqual(kinds[RX_KIND_STALE], stale)
        self.assertEqual(kinds[RX_KIND_MISMATCHED], mismatched)
        self.assertEqual(self.stream_counter(names.RX_STALE, stream_id), stale)
        self.assertEqual(self.stream_counter(names.RX_MISMATCHED, stream_id), mismatched)

    def assert_no_stream_touched(self) -> None:
        for name in (names.RX_STREAM, names.RX_GAP_EVENTS, names.RX_REORDERED,
                     names.RX_DUPLICATE, names.LATENCY_HIST, names.QDEPTH_HIST):
            cells = self.tester.read_counter(name)
            self.assertEqual(sum(c.packets for c in cells.values()), 0, name)
