"""Micro-bursts (issue 24, item 5): the bursts shape (streams.shapes), how BMv2 plans it
(one burst per generator pass, the port at line rate), how the eBPF target paces it, how
a trial proves it offered it, and what a buffered DUT makes of it (simulated)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_stream_plan import PROFILE, TOPOLOGY  # 5-Mbit/s ports: 7440 frames/s at 64 B

from p4tester.config.errors import ConfigError
from p4tester.dataplane.constants import MAX_FRAMES_PER_PASS
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.simulated_runner import SimulatedDut, SimulatedRunner
from p4tester.experiments.traffic_shape import ShapeConfig, ShapeResult, run_shape
from p4tester.results.model import RateStep
from p4tester.streams.rates import line_rate_pps
from p4tester.streams.shapes import (
    MAX_BURST_FRAMES,
    ShapeError,
    ShapeKind,
    TrafficShape,
    shape_steps,
)
from p4tester.targets.ebpf.sender import SendReport
from p4tester.targets.ebpf.tester import MAX_COPIES
from p4tester.targets.ebpf.trials import (
    EbpfStreamPlan,
    check_burst_spacing,
    merged_bursts,
    sender_bursts,
)
from p4tester.tester.rate_course import course_not_offered
from p4tester.tester.stream_plan import plan_streams, port_shaping, shaped_plans

BURSTS_32 = TrafficShape(ShapeKind.BURSTS, burst_frames=32)


def test_the_bursts_shape_reads_writes_and_keeps_the_load() -> None:
    shape = TrafficShape.parse("bursts,frames=32")
    assert shape == BURSTS_32
    assert shape.describe() == "bursts,frames=32"
    assert shape.frames_per_burst == 32
    assert TrafficShape(ShapeKind.SINE, amplitude=0.5).frames_per_burst == 1
    # Its rate is the load: one step of 1 x the load whatever the step.
    assert [s.multiplier for s in shape_steps(shape, 2.0, 0.5)] == [1.0] * 4
    assert shape.highest == 1.0
    # The largest burst is both targets' largest: the eBPF program's copies of one
    # template, one BMv2 pass's frames.
    assert MAX_BURST_FRAMES == MAX_COPIES == 63 < MAX_FRAMES_PER_PASS


@pytest.mark.parametrize("text", ["bursts", "bursts,frames=1", "bursts,frames=64",
                                  "bursts,frames=2.5"])
def test_a_burst_is_2_to_63_whole_frames(text: str) -> None:
    with pytest.raises(ShapeError, match=r"must be a whole number from 2 to 63 \(the frames one "
                                         r"generator pass makes back to back\); for single "
                                         r"frames use constant"):
        TrafficShape.parse(text)


def test_bmv2_makes_a_burst_per_pass_and_opens_the_port_to_line_rate() -> None:
    # 40 % of 7440 frames/s: 1488.1 per half-share stream, 2976.2 for stream 2.
    spec = TrialSpec("t", 0, 64, 0.4, 2.0, shapes=((0, BURSTS_32),), shape_step_s=1.0)
    plans, schedule = shaped_plans(plan_streams(PROFILE, TOPOLOGY, spec), TOPOLOGY, spec)
    assert [(p.stream.id, p.rate_pps, p.frames_per_pass, p.loop_pps, p.budget,
             p.burst_line_pps) for p in plans] == [
        # 32 x round(46.5) = 1504 (whole bursts): 47 bursts a second.
        (0, 1504, 32, 47, 3008, 7440),
        (1, 1488, 4, 372, 2976, 0),
        (2, 2976, 4, 744, 5952, 0)]
    assert schedule is not None
    assert [(s.key, s.rates_pps, s.frames, s.burst_frames) for s in schedule.senders] == [
        (0, (1504, 1504), (1504, 1504), 32)]
    # Port 1 carries the bursts: its queue lets them out at line rate; port 2's stream
    # is spread by its own rate with the shaped trial's zero headroom.
    assert port_shaping(plans, headroom=0.0) == {1: 7440, 2: 2976}


def test_a_bursts_rate_never_rounds_above_the_streams_line_rate() -> None:
    # 100 % of a half share: 3720.2 frames/s; 32 x round(116.26) = 3712, under it.
    spec = TrialSpec("t", 0, 64, 1.0, 1.0, shapes=((2, BURSTS_32),), shape_step_s=1.0)
    plans = plan_streams(PROFILE, TOPOLOGY, spec)
    assert [(p.rate_pps, p.frames_per_pass) for p in plans] == [(3720, 4), (3720, 4),
                                                                (7424, 32)]


def test_a_trial_of_bursts_may_be_one_burst_off_its_rate_at_any_read() -> None:
    # 1000 frames/s in bursts of 32, read every 0.1 s: a read may fall just before or
    # just after a burst. The constant allowance (16 frames) would call that a stall.
    step = RateStep(0.0, 1.0, 1000.0, sent_pps=1000.0, received_pps=1000.0, measured_s=0.9,
                    max_burst_frames=40)
    assert course_not_offered(0, [step], 0.1, burst_frames=32) == ""
    assert course_not_offered(0, [step], 0.1) == (
        "stream 0 sent 40 frames beyond its 1000 frames/s in one 0.1-s interval of step 0 "
        "(its generator stalled and caught up; 16 allowed)")
    # Beyond a burst and the allowance it is still the tester's stall.
    stalled = RateStep(0.0, 1.0, 1000.0, sent_pps=1000.0, received_pps=1000.0,
                       measured_s=0.9, max_burst_frames=49)
    assert "49 frames beyond" in course_not_offered(0, [stalled], 0.1, burst_frames=32)
    # A rate measured between reads inside bursts: 31 frames short of 900 over 0.9 s.
    short = RateStep(0.0, 1.0, 1000.0, sent_pps=(900 - 31) / 0.9, received_pps=0.0,
                     measured_s=0.9)
    assert course_not_offered(0, [short], 0.1, burst_frames=32) == ""
    assert course_not_offered(0, [short], 0.1).startswith("stream 0 offered 966 frames/s")


def test_ebpf_bursts_must_be_a_sender_slot_apart() -> None:
    check_burst_spacing({0: 32}, {0: 32_000.0})  # a burst each millisecond: the slot
    with pytest.raises(ConfigError, match=r"stream 0: bursts of 16 frames at 32000 frames/s "
                                          r"come every 0\.50 ms; the eBPF sender sends in 1-ms "
                                          r"slots, so bursts that close would merge: use bursts "
                                          r"of at least 32 frames or a lower load"):
        check_burst_spacing({0: 16}, {0: 32_000.0})


def test_a_buffered_dut_loses_what_each_burst_overflows() -> None:
    # A DUT forwarding half of line rate with 10 frames of buffer (640 B at 64 B):
    # a burst of 32 at line rate sends 16 on, queues 16, drops 6; at a mean of 25 % of
    # line rate the queue is empty again before the next burst.
    dut = SimulatedDut(capacity_by_size=lambda size: 0.5, buffer_bytes=640)
    config = ShapeConfig(64, 0.25, 2.0, ((0, BURSTS_32),), step_s=1.0)
    result = run_shape(config, Recorder(SimulatedRunner(dut)))
    (stream,) = result.shaped_streams()
    per_step = round(0.25 * line_rate_pps(10e9, 64))  # 3720238 frames
    bursts = per_step // 32  # 116257
    assert stream.tx_frames == 2 * per_step
    assert stream.lost == 2 * bursts * 6
    assert [s.received_pps for s in stream.rate_course] == pytest.approx(
        [per_step - bursts * 6] * 2)
    # The deepest queue is the buffer: its last frame waited 10 service times.
    assert stream.latency is not None
    assert stream.latency.max_us - stream.latency.min_us == pytest.approx(
        10 * 1e6 / (0.5 * line_rate_pps(10e9, 64)))


def test_ebpf_bursts_the_sender_wrote_together_leave_the_trial_unvouched() -> None:
    bursty = EbpfStreamPlan(PROFILE.streams[0], 1000.0, 2000, 32, b"t", bursts=True)
    steady = EbpfStreamPlan(PROFILE.streams[2], 20000.0, 40000, 2, b"t")
    on_time = SendReport(1000, 2.0, 0.0004, 0, most_at_once=(1, 9))
    # The steady stream's templates come many to a slot by design: not a burst.
    assert merged_bursts([bursty, steady], on_time) == ""
    late = SendReport(1000, 2.0, 0.0412, 0, most_at_once=(2, 9))
    assert merged_bursts([bursty, steady], late) == (
        "stream 0: the sender fell 41.2 ms behind and wrote 2 of its bursts of 32 frames "
        "back to back")
    assert merged_bursts([bursty], None) == ""


def test_ebpf_sender_bursts_are_what_it_wrote_at_once_beyond_a_slot() -> None:
    """20 208 frames/s in templates of 3 copies: 6736 templates/s, 7 due in a 1-ms slot
    and one to round up. 55 at once (the sender 7 ms behind, on the router lab) is 47
    templates, 141 frames, beyond; 8 at once is none. A bursts stream is left to
    merged_bursts, a shaped one to its steps."""
    steady = EbpfStreamPlan(PROFILE.streams[0], 20208.0, 40416, 3, b"t")
    other = EbpfStreamPlan(PROFILE.streams[1], 20208.0, 40416, 3, b"t")
    bursty = EbpfStreamPlan(PROFILE.streams[2], 1000.0, 2000, 32, b"t", bursts=True)
    shaped = EbpfStreamPlan(PROFILE.streams[2], 1000.0, 2000, 1, b"t",
                            steps=((0.0, 500.0), (1.0, 1500.0)))
    report = SendReport(27000, 2.0, 0.0072, 0, most_at_once=(55, 8, 3, 40))
    assert sender_bursts([steady, other, bursty, shaped], report) == {
        PROFILE.streams[0].id: 141, PROFILE.streams[1].id: 0}
    assert sender_bursts([steady], None) == {}


def test_a_burst_still_in_the_dut_at_a_steps_last_read_is_not_a_lossy_step() -> None:
    config = ShapeConfig(64, 0.25, 2.0, ((0, BURSTS_32),), step_s=1.0)
    result = run_shape(config, Recorder(SimulatedRunner(SimulatedDut(
        capacity_by_size=lambda size: 1.0))))
    (stream,) = result.shaped_streams()
    # Measured on BMv2 (bursts of 32 into a queue draining at 3000 frames/s): 1508 sent
    # and 1479 received over a step's 0.4 s of reads is 11.6 frames, a burst's tail.
    held = RateStep(0.0, 0.5, 1504.0, 1508.0, 1479.0, 0.4)
    lost = RateStep(0.5, 0.5, 1504.0, 1508.0, 1400.0, 0.4)  # 43 frames: more than a burst
    shaped = replace(stream, rate_course=(held, lost))
    assert result.lossy_steps(shaped) == (1,)
    constant = ShapeResult(replace(config, shapes=((0, TrafficShape()),)), result.trial)
    assert constant.lossy_steps(shaped) == (0, 1)


def test_a_step_may_repay_what_the_step_before_fell_short() -> None:
    # A CI run on a busy host: 1592 of 1600 frames/s over 0.961 s (7.6 frames behind,
    # within 2 %), then 410 of 400 over 0.934 s (9.4 frames ahead, 7.5 allowed alone).
    behind = RateStep(1.0, 1.0, 1600.0, sent_pps=1592.07, received_pps=1000.0,
                      measured_s=0.961013, max_burst_frames=1)
    repaid = RateStep(2.0, 1.0, 400.0, sent_pps=410.08, received_pps=475.0,
                      measured_s=0.933966, max_burst_frames=9)
    assert course_not_offered(0, [behind, repaid], 0.05) == ""
    # Alone, or after a step that kept its rate, the same step sent more than asked.
    on_time = replace(behind, sent_pps=1600.0)
    expected = ("stream 0 offered 410 frames/s in step 1 (from 2 s), not its 400 "
                "(measured on the switch's clock over 0.93 s)")
    assert course_not_offered(0, [on_time, repaid], 0.05) == expected
    # What was owed repays an excess, never a shortfall.
    short = replace(repaid, sent_pps=390.0)
    assert course_not_offered(0, [behind, short], 0.05) == expected.replace("410", "390")
    # Nor more than was owed: 8 frames owed, 7.5 allowed, 16.5 ahead.
    ahead = replace(repaid, sent_pps=(373.6 + 16.5) / 0.933966)
    assert course_not_offered(0, [behind, ahead], 0.05).startswith(
        "stream 0 offered 418 frames/s in step 1")
