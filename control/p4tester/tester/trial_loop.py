"""The one trial loop (issue 22): how a trial runs and is judged, on every target.

A trial: the target arms it (what each stream's frames must be, templates, rates);
the opening edge is read (the tester ports' own counters and a lab DUT's on both
sides of the program's: tester.selfcheck says why); the senders start; the loop
waits, bounded, until each sender made its budget and let it out, keeping each read
(on targets that time them, the proof of the load offered: tester.trial_course);
the senders stop; the DUT drains; the closing edge is read, and re-read while
frames may still be on their way; the figures are judged. A trial the tester could
not vouch for (frames it lost itself, a load it did not offer, a switch that did
not answer) is tester-limited, one in which a lab DUT lost frames to the host is
dut-limited: never the DUT's result.

Targets supply only their reads and writes (TrialTarget): BMv2 in targets.bmv2_trials,
Tofino in targets.tofino.runner.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Protocol

from p4tester.dataplane.constants import (
    RX_KIND_COUNT,
    RX_KIND_FOREIGN,
    RX_KIND_MISMATCHED,
    RX_KIND_STALE,
    RX_KIND_STREAM,
)
from p4tester.dataplane.program import SwitchUnansweredError
from p4tester.experiments.runner import TrialSpec
from p4tester.results.availability import AVAILABILITY_INTERVAL_S
from p4tester.results.checks import DUT_LIMITED, DUT_NOT_DRAINED, TESTER_LIMITED, SelfCheck
from p4tester.results.clocks import ClockRecord
from p4tester.results.latency import widened_log_bins
from p4tester.results.model import RateStep, StreamStats, TrialResult
from p4tester.results.reference import ReferenceLatency
from p4tester.results.settle import SettleRecord
from p4tester.tester.dut_queue import queue_drops, starved_queue
from p4tester.tester.dut_source import DUT_TIMEOUT_S, DutCounterSource
from p4tester.tester.host_load import CpuTimes, host_load, read_cpu_times
from p4tester.tester.port_counters import InterfaceCounters, counter_delta
from p4tester.tester.rate_course import (
    TimedSample,
    course_not_offered,
    course_overdriven,
    rate_course,
)
from p4tester.tester.rate_schedule import RateSchedule
from p4tester.tester.selfcheck import (
    InterfaceBracket,
    ProgramPortCounts,
    build_self_check,
    counted_between,
    describe_overcount,
    describe_still_sending,
    describe_still_taking_in,
)
from p4tester.tester.send_watch import Sender, SendWatch, SentReading
from p4tester.tester.settle import next_quiet_s, wait_for_drain
from p4tester.tester.snapshot import CounterSnapshot, packets_between
from p4tester.tester.trial_course import (
    OfferedLoad,
    StreamSample,
    interval_counts,
    late_frames,
    latency_course,
    not_offered,
    offered_load,
    overdriven,
)

# Queue depth bins (packets) for DUT-stamped frames.
QDEPTH_EDGES: Final = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
                       16384, 65536)
# Frames a port delivered just before the drain ended may still wait in the switch's
# input queue: the self-check re-reads this many times, this far apart, before it
# calls them dropped.
SETTLE_READS: Final = 3
SETTLE_S: Final = 0.2
# A trial opens on an idle tester: frames its ports delivered before the trial that the
# switch is still working through (a backlog a busy host left) would count in the
# trial's window as frames the program took in, and hide as many frames it lost then.
# The opening edge is re-read this far apart while the program takes in more than the
# ports deliver (its own backlog), for at most IDLE_MAX_S.
IDLE_READ_S: Final = 0.1
IDLE_MAX_S: Final = 3.0
# A lab DUT whose counters could not be read at an edge of the trial: nothing vouches that
# it held its configured behaviour, so the trial is not the DUT's result either.
DUT_UNCHECKED: Final = ("unchecked: the lab DUT's counters could not be read (it did not "
                        f"answer within {DUT_TIMEOUT_S:g} s: busy host, or the DUT stopped)")


class GeneratorBehind(RuntimeError):
    """The generator did not send its budget in time (the tester's limit)."""


@dataclass(frozen=True, slots=True)
class ArmedTrial:
    """A trial the target armed: its senders, the load they offer together, how the
    target names them in a message, and what to check when they are slow."""

    senders: tuple[Sender, ...]
    offered_pps: float
    what: str = "streams"
    slow_hint: str = "the switch is too slow for this rate, or stopped"
    # A shaped trial's steps (tester.rate_schedule): the loop moves the target from
    # step to step (TrialTarget.retune) and measures each; None: constant rates.
    schedule: RateSchedule | None = None

    @property
    def waited(self) -> tuple[Sender, ...]:
        return tuple(s for s in self.senders if s.waited)


@dataclass(frozen=True, slots=True)
class RxKinds:
    """Frames the checker kept out of every stream between two snapshots."""

    foreign: int
    stale: int
    mismatched: int
    outside_streams: int  # every kind but a stream's
    # The tester's own frames, of any trial: a stream's, stale and mismatched. Between
    # two trials, frames a DUT still held (tester.settle).
    tester_frames: int = 0

    @classmethod
    def between(cls, before: CounterSnapshot, after: CounterSnapshot,
                counter: str) -> RxKinds:
        """From the target's rx_kind counter (one cell per kind, dataplane.constants)."""
        def kind(which: int) -> int:
            return packets_between(before, after, counter, which)

        stale, mismatched = kind(RX_KIND_STALE), kind(RX_KIND_MISMATCHED)
        return cls(kind(RX_KIND_FOREIGN), stale, mismatched,
                   sum(kind(k) for k in range(RX_KIND_COUNT) if k != RX_KIND_STREAM),
                   kind(RX_KIND_STREAM) + stale + mismatched)


@dataclass(frozen=True, slots=True)
class Extras:
    """A target's figures beyond the streams' (the reference stream's latency), and why
    they leave the trial unvouched ("" when they do not).

    sender_bursts: per stream key, the most frames a target's own sender wrote at once
    beyond the stream's rate (eBPF: a host sender that fell behind and caught up inside
    one sample interval, which the interval's count cannot show). Judged with the
    samples' bursts, by the same tolerance."""

    reference: ReferenceLatency | None = None
    unvouched: str = ""
    sender_bursts: Mapping[int, int] = field(default_factory=dict)
    # Several testers (tester.tester_group): their clocks' offsets in this trial.
    clocks: tuple[ClockRecord, ...] = ()


class TrialTarget(Protocol):
    """The target-specific reads and writes of a trial."""

    @property
    def poll_s(self) -> float: ...

    @property
    def drain_s(self) -> float:
        """How long the DUT may take to let the trial's last frames through."""
        ...

    @property
    def settle_s(self) -> float:
        """How long no frame of an earlier trial may arrive before a trial starts."""
        ...

    @property
    def settle_max_s(self) -> float:
        """The longest wait for that (tester.settle)."""
        ...

    @property
    def host_bound(self) -> bool:
        """The switch runs on this host: its load and CPU steal explain its limits."""
        ...

    @property
    def dut_between(self) -> bool:
        """A DUT sits between the tester's ports (False: they are cabled to each other,
        so frames of earlier trials that arrive late were held by the tester itself)."""
        ...

    @property
    def queues_input(self) -> bool:
        """The switch queues frames its ports delivered before its program counts them
        (a software switch on a busy host can hold a backlog across a trial's edge)."""
        ...

    def port_names(self) -> Mapping[int, str]:
        """Tester ports whose own counters the self-check reads, by interface name."""
        ...

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None: ...

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]: ...

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        """What the waits before a trial's opening edge compare (the received frames'
        kinds, the program's port counts): the snapshot may hold only those counters.
        On BMv2 a whole snapshot (every histogram cell) takes about 0.5 s."""
        ...

    def arm(self, spec: TrialSpec) -> ArmedTrial:
        """Before the opening edge: from then on only this trial's frames count."""
        ...

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        """Start the senders, a shaped trial's at its first step's rates."""
        ...

    def retune(self, trial: ArmedTrial, rates_pps: Mapping[int, float]) -> None:
        """Move a shaped trial's senders (key -> frames/s) to their next step's rates."""
        ...

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]: ...

    def stop(self, trial: ArmedTrial) -> None: ...

    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds: ...

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        """From the next trial on, the switch bins latency by `edges_us`."""
        ...

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]: ...

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras: ...


