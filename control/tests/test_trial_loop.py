"""The one trial loop (tester.trial_loop) over a fake target: the order a trial runs
in, the self-check of the tester's ports, the proof of the offered load, a switch
that stops answering, and a target's own reason not to vouch. Time passes only in
the loop's sleep."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest

from p4tester.dataplane.program import SwitchUnansweredError
from p4tester.experiments.runner import TrialSpec
from p4tester.p4rt import CounterValue
from p4tester.results.latency import log_bin_edges, with_lower_bounds
from p4tester.results.model import Histogram, LatencyStats, StreamStats, TrialResult
from p4tester.streams.shapes import ShapeKind, TrafficShape
from p4tester.tester.dut_queue import STEADY_SHARE
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.rate_schedule import build_schedule
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_course import StreamSample
from p4tester.tester.trial_loop import (
    IDLE_MAX_S,
    IDLE_READ_S,
    ArmedTrial,
    Extras,
    RxKinds,
    TrialLoop,
)

BUDGET = 200  # frames: 1 s at 200 frames/s
SPEC = TrialSpec("throughput", 0, 64, 0.5, 1.0)
TICKS_PER_S = 1_000_000  # the fake switch clock: microseconds
EARLIER_PPS = 100  # a draining DUT's frames of an earlier trial (FakeTarget.drains_until)


class FakeTarget:
    """One stream from port 1 to port 2 over a perfect wire; `lost_in_switch` of the
    frames port 2 delivered never reach the program; `stall_s`: the generator sends
    nothing for that long, then catches up at once; `sender_burst`: what the target's
    own sender says it wrote at once beyond the rate (between two samples); `held`
    frames the program counted sent stay in the switch's send path until `held_for_s`
    after the generator stopped (BMv2's output buffer on a starved host)."""

    poll_s = 0.1
    drain_s = 0.5
    settle_s = 0.0
    settle_max_s = 10.0
    host_bound = False
    queues_input = True  # as a BMv2 switch: the opening edge waits until it is idle
    dut_between = True

    def __init__(self, *, lost_in_switch: int = 0, stall_s: float = 0.0,
                 unanswered_at: str = "", reference_lost: str = "",
                 sender_burst: int = 0, held: int = 0, held_for_s: float = 0.0,
                 takes_in_while_read: int | None = None) -> None:
        self.now = 0.0
        # Frames port 2 delivered earlier that the program takes in while an edge is
        # read (a starved switch working through its input queue); None: the target
        # does not read its port counts again.
        self.takes_in_while_read = takes_in_while_read
        self.held = held
        self.held_for_s = held_for_s
        self.stopped_at: float | None = None
        self.sent = 0
        self.lost_in_switch = lost_in_switch
        self.stall_s = stall_s
        self.unanswered_at = unanswered_at
        self.reference_lost = reference_lost
        self.sender_burst = sender_burst
        self.calls: list[str] = []

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def port_names(self) -> Mapping[int, str]:
        return {1: "p1", 2: "p2"}

    def on_wire(self) -> int:
        """Frames that left port 1 (and reached port 2) so far."""
        if self.stopped_at is not None and self.now >= self.stopped_at + self.held_for_s:
            return self.sent
        return max(self.sent - self.held, 0)

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        return {1: InterfaceCounters(0, self.on_wire(), 0, 0),
                2: InterfaceCounters(self.on_wire() + self.earlier_frames(), 0, 0, 0)}

    # A DUT still delivering an earlier trial's frames, EARLIER_PPS from 0 until this
    # time (stale to the trial armed meanwhile).
    drains_until = 0.0

    def earlier_frames(self) -> int:
        return round(min(self.now, self.drains_until) * EARLIER_PPS)

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return self.read_program()

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        received = max(0, self.on_wire() - self.lost_in_switch)
        earlier = self.earlier_frames()
        snapshot = CounterSnapshot({"rx": {0: CounterValue(received, 64 * received)},
                                    "earlier": {0: CounterValue(earlier, 64 * earlier)}})
        at_end = (None if self.takes_in_while_read is None
                  else {2: received + earlier + self.takes_in_while_read})
        return snapshot, ProgramPortCounts(rx={2: received + earlier}, tx={1: self.sent},
                                           rx_at_end=at_end)

    def arm(self, spec: TrialSpec) -> ArmedTrial:
        self.calls.append("arm")
        return ArmedTrial((Sender(0, BUDGET, 200.0),), 200.0)

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        self.calls.append("start")
        self.started = self.now

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        if self.unanswered_at == "poll":
            raise SwitchUnansweredError("register read", 0, 2.0)
        running = self.now - self.started
        self.sent = 0 if running < self.stall_s else min(BUDGET, round(running * 200))
        return {0: SentReading(self.sent, self.sent,
                               StreamSample(round(self.now * TICKS_PER_S), self.sent))}

    def stop(self, trial: ArmedTrial) -> None:
        self.calls.append("stop")
        self.stopped_at = self.now

    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds:
        stale = after.cell("earlier", 0).packets - before.cell("earlier", 0).packets
        return RxKinds(0, stale, 0, stale, stale)

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        if self.unanswered_at == "figures":
            raise SwitchUnansweredError("register read", 0, 2.0)
        rx = after.cell("rx", 0).packets - before.cell("rx", 0).packets
        return (StreamStats(0, 64, self.sent, rx, 64 * rx, 0, 0, 0, 0),)

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras:
        return Extras(unvouched=self.reference_lost, sender_bursts={0: self.sender_burst})


def run(target: FakeTarget) -> tuple[TrialLoop, TrialResult]:
    loop = TrialLoop(target, sleep=target.sleep, clock=lambda: target.now)
    return loop, loop.run_trial(SPEC)


def test_a_clean_trial_is_vouched_for_with_its_load_proven() -> None:
    target = FakeTarget()
    _, result = run(target)
    assert target.calls == ["arm", "start", "stop"]
    assert result.valid and result.error is None
    assert result.self_check.ok
    assert result.offered_pps_measured == 200.0
    assert [(s.tx_frames, s.rx_frames) for s in result.streams] == [(200, 200)]


def test_frames_the_switch_lost_itself_are_the_testers_not_the_duts() -> None:
    _, result = run(FakeTarget(lost_in_switch=3))
    assert result.invalid_reason == "tester-limited"
    assert result.error == ("tester-limited: port 2: 3 of 200 frames p2 received never "
                            "reached the program")


def test_frames_still_in_the_testers_send_path_are_waited_for() -> None:
    """60 frames the program counted sent leave port 1 only 0.7 s after the generator
    stopped: the closing edge after the 0.5-s drain sees them missing from the port,
    re-reads 0.2 s later and counts all 200 received."""
    target = FakeTarget(held=60, held_for_s=0.7)
    _, result = run(target)
    assert result.valid and result.error is None
    assert [(s.tx_frames, s.rx_frames) for s in result.streams] == [(200, 200)]


def test_a_switch_taking_in_nothing_while_read_is_vouched_for() -> None:
    _, result = run(FakeTarget(takes_in_while_read=0))
    assert result.valid and result.error is None


def test_a_switch_still_taking_in_frames_while_read_leaves_the_trial_unvouched() -> None:
    """Its figures moved as they were read, at every re-read: the stream's RX is not
    one moment's, and the trial is the tester's limit."""
    _, result = run(FakeTarget(takes_in_while_read=5))
    assert result.invalid_reason == "tester-limited"
    assert result.error == (
        "tester-limited: port 2: the tester's switch took in 5 frames p2 had delivered "
        "before the trial was read while it was read (still working through them: its "
        "figures moved as they were read)")


def test_frames_the_tester_never_sent_by_its_last_read_make_it_tester_limited() -> None:
    """The same 60 frames still held after every re-read (0.5 s of drain and 3 more of
    0.2 s): the receive figure misses them, so the trial says why it cannot vouch,
    naming them; never a loss of the DUT's."""
    _, result = run(FakeTarget(held=60, held_for_s=10.0))
    assert result.invalid_reason == "tester-limited"
    assert result.error == (
        "tester-limited: port 1: 60 of the 200 frames the program sent out of it had not "
        "left p1 when the trial was read (still in the tester's switch: frames on their "
        "way were not counted); port 1: 60 of 200 frames the program sent were not sent "
        "by p1")
    assert [(s.tx_frames, s.rx_frames) for s in result.streams] == [(200, 140)]
    assert (result.self_check.rx_dropped, result.self_check.tx_dropped) == (0, 60)


def test_a_load_sent_in_a_burst_after_a_stall_is_not_the_load_asked_for() -> None:
    _, result = run(FakeTarget(stall_s=0.55))
    # The proof measures from the first sample that saw frames: 180 of them in 0.8 s.
    assert result.error == ("tester-limited: stream 0 offered 225 frames/s, not its 200 "
                            "(measured on the switch's clock over 0.80 s)")
    assert (result.offered_pps_measured, result.max_burst_frames) == (225.0, 100)
    # 100 frames at once, 16 allowed: the DUT's loss in this trial may be the burst's.
    assert result.self_check.overdriven and result.dut_loss_floor == 0


def test_a_burst_only_the_sender_saw_is_judged_as_the_samples_bursts() -> None:
    """The samples show the rate kept (the sender caught up between two of them); its
    own count of 17 frames at once beyond the rate is over the 16 allowed."""
    _, result = run(FakeTarget(sender_burst=17))
    assert result.error == ("tester-limited: stream 0 sent 17 frames beyond its 200 "
                            "frames/s in one 0.1-s interval (its generator stalled and caught "
                            "up; 16 allowed)")
    assert (result.offered_pps_measured, result.max_burst_frames) == (200.0, 17)
    assert result.self_check.overdriven
    _, result = run(FakeTarget(sender_burst=16))
    assert result.valid and result.max_burst_frames == 16
    assert not result.self_check.overdriven


def test_a_switch_that_stops_answering_gives_a_trial_without_figures() -> None:
    for where in ("poll", "figures"):
        target = FakeTarget(unanswered_at=where)
        _, result = run(target)
        assert (result.valid, result.streams) == (False, ())
        assert result.error.startswith(
            "tester-limited: the switch did not answer the in-band register read of stream 0 "
            "within 2 s: it is busy")
        assert target.calls[-1] == "stop"  # stopped even so


def test_a_targets_own_reason_makes_the_trial_unvouched() -> None:
    _, result = run(FakeTarget(reference_lost="reference stream: 2 of 100 frames lost"))
    assert result.error == "tester-limited: reference stream: 2 of 100 frames lost"


class BackloggedTarget(FakeTarget):
    """Port 2 delivered `backlog` frames before the trial that the switch takes in at
    `intake_pps` (a busy host's leftover); `arriving_pps`: frames that keep arriving until
    `arriving_s`, each taken in at once (a DUT still draining into the tester)."""

    def __init__(self, *, backlog: int = 0, intake_pps: float = 0.0, arriving_pps: float = 0.0,
                 arriving_s: float = 0.0, lost_in_switch: int = 0) -> None:
        super().__init__(lost_in_switch=lost_in_switch)
        self.backlog, self.intake_pps = backlog, intake_pps
        self.arriving_pps, self.arriving_s = arriving_pps, arriving_s

    def _from_before(self) -> tuple[int, int]:
        """(delivered, taken in) of the frames from before the trial, by now."""
        arrived = round(min(self.now, self.arriving_s) * self.arriving_pps)
        taken = min(self.backlog, round(self.now * self.intake_pps))
        return self.backlog + arrived, taken + arrived

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        delivered, _ = self._from_before()
        return {1: InterfaceCounters(0, self.sent, 0, 0),
                2: InterfaceCounters(self.sent + delivered, 0, 0, 0)}

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        snapshot, program = super().read_program()
        _, taken = self._from_before()
        return snapshot, ProgramPortCounts(rx={2: program.rx[2] + taken}, tx=program.tx)


def test_a_trial_opens_once_the_switch_took_in_its_backlog() -> None:
    """150 frames delivered before the trial, taken in at 1000 frames/s: taken in the
    trial's window they would hide the 3 frames the switch lost (the program's count
    would pass the interface's)."""
    target = BackloggedTarget(backlog=150, intake_pps=1000.0, lost_in_switch=3)
    _, result = run(target)
    assert target.started == pytest.approx(0.3)  # 100, 50, then nothing in 0.1 s
    assert result.error == ("tester-limited: port 2: 3 of 200 frames p2 received never "
                            "reached the program")


def test_a_switch_still_catching_up_leaves_the_trial_unvouched() -> None:
    target = BackloggedTarget(backlog=1000, intake_pps=100.0)
    _, result = run(target)
    assert target.started == pytest.approx(3.0)  # waited no longer than IDLE_MAX_S
    assert result.error.startswith(
        "tester-limited: the tester's switch was still taking in frames delivered before the "
        "trial after 3 s (10 in 0.1 s, 0 of them delivered then): they would hide as many it "
        "lost; ")
    assert not result.valid


def test_frames_still_arriving_are_no_backlog_of_the_testers() -> None:
    """A DUT that drains into the tester for 0.45 s before the trial: the switch takes
    them in as they arrive (100 in 0.1 s, 100 delivered), so the trial opens at once;
    they are stale frames of an earlier trial, not frames the switch owes."""
    target = BackloggedTarget(arriving_pps=1000.0, arriving_s=0.45)
    _, result = run(target)
    assert target.started == pytest.approx(0.1)
    assert result.valid and result.error is None


class SlowDutTarget(FakeTarget):
    """Every frame took `latency_us`: the fake bins them by the edges it was last given
    (a switch's latency bins), and records each widening."""

    def __init__(self, edges: tuple[int, ...], latency_us: int) -> None:
        super().__init__()
        self.edges, self.latency_us = edges, latency_us
        self.widened: list[tuple[int, ...]] = []

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        (stream,) = super().stream_stats(trial, spec, before, after)
        counts = [0] * (len(self.edges) - 1)
        outside = stream.rx_frames
        for index, (low, high) in enumerate(pairwise(self.edges)):
            if low <= self.latency_us < high:
                counts[index], outside = stream.rx_frames, 0
        histogram = Histogram(self.edges, tuple(counts), outside)
        latency = with_lower_bounds(LatencyStats(
            stream.rx_frames, self.latency_us, self.latency_us, self.latency_us, 0.0,
            histogram=histogram))
        return (replace(stream, latency=latency),)

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        self.edges = edges_us
        self.widened.append(edges_us)


def test_a_runs_bins_widen_to_the_latency_it_measured() -> None:
    """A DUT that holds every frame 1.5 s, beyond the default bins' 1 s: the first
    trial can only bound its percentiles; the bins widen to 5 s, and the next trial
    measures them."""
    target = SlowDutTarget(log_bin_edges(1_000_000), 1_500_000)
    loop = TrialLoop(target, sleep=target.sleep, clock=lambda: target.now)
    first = loop.run_trial(SPEC)
    assert target.widened == [log_bin_edges(5_000_000)]
    (stream,) = first.streams
    assert stream.latency is not None
    assert (stream.latency.beyond_histogram, stream.latency.lower_bounds) == (
        200, ("p50_us", "p99_us", "p999_us"))
    second = loop.run_trial(SPEC)
    (stream,) = second.streams
    assert stream.latency is not None and stream.latency.histogram is not None
    assert stream.latency.histogram.edges == log_bin_edges(5_000_000)
    assert (stream.latency.beyond_histogram, stream.latency.lower_bounds) == (0, ())
    assert target.widened == [log_bin_edges(5_000_000)]  # held now: widened once


def test_a_profiles_own_bins_stay_as_asked() -> None:
    target = SlowDutTarget((0, 10, 100, 1000), 5000)
    _, result = run(target)
    assert target.widened == []
    assert result.streams[0].latency is not None
    assert result.streams[0].latency.lower_bounds == ("p50_us", "p99_us", "p999_us")


class QueueDut:
    """A lab DUT between the fake tester's ports: it takes in every frame the tester
    sent and its queue drops `dropped` of them (its own counters say so, its interfaces
    lose nothing); `steady_rate_pps`: its slowest queue rate (None: not stated)."""

    def __init__(self, target: FakeTarget, dropped: int, rate_pps: float | None) -> None:
        self.target, self.dropped, self.rate_pps = target, dropped, rate_pps

    def interfaces(self) -> Mapping[int, str]:
        return {1: "d1", 2: "d2"}

    def running(self) -> bool:
        return True

    def _out(self) -> int:
        return max(self.target.sent - self.dropped, 0)

    def read_interfaces(self) -> Mapping[int, InterfaceCounters] | None:
        return {1: InterfaceCounters(self.target.sent, 0, 0, 0),
                2: InterfaceCounters(0, self._out(), 0, 0)}

    def read_program(self) -> ProgramPortCounts | None:
        return ProgramPortCounts(rx={1: self.target.sent}, tx={2: self._out()})

    def steady_rate_pps(self) -> float | None:
        return self.rate_pps

    def fed_ports(self) -> frozenset[int]:
        return frozenset()


def _with_dut(dropped: int, rate_pps: float | None) -> TrialResult:
    target = FakeTarget()
    loop = TrialLoop(target, dut=QueueDut(target, dropped, rate_pps), sleep=target.sleep,
                     clock=lambda: target.now)
    return loop.run_trial(SPEC)


def test_a_dut_queue_that_overflowed_below_its_rate_was_starved() -> None:
    """200 frames/s offered (measured), 5 dropped in a queue paced at 250 frames/s:
    below 99 % of its rate its queue cannot fill while it drains at that rate."""
    result = _with_dut(5, 250.0)
    assert result.invalid_reason == "dut-limited"
    assert result.error == (
        "dut-limited: the DUT dropped 5 frames in its queue at 200 frames/s, below 99% of "
        "its slowest queue rate (250 frames/s): it did not drain at its configured rate "
        "(the host starved it)")


def test_a_shaped_trials_queue_drops_are_the_duts_own() -> None:
    """A shaped stream's mean rate says nothing of its steps above the DUT's rate."""
    target = FakeTarget()
    loop = TrialLoop(target, dut=QueueDut(target, 5, 250.0), sleep=target.sleep,
                     clock=lambda: target.now)
    shaped = replace(SPEC, shapes=((0, TrafficShape(ShapeKind.SQUARE, period_s=2.0,
                                                    amplitude=0.5)),))
    assert loop.run_trial(shaped).valid


def test_queue_drops_at_or_near_the_duts_rate_are_its_own() -> None:
    assert _with_dut(5, 202.0).valid  # 200 > 0.99 x 202 = 199.98: the DUT's loss
    assert _with_dut(5, None).valid  # a DUT that states no steady rate (impairments)
    assert _with_dut(0, 250.0).valid


def test_the_readme_states_the_wait_for_an_idle_switch_the_loop_makes() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs/concepts.md").read_text()
    assert f"(re-read every {IDLE_READ_S:g} s, for at most {IDLE_MAX_S:g} s)" in readme
    assert f"still catching up after {IDLE_MAX_S:g} s leaves the" in readme


class ShapedFakeTarget(FakeTarget):
    """The stream shaped as a square wave around 200 frames/s (300 then 100 frames/s,
    1 s each); the fake generator sends at the rate it was last told (`follows`: False
    for one that ignores the steps)."""

    def __init__(self, *, follows: bool = True) -> None:
        super().__init__()
        shape = TrafficShape(ShapeKind.SQUARE, period_s=2.0, amplitude=0.5)
        self.schedule = build_schedule({0: shape}, {0: 200.0}, {0: 1000.0}, 2.0, 1.0,
                                       lambda _, pps: round(pps))
        self.follows = follows
        self.rate = 0.0
        self.made = 0.0
        self.last = 0.0
        self.retuned: list[dict[int, int]] = []

    def arm(self, spec: TrialSpec) -> ArmedTrial:
        self.calls.append("arm")
        sender = self.schedule.senders[0]
        return ArmedTrial((Sender(0, sender.budget, 200.0),), 200.0, schedule=self.schedule)

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        super().start(trial, spec)
        self.rate, self.last = 300.0, self.now

    def retune(self, trial: ArmedTrial, rates_pps: Mapping[int, int]) -> None:
        self._advance()
        self.retuned.append(dict(rates_pps))
        if self.follows:
            self.rate = float(rates_pps[0])

    def _advance(self) -> None:
        budget = self.schedule.senders[0].budget
        self.made = min(float(budget), self.made + self.rate * (self.now - self.last))
        self.last = self.now

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        self._advance()
        self.sent = round(self.made)
        return {0: SentReading(self.sent, self.sent, StreamSample(
            round(self.now * TICKS_PER_S), self.sent, rx_samples=self.sent))}


def test_a_shaped_trial_moves_step_by_step_and_measures_each_step() -> None:
    target = ShapedFakeTarget()
    _, result = run(target)
    assert target.schedule.senders[0].rates_pps == (300, 100)
    assert target.schedule.senders[0].frames == (300, 100)
    assert target.retuned == [{0: 100}]
    assert result.valid, result.error
    (stream,) = result.streams
    assert (stream.tx_frames, stream.rx_frames) == (400, 400)
    first, second = stream.rate_course
    assert (first.start_s, first.duration_s, first.intended_pps) == (0.0, 1.0, 300.0)
    assert first.sent_pps == pytest.approx(300.0)
    assert first.received_pps == pytest.approx(300.0)
    assert (second.start_s, second.intended_pps) == (1.0, 100.0)
    assert second.sent_pps == pytest.approx(100.0)
    assert second.max_burst_frames == 0


def test_a_shaped_step_the_generator_did_not_follow_is_the_testers_limit() -> None:
    target = ShapedFakeTarget(follows=False)
    _, result = run(target)
    assert result.invalid_reason == "tester-limited"
    assert result.error is not None and result.error.startswith(
        "tester-limited: stream 0 offered 300 frames/s in step 1 (from 1 s), not its 100")


def test_the_readme_states_the_starved_queue_share() -> None:
    doc = Path(__file__).resolve().parents[2] / "docs/concepts.md"
    readme = " ".join(doc.read_text().split())
    assert (f"dropped in its queue at a constant load below {STEADY_SHARE * 100:.0f} % of "
            "its slowest queue rate") in readme


def test_a_trial_waits_until_the_dut_stopped_delivering_earlier_frames() -> None:
    """A DUT that delivers an earlier trial's frames for 3 s: the trial starts once none
    arrived for the profile's 0.5 s, and counts none of them."""
    target = FakeTarget()
    target.settle_s, target.drains_until = 0.5, 3.0
    _, result = run(target)
    assert result.valid and result.rx_stale == 0
    assert result.settle is not None
    assert (result.settle.frames, result.settle.quiet_s, result.settle.drained) == (300, 0.5, True)
    assert result.settle.waited_s == pytest.approx(3.5)
    assert [(s.tx_frames, s.rx_frames) for s in result.streams] == [(200, 200)]


def test_a_trial_the_dut_was_still_draining_into_is_not_its_result() -> None:
    """The wait gives up at settle_max_s (1 s): the trial runs, receives frames of the
    earlier one, and is the DUT not drained; the next trial waits twice as long."""
    target = FakeTarget()
    target.settle_s, target.settle_max_s, target.drains_until = 0.5, 1.0, 3.0
    loop, result = run(target)
    assert not result.valid and result.invalid_reason == "dut-not-drained"
    assert result.error == ("dut-not-drained: frames of earlier trials were still arriving "
                            "after 1.0 s of waiting (100 arrived; none may for 0.5 s): raise "
                            "trial: settle_max_s, or let the DUT drain")
    assert result.rx_stale > 0 and result.dut_not_drained and not result.host_limited
    target.settle_max_s = 10.0
    second = loop.run_trial(replace(SPEC, trial_index=1))
    assert second.settle is not None and second.settle.quiet_s == 1.0
    assert second.valid and second.rx_stale == 0


def test_earlier_frames_on_cables_without_a_dut_are_the_testers_own() -> None:
    """The same late frames with the tester's ports cabled to each other: no DUT held
    them, the tester's switch did; the trial is tester-limited, never dut-not-drained."""
    target = FakeTarget()
    target.dut_between = False
    target.settle_s, target.settle_max_s, target.drains_until = 0.5, 1.0, 3.0
    _, result = run(target)
    assert not result.valid and result.invalid_reason == "tester-limited"
    assert result.error == ("tester-limited: frames of earlier trials were still arriving "
                            "after 1.0 s of waiting, with no DUT between the ports: the "
                            "tester's switch held them")
    assert result.host_limited  # repeated as the tester's limit, not as a DUT draining


def test_earlier_frames_during_a_trial_after_a_quiet_wait_make_it_not_drained() -> None:
    target = FakeTarget()
    target.settle_s = 0.0  # no wait asked: the frames still arriving land in the trial
    target.drains_until = 3.0
    _, result = run(target)
    assert result.invalid_reason == "dut-not-drained"
    assert result.error is not None and result.error.startswith(
        f"dut-not-drained: {result.rx_stale} frames of earlier trials arrived during the trial")


class CountingTarget(FakeTarget):
    """Counts whole snapshots apart from the reads of the waits, which see only the
    counter the waits compare (as BMv2's read_arrivals)."""

    def __init__(self) -> None:
        super().__init__()
        self.whole_reads = 0
        self.arrival_reads = 0

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        self.whole_reads += 1
        return super().read_program()

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        self.arrival_reads += 1
        snapshot, program = FakeTarget.read_program(self)
        return CounterSnapshot({"earlier": snapshot.cells["earlier"]}), program


def test_only_a_trials_edges_read_every_counter() -> None:
    """A whole snapshot at the opening and at the closing edge, no more: the settle
    wait and the idle check before the opening edge read the arrivals alone (on BMv2
    a whole snapshot took 0.5 s, and five of them made a 0.1-s trial take 3.1 s)."""
    target = CountingTarget()
    target.settle_s, target.drains_until = 0.5, 0.3  # the DUT delivers 30 earlier frames
    _, result = run(target)
    assert result.valid and result.settle is not None and result.settle.frames == 30
    assert target.whole_reads == 2
    # The wait: at 0 s and every 0.1 s until 0.8 s (0.5 s after the last earlier frame
    # at 0.3 s); the idle check: before and after its 0.1 s.
    assert target.arrival_reads == 10 + 2


def test_late_frames_without_a_dut_are_the_testers_for_otg_starts_too() -> None:
    """The verdict an OTG start takes (otg.switch_driver) says the same."""
    from p4tester.results.settle import SettleRecord
    from p4tester.tester.trial_loop import not_drained

    settle = SettleRecord(0.6, 0, 0.5)
    assert not_drained(settle, 3, dut_between=False) == (
        "tester-limited: 3 frames of earlier trials arrived during the trial, with no DUT "
        "between the ports: the tester's switch held them")
    assert not_drained(settle, 0, dut_between=False) is None
    assert (not_drained(settle, 3) or "").startswith("dut-not-drained: 3 frames of earlier")
