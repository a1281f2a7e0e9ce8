"""Generator: replication count and frame size per stream, contiguous sequence
numbers from the initial one, TX timestamps, exact budgets, stop."""

from __future__ import annotations

import time
from itertools import pairwise
from statistics import median

from p4tester.dataplane import names
from p4tester.dataplane.program import pacer_port
from p4tester.streams.template import FrameSpec, build_template

from tester_base import PORT_A, PORT_B, PORT_C, TesterBaseTest, param

SEEDS = 4
# PoissonArrivalsAreThinnedPasses: a gap this many loop steps long is a host stall.
STALL_STEPS = 40


class GeneratorTest(TesterBaseTest):
    """Runs streams through the paced loop and collects what leaves the TX port."""

    def start(self, stream_id: int, tx_port: int, frame_size: int, budget: int,
              rate_pps: int, initial_seq: int = 0) -> None:
        self.tester.configure_stream(stream_id, tx_port)
        self.set_queue_rate(pacer_port(stream_id), rate_pps)
        self.tester.clear_stream(stream_id, initial_seq)
        self.tester.start_stream(stream_id, budget)
        template = build_template(FrameSpec(stream_id=stream_id, frame_size=frame_size))
        self.tester.seed_stream(stream_id, template, SEEDS)

    def run_stream(self, stream_id: int, tx_port: int, frame_size: int, budget: int,
                   rate_pps: int = 500, initial_seq: int = 0) -> list[bytes]:
        self.start(stream_id, tx_port, frame_size, budget, rate_pps, initial_seq)
        frames = self.receive_frames(tx_port, budget, timeout_s=2.0 + 2.0 * budget / rate_pps)
        self.assert_no_more_frames(tx_port)
        return frames

    def after_old_seeds(self, stream: int, port: int, old: tuple[int, int],
                        new: tuple[int, int]) -> list[bytes]:
        """A 3-frame trial of 512-B frames with (epoch, run) `old`, its seeds left queued
        behind a 50 pps pacer, then a 20-frame trial of 128-B frames with `new`: the
        frames the second trial sent (with the old seeds' epoch and run they would be
        512 B)."""
        self.tester.configure_stream(stream, port)
        self.set_queue_rate(pacer_port(stream), 50)
        self.tester.clear_stream(stream)
        self.tester.start_stream(stream, 3, epoch=old[0], run=old[1])
        self.tester.seed_stream(stream, build_template(FrameSpec(
            stream_id=stream, frame_size=512, epoch=old[0], run=old[1])), SEEDS)
        self.assertEqual(len(self.receive_frames(port, 3)), 3)
        # The start before the clear: nothing stopped the old seeds, and a clear first
        # would let one pass under its own trial's entry with the count back at 0 and
        # make a 4th frame of that trial (seen on a busy host, where the two writes
        # lie further apart). A run stops a trial's streams before it clears them.
        self.tester.start_stream(stream, 20, epoch=new[0], run=new[1])
        self.tester.clear_stream(stream)
        self.set_queue_rate(pacer_port(stream), 500)
        self.tester.seed_stream(stream, build_template(FrameSpec(
            stream_id=stream, frame_size=128, epoch=new[0], run=new[1])), SEEDS)
        frames = self.receive_frames(port, 20)
        self.assert_no_more_frames(port)
        return frames


class ReplicationCountAndSize(GeneratorTest):
    """Each stream sends exactly its budget, at its own frame size, on its own port."""

    def runTest(self) -> None:
        streams = [(0, PORT_A, 64, 20), (5, PORT_B, 1518, 12), (63, PORT_C, 9216, 3)]
        for stream_id, port, size, budget in streams:
            self.start(stream_id, port, size, budget, rate_pps=400)
        for stream_id, port, size, budget in streams:
            frames = self.receive_frames(port, budget, timeout_s=5.0)
            self.assert_no_more_frames(port)
            self.assertEqual(len(frames), budget, f"stream {stream_id}")
            self.assertEqual({len(f) for f in frames}, {size - 4}, f"stream {stream_id}")
            self.assertEqual({self.header_of(f).stream_id for f in frames}, {stream_id})
        tx = self.tester.read_counter(names.TX_STREAM)
        for stream_id, _port, size, budget in streams:
            self.assertEqual(tx[stream_id].packets, budget)
            self.assertEqual(tx[stream_id].bytes, budget * (size - 4))
            state = self.tester.read_stream_registers(stream_id)
            self.assertEqual(state.generated, budget)
            self.assertEqual(state.tx_next_seq, budget)


class SequenceContiguousFromZero(GeneratorTest):
    def runTest(self) -> None:
        frames = self.run_stream(stream_id=7, tx_port=PORT_A, frame_size=128, budget=40)
        self.assertEqual([self.header_of(f).seq for f in frames], list(range(40)))