@dataclass(frozen=True, slots=True)
class Edge:
    """One edge of a trial: the program's counters with the interfaces' around them."""

    snapshot: CounterSnapshot
    program: ProgramPortCounts
    ports: InterfaceBracket | None
    dut_interfaces: InterfaceBracket | None
    dut_program: ProgramPortCounts | None
    # Why the tester cannot vouch for what it counts from this edge on ("": it can).
    backlog: str = ""


def _bracket(first: Mapping[int, InterfaceCounters] | None,
             second: Mapping[int, InterfaceCounters] | None) -> InterfaceBracket | None:
    if first is None or second is None:
        return None
    return InterfaceBracket(first, second)


@dataclass(slots=True)
class _Course:
    """A shaped trial's course so far: when each step was applied and each shaped
    sender's samples, timed (seconds since the senders started)."""

    schedule: RateSchedule
    began: float
    applied_s: list[float] = field(default_factory=list)
    samples: dict[int, list[TimedSample]] = field(default_factory=dict)


@dataclass
class TrialLoop:
    """The TrialRunner every target's trials go through. Mutable on purpose: the
    clock and sleep are injectable for tests, nothing else changes."""

    target: TrialTarget
    dut: DutCounterSource | None = None
    sleep: Callable[[float], None] = field(default=time.sleep)
    clock: Callable[[], float] = field(default=time.monotonic)
    # The last closing edge's counters and when they were read (the drain wait counts
    # from there), and the quiet time the next trial's wait asks (tester.settle).
    _closed: tuple[CounterSnapshot, float] | None = field(default=None, init=False)
    _quiet_s: float | None = field(default=None, init=False)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        target = self.target
        trial = target.arm(spec)
        settle = self.wait_for_drain()
        started = time.time()
        cpu_before = read_cpu_times() if target.host_bound else None
        before = self.opening_edge()
        try:
            result = self._run_armed(spec, trial, started, cpu_before, before, settle)
        except SwitchUnansweredError as unanswered:
            # An in-band request the switch did not answer, from the start to the last
            # read: the trial's figures cannot be read.
            self._closed = None
            return self._unanswered(spec, trial, started, cpu_before, str(unanswered))
        self._quiet_s = next_quiet_s(settle.quiet_s, target.settle_s, target.settle_max_s,
                                     not result.dut_not_drained)
        self._widen_bins(result)
        return result

    def wait_for_drain(self) -> SettleRecord:
        """After the trial is armed (frames of earlier trials count as stale from
        then on), before its opening edge: until the DUT stopped delivering them
        (tester.settle)."""
        target = self.target
        quiet_s = target.settle_s if self._quiet_s is None else self._quiet_s
        base, quiet_since = self._closed if self._closed is not None else (None, None)

        def arrived() -> int:
            nonlocal base
            snapshot, _ = target.read_arrivals()
            if base is None:
                base = snapshot
            return target.rx_kinds(base, snapshot).tester_frames

        return wait_for_drain(arrived, self.clock, self.sleep, quiet_s, target.settle_max_s,
                              quiet_since)

    def _widen_bins(self, result: TrialResult) -> None:
        """A run's latency bins widen to what it measured: after a trial with samples
        beyond the last edge, the next trials bin up to twice its largest latency
        (results.latency.widened_log_bins), so their percentiles are measured, not
        bounded. Each trial's histogram carries its own edges. Only a trial the tester
        vouched for: the latencies of one it could not (a one-way delay below zero
        across testers wraps to seconds) are not measurements."""
        if not result.valid:
            return
        beyond = [s.latency for s in result.streams if s.latency is not None
                  and s.latency.histogram is not None and s.latency.beyond_histogram]
        if not beyond:
            return
        highest = max(latency.max_us for latency in beyond)
        # The first histogram that widens: a crossing stream's, shifted by its guard
        # (tester.tester_group), does not.
        for latency in beyond:
            widened = widened_log_bins(latency.histogram.edges if latency.histogram else (),
                                       highest)
            if widened is not None:
                self.target.widen_latency_bins(widened)
                return

    def _run_armed(self, spec: TrialSpec, trial: ArmedTrial, started: float,
                   cpu_before: CpuTimes | None, before: Edge,
                   settle: SettleRecord) -> TrialResult:
        samples: dict[int, list[StreamSample]] = {}
        course: _Course | None = None
        behind = ""
        try:
            self.target.start(trial, spec)
            if trial.schedule is not None:
                course = _Course(trial.schedule, self.clock(), [0.0])
            self._wait_until_sent(trial, samples, course)
        except GeneratorBehind as fell_behind:
            # What was sent is still counted exactly: read it, but the trial did not
            # offer the load it was asked for, so it is the tester's limit.
            behind = str(fell_behind)
        finally:
            self.target.stop(trial)
        self.sleep(self.target.drain_s)
        after, check, dut_check = self.settled(before)
        self._closed = (after.snapshot, self.clock())
        return self._judged(spec, trial, started, cpu_before, before, after, check, dut_check,
                            samples, behind, course, settle)

    # ---- the edges -------------------------------------------------------
    def opening_edge(self) -> Edge:
        """The opening edge, once the tester's switch has taken in every frame its
        ports delivered before it (IDLE_READ_S): re-read while the program takes in
        more than the ports deliver; a switch still catching up after IDLE_MAX_S
        leaves the trial unvouched."""
        backlog = self._backlog() if self.target.queues_input else ""
        edge = self._read_edge()
        return replace(edge, backlog=backlog) if backlog else edge

    def _backlog(self) -> str:
        """Why the tester's switch is not idle after IDLE_MAX_S ("": it is). Only the
        tester is read: a lab DUT's reads (a P4Runtime session each) right before a
        burst made a BMv2 DUT drop frames in its capture ring on a quiet host."""
        ports = self.target.read_ports()
        _, program = self.target.read_arrivals()
        reads = round(IDLE_MAX_S / IDLE_READ_S)
        for read in range(1, reads + 1):
            self.sleep(IDLE_READ_S)
            ports_now = self.target.read_ports()
            _, program_now = self.target.read_arrivals()
            taken_in = counted_between(program.rx, program_now.rx)
            delivered = _delivered(ports, ports_now)
            ports, program = ports_now, program_now
            if not taken_in or delivered is None or delivered >= taken_in:
                # Idle, or keeping up with frames still arriving (a DUT draining its
                # queue into the tester, a network's chatter): no backlog of its own.
                return ""
            if read == reads:
                return (f"the tester's switch was still taking in frames delivered before "
                        f"the trial after {IDLE_MAX_S:g} s ({taken_in} in {IDLE_READ_S:g} s, "
                        f"{delivered} of them delivered then): they would hide as many it lost")
        return ""

    def _read_edge(self) -> Edge:
        # Interfaces on both sides of their programs' reads: see tester.selfcheck.
        ports_first = self.target.read_ports()
        dut_first = self.dut.read_interfaces() if self.dut else None
        snapshot, program = self.target.read_program()
        dut_program = self.dut.read_program() if self.dut else None
        return Edge(snapshot, program, _bracket(ports_first, self.target.read_ports()),
                     _bracket(dut_first, self.dut.read_interfaces() if self.dut else None),
                     dut_program)

    def _closing_edge(self) -> Edge:
        dut_first = self.dut.read_interfaces() if self.dut else None
        ports_first = self.target.read_ports()
        dut_program = self.dut.read_program() if self.dut else None
        dut_interfaces = _bracket(dut_first, self.dut.read_interfaces() if self.dut else None)
        snapshot, program = self.target.read_program()
        return Edge(snapshot, program, _bracket(ports_first, self.target.read_ports()),
                     dut_interfaces, dut_program)

    def settled(self, before: Edge) -> tuple[Edge, SelfCheck | None, SelfCheck | None]:
        """The closing edge, self-check and DUT check; re-read (bounded) while frames
        the ports counted may still be on their way through a switch. Also what OTG
        flows are checked by once they all stopped (otg.switch_driver)."""
        names = self.target.port_names()
        check: SelfCheck | None = None
        dut_check: SelfCheck | None = None
        after = before
        sending = taking_in = ""
        for attempt in range(SETTLE_READS + 1):
            if attempt:
                self.sleep(SETTLE_S)
            after = self._closing_edge()
            if before.ports is not None and after.ports is not None:
                check = build_self_check(names, before.ports, after.ports, before.program,
                                         after.program, self._fed_ports())
                sending = describe_still_sending(names, before.ports, after.ports,
                                                 before.program, after.program)
                taking_in = describe_still_taking_in(names, after.ports, after.program)
            dut_check = self._dut_check(before, after)
            if (not sending and not taking_in and (check is None or check.ok)
                    and (dut_check is None or dut_check.ok)):
                break
        if check is not None and before.ports is not None and after.ports is not None:
            outside = self.target.rx_kinds(before.snapshot, after.snapshot).outside_streams
            overcount = describe_overcount(names, before.ports, after.ports, before.program,
                                           after.program, outside)
            # Frames from before the trial taken as a stream's, or sent frames it did not
            # make (issue 21); or frames still in its own switch after every re-read: the
            # tester's figures are not the DUT's.
            if overcount or sending or taking_in:
                check = replace(check, unvouched=_joined(sending, taking_in, overcount))
        if before.backlog:
            check = replace(check or SelfCheck(()),
                            unvouched=_joined(before.backlog, check.unvouched if check else ""))
        return after, check, dut_check

    def _fed_ports(self) -> frozenset[int]:
        return frozenset() if self.dut is None else self.dut.fed_ports()

    def _dut_check(self, before: Edge, after: Edge) -> SelfCheck | None:
        dut = self.dut
        if dut is None:
            return None
        if (before.dut_interfaces is not None and before.dut_program is not None
                and after.dut_interfaces is not None and after.dut_program is not None):
            return build_self_check(dut.interfaces(), before.dut_interfaces,
                                    after.dut_interfaces, before.dut_program, after.dut_program)
        if dut.running():
            return SelfCheck((), unvouched=DUT_UNCHECKED)
        return None  # gone: no check; its trials show what it forwarded

    # ---- sending ---------------------------------------------------------
    def _wait_until_sent(self, trial: ArmedTrial, samples: dict[int, list[StreamSample]],
                         course: _Course | None) -> None:
        """Wait (bounded) until every waited sender is done (tester.send_watch); each
        read goes into `samples`. A shaped trial's steps are applied as they fall due,
        and its samples timed (`course`)."""
        watch = SendWatch(trial.senders, self.clock())
        while watch.waiting:
            self.sleep(self._until_next_poll(course))
            if course is not None:
                self._follow_schedule(trial, course)
            readings = self.target.read_sent(tuple(watch.waiting.values()))
            read_at = self.clock()
            for key, reading in readings.items():
                if reading.sample is not None:
                    samples.setdefault(key, []).append(reading.sample)
                    if course is not None:
                        course.samples.setdefault(key, []).append(
                            TimedSample(read_at - course.began, reading.sample))
            watch.done(readings)
            late = watch.late(self.clock())
            if late:
                raise GeneratorBehind(
                    f"{trial.what} {late} did not send their budgets within "
                    f"{watch.allowed_s:.1f} s: {trial.slow_hint}")

    def _until_next_poll(self, course: _Course | None) -> float:
        """A poll interval, or less when a shaped trial's next step falls due sooner."""
        poll = self.target.poll_s
        if course is None or len(course.applied_s) >= len(course.schedule.steps):
            return poll
        due = course.began + course.schedule.applied_from(len(course.applied_s))
        return min(poll, max(due - self.clock(), 0.0))

    def _follow_schedule(self, trial: ArmedTrial, course: _Course) -> None:
        """Apply the latest step that fell due; steps the loop overslept (a busy host)
        are noted as applied at the same moment, so no sample counts as theirs."""
        elapsed = self.clock() - course.began
        steps = course.schedule.steps
        due = len(course.applied_s)
        while due < len(steps) and course.schedule.applied_from(due) <= elapsed:
            due += 1
        if due == len(course.applied_s):
            return
        self.target.retune(trial, course.schedule.rates_at(due - 1))
        applied = self.clock() - course.began
        course.applied_s.extend([applied] * (due - len(course.applied_s)))

    # ---- judging ---------------------------------------------------------
    def _judged(self, spec: TrialSpec, trial: ArmedTrial, started: float,
                cpu_before: CpuTimes | None, before: Edge, after: Edge,
                check: SelfCheck | None, dut_check: SelfCheck | None,
                samples: Mapping[int, list[StreamSample]], behind: str,
                course: _Course | None, settle: SettleRecord) -> TrialResult:
        target = self.target
        courses = _courses(course)
        streams = _with_intervals(
            target.stream_stats(trial, spec, before.snapshot, after.snapshot), samples)
        streams = tuple(replace(s, rate_course=courses[s.stream_id])
                        if s.stream_id in courses else s for s in streams)
        extras = target.extras(trial, streams, before.snapshot, after.snapshot)
        offered = [_offered(samples[s.key], s, courses.get(s.key),
                            extras.sender_bursts.get(s.key, 0))
                   for s in trial.waited if s.key in samples]
        proven = len(offered) == len(trial.waited)
        # Bursts beyond the load (a generator that stalled and caught up) make the DUT's
        # loss in this trial possibly the tester's: no loss floor is the DUT's then.
        harsher = proven and any(
            course_overdriven(courses[sender.key], target.poll_s,
                              *_designed_variation(course, sender.key))
            if sender.key in courses else overdriven(load, sender.rate_pps, target.poll_s)
            for sender, load in zip(trial.waited, offered, strict=True))
        if not behind and proven:
            # A trial proves the load it offered (issue 21): one that fell behind its
            # rate or caught up in a burst is the tester's limit, never the DUT's result;
            # a shaped stream proves each of its steps.
            behind = "; ".join(
                reason for sender, load in zip(trial.waited, offered, strict=True)
                if (reason := course_not_offered(sender.key, courses[sender.key], target.poll_s,
                                                 *_designed_variation(course, sender.key))
                    if sender.key in courses
                    else not_offered(sender.key, load, sender.rate_pps, target.poll_s)))
        behind = behind or extras.unvouched
        if behind:
            check = replace(check or SelfCheck(()),
                            unvouched=_joined(check.unvouched if check else "",
                                              self._with_host_load(behind, cpu_before)),
                            overdriven=harsher)
        if (dut_check is not None and self.dut is not None and not spec.shapes
                and before.dut_program is not None and after.dut_program is not None):
            # Constant rates only: a shaped stream's mean says nothing of its steps
            # (seen: a square wave of 2000 frames/s on average, 3200 in its high steps,
            # into a 3000-frames/s DUT).
            measured = _measured_pps(offered) if proven else None
            dut_check = starved_queue(
                dut_check, queue_drops(before.dut_program, after.dut_program),
                trial.offered_pps if measured is None else measured, self.dut.steady_rate_pps())
        kinds = target.rx_kinds(before.snapshot, after.snapshot)
        late = not_drained(settle, kinds.stale)
        if late and not target.dut_between:
            # No DUT on the cables: the frames that came late were the tester's own
            # switch's, held past the wait (a busy host), never a DUT's.
            check = replace(check or SelfCheck(()), unvouched=_joined(
                check.unvouched if check else "",
                self._with_host_load(held_by_tester(settle, kinds.stale), cpu_before)))
            late = None
        error = verdict(check, dut_check) or late
        return TrialResult(
            experiment=spec.experiment,
            trial_index=spec.trial_index,
            offered_fraction=spec.offered_fraction,
            offered_pps=trial.offered_pps,
            duration_s=spec.duration_s,
            frame_size=spec.frame_size,
            streams=streams,
            started_at=started,
            rx_foreign=kinds.foreign,
            rx_stale=kinds.stale,
            rx_mismatched=kinds.mismatched,
            labels=spec.labels,
            offered_pps_measured=_measured_pps(offered) if proven else None,
            dut_buffering_us=_buffering(streams, samples),
            late_frames=_late(trial.waited, streams, samples) if proven else None,
            reference=extras.reference,
            clocks=extras.clocks,
            max_burst_frames=max((load.max_burst_frames for load in offered), default=None)
            if proven else None,
            valid=error is None,
            error=error,
            self_check=check,
            dut_check=dut_check,
            host_load=host_load(cpu_before, read_cpu_times()) if target.host_bound else None,
            settle=settle,
        )

    def _unanswered(self, spec: TrialSpec, trial: ArmedTrial, started: float,
                    cpu_before: CpuTimes | None, what: str) -> TrialResult:
        """A trial the tester's switch did not answer an in-band request in: its figures
        cannot be read; tester-limited, never the DUT's loss."""
        self.target.stop(trial)  # P4Runtime writes: served while the data plane is flooded
        self.sleep(self.target.drain_s)
        reason = self._with_host_load(what, cpu_before)
        return TrialResult(
            experiment=spec.experiment, trial_index=spec.trial_index,
            offered_fraction=spec.offered_fraction, offered_pps=trial.offered_pps,
            duration_s=spec.duration_s, frame_size=spec.frame_size, started_at=started,
            labels=spec.labels, valid=False, error=f"{TESTER_LIMITED}: {reason}",
            self_check=SelfCheck((), unvouched=reason),
            host_load=host_load(cpu_before, read_cpu_times()) if self.target.host_bound
            else None)

    def _with_host_load(self, what: str, cpu_before: CpuTimes | None) -> str:
        """`what` the tester could not do, with the host's load and CPU steal since the
        trial began, on a switch this host runs: what most often starves it."""
        if not self.target.host_bound:
            return what
        load = host_load(cpu_before, read_cpu_times())
        steal = "" if load.steal_fraction is None else f", CPU steal {load.steal_fraction:.0%}"
        return f"{what} (host load {load.load_1m:.2f} on {load.cpus} CPUs{steal})"


