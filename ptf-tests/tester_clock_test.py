"""The tester's clock (v1model/tester_clock.p4): a simulated offset and drift on the
TX and RX stamps alike, and a stream's TX clock correction on its TX stamps only.

The switch's own clock is read in-band (a READ reply carries it, unsimulated) before
and after the frames, so every stamp is known to within that window; the clock's
setting is a monotonic function of it, so the window's ends bound the stamps exactly.
"""

from __future__ import annotations

from p4tester.dataplane.headers import TesterHeader
from p4tester.dataplane.program import pacer_port
from p4tester.streams.template import FrameSpec, build_template

from checker_base import CheckerTest
from tester_base import PORT_A, TesterBaseTest

WRAP = 2**32
OFFSET_US = 3_000_000
CORRECTION_US = 1_000_000
DRIFT_SHIFT = 4  # gains 1/16 of the time: a drift far larger than a real clock's
FRAMES = 20
RATE_PPS = 500
SEEDS = 4


def simulated(now: int, offset: int, shift: int) -> int:
    """The stamp of switch time `now` under the setting (modulo 2^32)."""
    return (now + offset + (now >> shift if shift else 0)) % WRAP


class TxStampsCarryTheClockAndTheCorrection(TesterBaseTest):
    """Every TX stamp is the simulated clock at some time in the window, plus the
    stream's correction; a stream without one carries the simulated clock alone."""

    def now(self) -> int:
        return self.tester.read_stream_registers(0).switch_time

    def tx_stamps(self, stream_id: int, correction: int) -> tuple[list[int], int, int]:
        self.tester.configure_stream(stream_id, PORT_A)
        self.set_queue_rate(pacer_port(stream_id), RATE_PPS)
        self.tester.clear_stream(stream_id)
        before = self.now()
        self.tester.start_stream(stream_id, FRAMES, tx_clock_correction_us=correction)
        self.tester.seed_stream(stream_id, build_template(FrameSpec(stream_id=stream_id)),
                                SEEDS)
        frames = self.receive_frames(PORT_A, FRAMES, timeout_s=2.0 + 4.0 * FRAMES / RATE_PPS)
        after = self.now()
        self.assertEqual(len(frames), FRAMES)
        return [self.header_of(f).tx_ts for f in frames], before, after

    def check(self, offset: int, shift: int) -> None:
        self.tester.set_tester_clock(offset, shift)
        for stream_id, correction in ((3, CORRECTION_US), (4, 0)):
            stamps, before, after = self.tx_stamps(stream_id, correction)
            low, high = simulated(before, offset, shift), simulated(after, offset, shift)
            for stamp in stamps:
                clock = (stamp - correction) % WRAP
                self.assertTrue(low <= clock <= high,
                                f"stream {stream_id}: stamp {stamp} less correction "
                                f"{correction} is {clock}, outside [{low}, {high}]")

    def runTest(self) -> None:
        self.check(0, 0)
        self.check(OFFSET_US, 0)
        self.check(OFFSET_US, DRIFT_SHIFT)


class RxLatencyIsOnTheTestersClock(CheckerTest):
    """A frame stamped on the simulated clock L us before it was sent has latency L
    (to within the window): the checker stamps arrivals on the same clock."""

    def now(self) -> int:
        return self.tester.read_stream_registers(0).switch_time

    def runTest(self) -> None:
        latency = 5000
        for stream_id, (offset, shift) in enumerate(((OFFSET_US, 0),
                                                     (OFFSET_US, DRIFT_SHIFT)), start=20):
            self.tester.set_tester_clock(offset, shift)
            self.tester.clear_stream(stream_id)
            before = self.now()
            stamp = (simulated(before, offset, shift) - latency) % WRAP
            self.send_frames([self.tester_frame(TesterHeader(stream_id=stream_id, seq=0,
                                                             tx_ts=stamp))])
            after = self.now()
            most = (simulated(after, offset, shift) - stamp) % WRAP
            state = self.tester.read_stream_registers(stream_id)
            self.assertEqual(state.rx_samples, 1)
            self.assertTrue(latency <= state.latency_min <= most,
                            f"offset {offset}, shift {shift}: latency {state.latency_min}, "
                            f"outside [{latency}, {most}]")
            self.assertLess(most - latency, 1_000_000)
        self.tester.set_tester_clock(0, 0)