class SequenceWrapsAt32Bits(GeneratorTest):
    """A trial may start anywhere in the sequence space; numbers wrap at 2^32."""

    def runTest(self) -> None:
        frames = self.run_stream(stream_id=2, tx_port=PORT_B, frame_size=64, budget=4,
                                 initial_seq=2**32 - 2)
        self.assertEqual([self.header_of(f).seq for f in frames], [2**32 - 2, 2**32 - 1, 0, 1])


class TxTimestampsFollowTheRate(GeneratorTest):
    """TX timestamps never go backwards and are spaced by the paced rate."""

    def runTest(self) -> None:
        rate = 200
        frames = self.run_stream(stream_id=3, tx_port=PORT_A, frame_size=64, budget=30,
                                 rate_pps=rate)
        stamps = [self.header_of(f).tx_ts for f in frames]
        self.assertEqual(len(stamps), 30)
        gaps = [b - a for a, b in pairwise(stamps)]
        self.assertTrue(all(g >= 0 for g in gaps), f"timestamps went backwards: {stamps}")
        # The median gap: a stall of BMv2 delays a frame and bunches the few after it
        # (its queue lets frames it is late for go at once), which moves a mean over the
        # run by the first frame's delay alone, and the median not.
        self.assertAlmostEqual(median(gaps), 1e6 / rate, delta=0.05 * 1e6 / rate, msg=gaps)


class StopEndsTheStream(GeneratorTest):
    """After stop, nothing more leaves; every frame that left was counted once."""

    def runTest(self) -> None:
        self.start(stream_id=9, tx_port=PORT_C, frame_size=64, budget=1_000_000, rate_pps=100)
        time.sleep(0.5)
        self.tester.stop_stream(9)
        frames = self.receive_frames(PORT_C, 1_000, timeout_s=1.5)
        self.assert_no_more_frames(PORT_C)
        self.assertGreater(len(frames), 10)
        self.assertLess(len(frames), 200)
        self.assertEqual([self.header_of(f).seq for f in frames], list(range(len(frames))))
        self.assertEqual(self.tester.read_counter(names.TX_STREAM)[9].packets, len(frames))
        self.assertEqual(self.tester.read_stream_registers(9).generated, len(frames))


class ReconfiguredStreamReplicatesOnce(GeneratorTest):
    """Configuring a stream again (new TX port), here across a pipeline push that
    BMv2's multicast engine outlives, replaces its replication: the budget is
    exact and every frame leaves on the new port only."""

    def runTest(self) -> None:
        self.tester.configure_stream(4, PORT_A)
        self.client.set_pipeline(self.schema, param(self.json_param))
        frames = self.run_stream(stream_id=4, tx_port=PORT_B, frame_size=64, budget=30)
        self.assertEqual([self.header_of(f).seq for f in frames], list(range(30)))
        self.assert_no_more_frames(PORT_A)
        self.assertEqual(self.tester.read_counter(names.TX_STREAM)[4].packets, 30)


class TemplatesOfAnotherRunDie(GeneratorTest):
    """Seeds still circulating from the run before (its value 0x31, epoch 0) do not
    join this run's first trial (value 0x32, epoch 0 as well)."""

    def runTest(self) -> None:
        frames = self.after_old_seeds(5, PORT_A, old=(0, 0x31), new=(0, 0x32))
        self.assertEqual({len(f) for f in frames}, {124})
        self.assertEqual({self.header_of(f).run for f in frames}, {0x32})
        self.assertEqual([self.header_of(f).seq for f in frames], list(range(20)))


class StaleTemplatesDieAtTheNextTrial(GeneratorTest):
    """Seeds left circulating from a trial with another frame size (epoch 1) do
    not join the next trial (epoch 2): it sends only its own frames."""

    def runTest(self) -> None:
        frames = self.after_old_seeds(6, PORT_A, old=(1, 0), new=(2, 0))
        self.assertEqual({len(f) for f in frames}, {124})
        self.assertEqual([self.header_of(f).seq for f in frames], list(range(20)))