def verdict(check: SelfCheck | None, dut_check: SelfCheck | None) -> str | None:
    """Why the tester cannot vouch for what it measured (None: it can): the tester lost
    frames or could not prove its load, or a lab DUT lost frames to the host or did not
    hold its configured behaviour."""
    if check is not None and not check.ok:
        return f"{TESTER_LIMITED}: {check.describe()}"
    if dut_check is not None and dut_check.unvouched:
        return f"{DUT_LIMITED}: {dut_check.unvouched}"
    if dut_check is not None and not dut_check.ok:
        return (f"{DUT_LIMITED}: the DUT did not hold its configured behaviour: "
                f"{dut_check.describe()}")
    return None


def not_drained(settle: SettleRecord, stale: int, dut_between: bool = True) -> str | None:
    """Why the trial is not the DUT's result at its load for frames of earlier traffic
    (None: it is): still arriving when the wait before it gave up, or during it. With
    no DUT between the tester's ports, that is the tester's limit (held_by_tester)."""
    if not dut_between:
        late = not_drained(settle, stale) is not None
        return f"{TESTER_LIMITED}: {held_by_tester(settle, stale)}" if late else None
    if not settle.drained:
        return (f"{DUT_NOT_DRAINED}: frames of earlier trials were still arriving after "
                f"{settle.waited_s:.1f} s of waiting ({settle.frames} arrived; none may for "
                f"{settle.quiet_s:g} s): raise trial: settle_max_s, or let the DUT drain")
    if stale:
        return (f"{DUT_NOT_DRAINED}: {stale} frames of earlier trials arrived during the "
                f"trial, after {settle.quiet_s:g} s without any: the DUT was still busy "
                "with earlier traffic (the next trial waits longer)")
    return None


