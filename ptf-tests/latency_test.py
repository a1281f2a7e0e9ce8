"""Latency figures and histograms from crafted TX timestamps.

The switch clock is read in-band (the READ reply carries it) before and after
the frames are sent, so every latency is known to within that window: rx_ts lies
in [t_before, t_after]. Bins are chosen wider than the window, so bin counts are
exact."""

from __future__ import annotations

from p4tester.dataplane import names
from p4tester.dataplane.constants import (
    HIST_CELLS_PER_STREAM,
    HIST_OUTSIDE_BIN,
    TESTER_FLAG_DUT_STAMPED,
)
from p4tester.dataplane.headers import TesterHeader

from checker_base import CheckerTest

US = 1
S = 1_000_000 * US
WRAP = 2**32


class LatencyTest(CheckerTest):
    def now(self) -> int:
        return self.registers(0).switch_time

    def send_with_latencies(self, stream_id: int, latencies: list[int], first_seq: int = 0
                            ) -> tuple[int, int]:
        """Frames whose latency will be latency + (rx_ts - t_before); returns the window."""
        t_before = self.now()
        frames = [
            self.tester_frame(TesterHeader(stream_id=stream_id, seq=first_seq + i,
                                           tx_ts=(t_before - latency) % WRAP))
            for i, latency in enumerate(latencies)
        ]
        self.send_frames(frames)
        t_after = self.now()
        return t_before, t_after

    def histogram(self, counter: str, stream_id: int) -> list[int]:
        return self.tester.stream_histogram(counter, stream_id)


class LatencyMinMaxSumJitter(LatencyTest):
    def runTest(self) -> None:
        self.tester.clear_stream(10)
        t_before, t_after = self.send_with_latencies(10, [1 * S, 4 * S, 2 * S])
        window = (t_after - t_before) % WRAP
        state = self.registers(10)
        self.assertEqual(state.rx_samples, 3)
        self.assertGreaterEqual(state.latency_min, 1 * S)
        self.assertLessEqual(state.latency_min, 1 * S + window)
        self.assertGreaterEqual(state.latency_max, 4 * S)
        self.assertLessEqual(state.latency_max, 4 * S + window)
        self.assertGreaterEqual(state.last_latency, 2 * S)
        self.assertLessEqual(state.last_latency, 2 * S + window)
        # Exact relations between the registers, whatever the arrival times:
        self.assertEqual(state.latency_sum,
                         state.latency_min + state.latency_max + state.last_latency)
        self.assertEqual(state.jitter_sum, 2 * state.latency_max - state.latency_min
                         - state.last_latency)
        self.assertLess(window, 1 * S)


class LatencyHistogramPlacement(LatencyTest):
    def runTest(self) -> None:
        self.tester.clear_stream(10)
        self.tester.set_latency_bins([0, S // 2, 2 * S, 3 * S, 10 * S])
        self.send_with_latencies(10, [1 * S, 1 * S, int(2.5 * S), 5 * S, 5 * S, 5 * S, 20 * S])
        expected = [0] * HIST_CELLS_PER_STREAM
        expected[1], expected[2], expected[3], expected[HIST_OUTSIDE_BIN] = 2, 1, 3, 1
        self.assertEqual(self.histogram(names.LATENCY_HIST, 10), expected)


class LatencyBinsResetAtRunTime(LatencyTest):
    """New edges take effect for the next frame; cells already counted stay."""

    def runTest(self) -> None:
        self.tester.clear_stream(10)
        self.tester.set_latency_bins([0, 2 * S, 10 * S])
        self.send_with_latencies(10, [1 * S, 5 * S])
        self.tester.set_latency_bins([0, S // 2, 3 * S, 8 * S, 30 * S])
        self.send_with_latencies(10, [1 * S, 5 * S, 20 * S], first_seq=2)
        expected = [0] * HIST_CELLS_PER_STREAM
        expected[0] = 1          # 1 s under the old edges
        expected[1] = 1 + 1      # 5 s under the old edges, 1 s under the new ones
        expected[2] = 1          # 5 s under the new edges
        expected[3] = 1          # 20 s under the new edges
        self.assertEqual(self.histogram(names.LATENCY_HIST, 10), expected)


class LatencyBinsPerStreamOverride(LatencyTest):
    def runTest(self) -> None:
        self.tester.set_latency_bins([0, 2 * S, 10 * S])
        self.tester.set_latency_bins([0, 30 * S], stream_id=11)
        self.send_with_latencies(10, [5 * S])
        self.send_with_latencies(11, [5 * S])
        wildcard = [0] * HIST_CELLS_PER_STREAM
        wildcard[1] = 1
        override = [0] * HIST_CELLS_PER_STREAM
        override[0] = 1
        self.assertEqual(self.histogram(names.LATENCY_HIST, 10), wildcard)
        self.assertEqual(self.histogram(names.LATENCY_HIST, 11), override)


class QueueDepthHistogram(LatencyTest):
    """Only DUT-stamped frames count, in the bin of the depth the DUT wrote."""

    def runTest(self) -> None:
        self.tester.clear_stream(12)
        self.tester.set_qdepth_bins([0, 1, 5, 100])
        stamped = [0, 3, 4, 50, 200]
        frames = [
            self.tester_frame(TesterHeader(stream_id=12, seq=i, flags=TESTER_FLAG_DUT_STAMPED,
                                           dut_qdepth=depth))
            for i, depth in enumerate(stamped)
        ]
        frames.append(self.tester_frame(TesterHeader(stream_id=12, seq=5, dut_qdepth=3)))
        self.send_frames(frames)
        expected = [0] * HIST_CELLS_PER_STREAM
        expected[0], expected[1], expected[2], expected[HIST_OUTSIDE_BIN] = 1, 2, 1, 1
        self.assertEqual(self.histogram(names.QDEPTH_HIST, 12), expected)
        self.assertEqual(self.registers(12).rx_samples, 6)