class SeveralFramesPerLoopPass(GeneratorTest):
    """With k frames per pass, each pass of the loop makes k TX frames: the budget is
    still exact (the last pass keeps only what is left), the numbers contiguous, and
    the TX port's queue, at k times the pacing rate, spaces the frames evenly."""

    def runTest(self) -> None:
        stream, port, per_pass, budget, rate = 11, PORT_B, 4, 30, 400
        self.tester.configure_stream(stream, port, frames_per_pass=per_pass)
        self.set_queue_rate(pacer_port(stream), rate // per_pass)
        self.set_queue_rate(port, rate)
        self.tester.clear_stream(stream)
        self.tester.start_stream(stream, budget, frames_per_pass=per_pass)
        self.tester.seed_stream(stream, build_template(FrameSpec(stream_id=stream,
                                                                 frame_size=64)), SEEDS)
        frames = self.receive_frames(port, budget + 1, timeout_s=3.0)
        self.assertEqual([self.header_of(f).seq for f in frames], list(range(budget)))
        # The full passes' frames: the last pass's unneeded replicas still take their
        # turn in the TX queue before egress drops them (one gap, once a trial).
        stamps = [self.header_of(f).tx_ts for f in frames][: budget - budget % per_pass]
        gaps = [b - a for a, b in pairwise(stamps)]
        # 2.5 ms apart at 400 frames/s; without the TX queue, 3 of every 4 gaps would
        # be back to back (a few us). The median, not the smallest: a frame the busy
        # host stamped late shortens the gap after it (seen: 1227 us once in a CI run
        # with one core held busy) and says nothing of the pacing.
        self.assertGreater(median(gaps), 0.9 * 1e6 / rate, gaps)
        # Evenly: the frames of a pass after its first span 2 gaps. A pass's frames enter
        # the TX queue at once, each due at its place in the queue's schedule; its first
        # goes when BMv2's egress thread wakes for it, 1 to 3 ms after it was due on this
        # 2-core VM, quiet (measured: whole-pass spans 5833-6030 us against 7500 for the
        # first pass, medians 6648 in a failed run), so the first frame's time is the
        # wake's, not the pacing's; the 2nd to 4th held 5000 us within 1 % in 27 of 28
        # passes. BMv2 lets a frame it is late for go at once, so a host that stalls it
        # shortens only the pass it hit: judged by the median pass of seven.
        spans = [stamps[start + per_pass - 1] - stamps[start + 1]
                 for start in range(0, len(stamps), per_pass)]
        self.assertAlmostEqual(median(spans), (per_pass - 2) * 1e6 / rate,
                               delta=0.05 * (per_pass - 2) * 1e6 / rate, msg=spans)
        state = self.tester.read_stream_registers(stream)
        self.assertEqual((state.generated, state.tx_next_seq), (budget, budget))
        self.assertEqual(self.tester.read_counter(names.TX_STREAM)[stream].packets, budget)
        # The port counts what left it: not the 2 replicas the last pass dropped.
        self.assertEqual(self.tester.read_counter(names.TX_PORT)[port].packets, budget)


class BurstsAreOnePassEach(GeneratorTest):
    """A bursts shape (streams.shapes) makes its burst in one loop pass: the pass's
    frames leave back to back at the TX queue's rate (the port's line rate), and the
    next burst waits for the next pass of the slower loop."""

    def runTest(self) -> None:
        stream, port, burst, bursts = 12, PORT_B, 16, 3
        # 1 ms apart in a burst, a burst every 200 ms. A burst's frames enter the idle TX
        # queue at once, and BMv2's egress thread takes 1 to 3 ms on this 2-core VM to
        # wake for the first (a quiet host; measured): the frames already due then leave
        # back to back. At 250 us apart that was up to 12 of a burst's 15 gaps (median
        # inside a burst 40-145 us in three attempts); at 1 ms it is 1 to 3 of them.
        line_pps, loop_pps = 1000, 5
        self.tester.configure_stream(stream, port, frames_per_pass=burst)
        self.set_queue_rate(pacer_port(stream), loop_pps)
        self.set_queue_rate(port, line_pps)
        self.tester.clear_stream(stream)
        budget = burst * bursts
        self.tester.start_stream(stream, budget, frames_per_pass=burst)
        self.tester.seed_stream(stream, build_template(FrameSpec(stream_id=stream,
                                                                 frame_size=64)), SEEDS)
        frames = self.receive_frames(port, budget + 1, timeout_s=3.0)
        self.assertEqual([self.header_of(f).seq for f in frames], list(range(budget)))
        stamps = [self.header_of(f).tx_ts for f in frames]
        gaps = [b - a for a, b in pairwise(stamps)]
        # The gaps between bursts: 200 ms less the burst's own 15 x 1 ms; a gap inside
        # a burst is 1 ms (a host that stalled egress 100 ms inside a 15-ms burst is
        # what this would catch).
        between = [index for index, gap in enumerate(gaps) if gap > 0.5e6 / loop_pps]
        self.assertEqual(between, [burst - 1, 2 * burst - 1], gaps)
        inside = [gap for index, gap in enumerate(gaps) if index not in between]
        self.assertAlmostEqual(median(inside), 1e6 / line_pps, delta=0.1 * 1e6 / line_pps,
                               msg=gaps)
        for index in between:
            self.assertAlmostEqual(gaps[index], 1e6 / loop_pps - (burst - 1) * 1e6 / line_pps,
                                   delta=0.2 * 1e6 / loop_pps)
        self.assertEqual(self.tester.read_counter(names.TX_PORT)[port].packets, budget)


class PoissonArrivalsAreThinnedPasses(GeneratorTest):
    """A Poisson shape (streams.shapes): the loop runs 4 times faster than the frames
    and each pass sends with probability 1/4 (a random draw in ingress). The budget is
    exact; the gaps are geometric on the loop's 2.5-ms grid: mean 10 ms, a quarter of
    them one grid step, coefficient of variation sqrt(3/4) = 0.87 (a constant stream's
    is about 0). The grid is coarse on purpose: a busy host moves BMv2's passes by a
    few hundred us and lets them catch up after a stall, which on a 625-us grid moved
    gaps across a step's edge (a quarter became 0.14 in a CI run on a busy host); on
    2.5 ms that is a tenth of a step.

    The thinning itself is judged in loop passes, not in time: an unthinned companion
    loop at the same pace counts the passes the thinned one made. A busy host stalls
    BMv2 and its queues then let the late passes go at once, which shortens the gaps
    after a stall (the mean gap came out 8425 us in a busy CI run) but makes every
    loop catch up alike, so passes per frame stay 4."""

    def runTest(self) -> None:
        stream, port, budget, rate, grid = 13, PORT_B, 400, 100, 4
        companion, companion_port = 14, PORT_C
        for each, each_port in ((stream, port), (companion, companion_port)):
            self.tester.configure_stream(each, each_port)
            self.set_queue_rate(pacer_port(each), rate * grid)
            self.set_queue_rate(each_port, 0)
            self.tester.clear_stream(each)
        # The companion makes a frame every pass; its budget outlasts the thinned
        # stream's (1600 passes expected, 4.3 % standard deviation).
        self.tester.start_stream(companion, 3 * budget * grid)
        self.tester.start_stream(stream, budget, passes_per_emit=grid)
        for each in (companion, stream):
            self.tester.seed_stream(each, build_template(FrameSpec(stream_id=each,
                                                                   frame_size=64)), SEEDS)
        frames = self.receive_frames(port, budget, timeout_s=8.0)
        # Read as soon as the thinned stream's last frame is in: the read's few ms
        # are a few passes of the ~1600 counted.
        passes = self.tester.read_stream_registers(companion).generated
        self.tester.stop_stream(companion)
        frames += self.receive_frames(port, 1, timeout_s=1.0)
        self.assertEqual([self.header_of(f).seq for f in frames], list(range(budget)))
        state = self.tester.read_stream_registers(stream)
        self.assertEqual((state.generated, state.tx_next_seq), (budget, budget))
        # 400 frames: passes per frame 4 with a standard deviation of 4.3 %.
        self.assertAlmostEqual(passes / budget, grid, delta=0.15 * grid, msg=passes)
        stamps = [self.header_of(f).tx_ts for f in frames]
        step_us = 1e6 / (rate * grid)
        # A gap of STALL_STEPS grid steps or more is the host pausing the loop (the draw
        # makes one with probability 0.75^39, 1.3e-5): a busy host held BMv2 for tens of
        # ms and the loop went on from there, which made the mean 2960 us in a CI run
        # on it. Those gaps are the host's, counted and left out; a draw that made
        # long gaps itself would leave out more than the few a host does.
        all_gaps = [b - a for a, b in pairwise(stamps)]
        gaps = [gap for gap in all_gaps if gap < STALL_STEPS * step_us]
        self.assertLessEqual(len(all_gaps) - len(gaps), 0.05 * len(all_gaps), all_gaps)
        mean_us = sum(gaps) / len(gaps)
        spread = (sum((g - mean_us) ** 2 for g in gaps) / (len(gaps) - 1)) ** 0.5 / mean_us
        # 399 gaps: the coefficient's standard error is about 0.05.
        self.assertTrue(0.7 <= spread <= 1.05, (spread, gaps))
        one_step = sum(0.5 * step_us <= g < 1.5 * step_us for g in gaps) / len(gaps)
        self.assertTrue(0.15 <= one_step <= 0.35, (one_step, gaps))


class FramesPerPassOutOfRangeIsRefused(GeneratorTest):
    def runTest(self) -> None:
        with self.assertRaisesRegex(ValueError, r"frames per pass 65 is out of range: a "
                                                r"generator loop pass makes 1\.\.64 TX"):
            self.tester.configure_stream(1, PORT_A, frames_per_pass=65)