def held_by_tester(settle: SettleRecord, stale: int) -> str:
    """Why a trial on cables without a DUT is the tester's limit for frames of earlier
    trials (not_drained's cases)."""
    arrived = (f"{stale} frames of earlier trials arrived during the trial" if settle.drained
               else f"frames of earlier trials were still arriving after {settle.waited_s:.1f} "
                    "s of waiting")
    return f"{arrived}, with no DUT between the ports: the tester's switch held them"


def _joined(*reasons: str) -> str:
    return "; ".join(reason for reason in reasons if reason)


def _delivered(first: Mapping[int, InterfaceCounters] | None,
               second: Mapping[int, InterfaceCounters] | None) -> int | None:
    """Frames the tester's ports delivered between two reads (None: no interface
    counters)."""
    if first is None or second is None:
        return None
    return sum(counter_delta(first[port].rx_packets, reading.rx_packets)
               for port, reading in second.items() if port in first)


def _designed_variation(course: _Course | None, key: int) -> tuple[int, float]:
    """How far a shaped sender strays from its rate by design: the frames it sends back
    to back at a time (1: spread evenly), and its count's variance per frame (0: exact)."""
    sender = course.schedule.sender(key) if course is not None else None
    return (sender.burst_frames, sender.count_variance) if sender is not None else (1, 0.0)


def _courses(course: _Course | None) -> dict[int, tuple[RateStep, ...]]:
    """Each shaped sender's steps, measured (tester.rate_course)."""
    if course is None:
        return {}
    steps = course.schedule.steps
    # A step applied ahead of its start (RateSchedule.leads_s) holds from its start.
    held = [max(applied, step.start_s) for applied, step in zip(course.applied_s, steps,
                                                                 strict=False)]
    return {sender.key: rate_course(sender, steps, held, course.samples.get(sender.key, ()))
            for sender in course.schedule.senders}


def _offered(samples: Sequence[StreamSample], sender: Sender,
             course: tuple[RateStep, ...] | None, sender_burst: int = 0) -> OfferedLoad:
    """What a sender offered; a shaped one's worst burst is its steps' (each against
    its own rate), not one against its mean rate. `sender_burst`: the target's own
    sender's worst burst beyond the rate (Extras), where it exceeds the samples'."""
    load = offered_load(samples, sender.rate_pps, sender.budget)
    if course is None:
        return replace(load, max_burst_frames=max(load.max_burst_frames, sender_burst))
    return replace(load, max_burst_frames=max((s.max_burst_frames for s in course), default=0))


def _with_intervals(streams: tuple[StreamStats, ...],
                    samples: Mapping[int, list[StreamSample]]) -> tuple[StreamStats, ...]:
    """Each stream with its frames per second of the trial, where its sender's samples
    say them (results.availability)."""
    return tuple(
        replace(stream, intervals=interval_counts(samples[stream.stream_id],
                                                  AVAILABILITY_INTERVAL_S))
        if stream.stream_id in samples else stream for stream in streams)


def _buffering(streams: tuple[StreamStats, ...],
               samples: Mapping[int, list[StreamSample]]) -> float | None:
    """The largest latency rise of a stream whose DUT buffer filled through the trial
    (tester.trial_course), None when no stream's did."""
    rises = []
    for stream in streams:
        if stream.latency is None or stream.stream_id not in samples:
            continue
        total = round(stream.latency.avg_us * stream.latency.samples)
        course = latency_course(samples[stream.stream_id], stream.latency.samples, total)
        if course is not None and course.buffering:
            rises.append(course.rise)
    return max(rises, default=None)


def _late(senders: tuple[Sender, ...], streams: tuple[StreamStats, ...],
          samples: Mapping[int, list[StreamSample]]) -> int | None:
    """Frames all streams received after the trial's end (None: one stream's unknown)."""
    by_stream = {s.stream_id: s for s in streams}
    late = [late_frames(samples.get(sender.key, ()), sender.budget,
                        stream.latency.samples if stream.latency else 0)
            for sender in senders if (stream := by_stream.get(sender.key)) is not None]
    known = [n for n in late if n is not None]
    return sum(known) if late and len(known) == len(late) else None


def _measured_pps(offered: list[OfferedLoad]) -> float | None:
    """All senders' measured rates together; None when one could not be measured."""
    known = [load.pps for load in offered if load.pps is not None]
    return sum(known) if len(known) == len(offered) else None
