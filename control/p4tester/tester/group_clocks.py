"""The clocks of several testers (docs/several-testers.md): per pair that exchanges
streams, the offset measured by probes both ways (tester.clock_probes) and how fast it
drifts, so a stream's stamps can be put on its receiver's clock at any moment.

A trial and an OTG start both measure at their start (measure_start) and correct their
crossing streams' stamps from it (offset_ns), following the drift measured from the
previous start (the first measures twice, DRIFT_BASELINE_S apart); a trial measures
again after its closing edge (end_records), which tells a jump from a drift."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from p4tester.results.clocks import ClockRecord, PtpState
from p4tester.results.latency import round_up_125
from p4tester.tester.clock_offset import OffsetEstimate, TrialClocks, nearest
from p4tester.tester.clock_probes import ProbePath, ProbeUnanswered, measure_offset

# The first start measures the offset twice this far apart: the drift its stamps
# follow (later starts take it from the previous start).
DRIFT_BASELINE_S: Final = 1.0
# Beyond the start's stated uncertainty, what the guard (GroupClocks.guard_ns) also
# allows for: the drift a correction predicted halfway to the next one may miss by
# (half of 0.1 s at 20 ppm).
GUARD_SLACK_NS: Final = 1_000
NS_PER_US: Final = 1_000


@dataclass(frozen=True, slots=True)
class GroupPath:
    """Two members that exchange streams, and the probes between them."""

    a: str
    b: str
    probes: ProbePath


@dataclass
class GroupClocks:
    """Mutable: the estimates of the current start and of the one before it."""

    paths: tuple[GroupPath, ...]
    asymmetry_ns: float = 0.0
    clock: Callable[[], float] = field(default=time.monotonic)
    sleep: Callable[[float], None] = field(default=time.sleep)
    _start: dict[tuple[str, str], OffsetEstimate] = field(default_factory=dict, init=False)
    # Per path: the previous start's estimate, and how fast b's clock gains on a's (ns
    # per ns) from it to this start's: the stamps' correction follows that drift.
    _previous: dict[tuple[str, str], OffsetEstimate] = field(default_factory=dict, init=False)
    _rate: dict[tuple[str, str], float] = field(default_factory=dict, init=False)
    # Why a path's offset was not measured at this start or at its end.
    unmeasured: list[str] = field(default_factory=list, init=False)
    # Probe frames each tester received so far: its counters show them as stream frames.
    probe_frames: dict[str, int] = field(default_factory=dict, init=False)
    # What PTP said on each tester's host at this start.
    ptp: dict[str, PtpState] = field(default_factory=dict, init=False)
    # Per path: its latest estimate's offset, which the next is put nearest (modulo the
    # stamps' range: clock_offset.nearest).
    _latest: dict[tuple[str, str], float] = field(default_factory=dict, init=False)

    def _measure(self, path: GroupPath) -> OffsetEstimate:
        def received(tester: str, frames: int) -> None:
            self.probe_frames[tester] = self.probe_frames.get(tester, 0) + frames

        estimate = measure_offset(path.probes, self.asymmetry_ns, self.sleep, self.clock,
                                  received=received)
        pair = (path.a, path.b)
        if pair in self._latest:
            estimate = replace(estimate,
                               offset_ns=nearest(estimate.offset_ns, self._latest[pair]))
        self._latest[pair] = estimate.offset_ns
        return estimate

    def measure_start(self) -> None:
        self._start = {}
        self.unmeasured = []
        self.ptp = {}
        for path in self.paths:
            for side in (path.probes.a, path.probes.b):
                if side.name not in self.ptp:
                    self.ptp[side.name] = side.ptp_state()
        for path in self.paths:
            pair = (path.a, path.b)
            try:
                if pair not in self._previous:
                    self._previous[pair] = self._measure(path)
                    self.sleep(DRIFT_BASELINE_S)
                start = self._measure(path)
            except ProbeUnanswered as unanswered:
                self.unmeasured.append(str(unanswered))
                continue
            previous = self._previous[pair]
            elapsed = start.at_ns - previous.at_ns
            moved = start.offset_ns - previous.offset_ns
            # A move within the two estimates' own uncertainty is no drift they can
            # tell: following it would carry their error on over the trial (BMv2
            # testers on a busy host: hundreds of ppm of noise, one-way figures 400 us
            # off in a CI run).
            significant = abs(moved) > start.uncertainty_ns + previous.uncertainty_ns
            self._rate[pair] = moved / elapsed if elapsed > 0 and significant else 0.0
            self._start[pair] = start
            self._previous[pair] = start

    def drift_ppm(self, a: str, b: str) -> float:
        return self._rate.get((a, b), 0.0) * 1e6

    def predicted(self, pair: tuple[str, str], at_ns: float) -> float:
        """b's clock minus a's at host time at_ns, from the start's estimate on."""
        start = self._start[pair]
        return start.offset_ns + self._rate.get(pair, 0.0) * (at_ns - start.at_ns)

    def offset_ns(self, sender: str, receiver: str, at_ns: float) -> float | None:
        """The receiver's clock minus the sender's at host time at_ns (None: not
        measured at this start)."""
        if (sender, receiver) in self._start:
            return self.predicted((sender, receiver), at_ns)
        if (receiver, sender) in self._start:
            return -self.predicted((receiver, sender), at_ns)
        return None

    def guard_ns(self, sender: str, receiver: str) -> int:
        """How much later than the offset a stream from sender to receiver is stamped
        this start: the largest stated uncertainty of the pairs measured and
        GUARD_SLACK_NS, rounded up to 1, 2 or 5 x 10^k us (the histogram's unit). A
        one-way delay reads that much high in the data plane, so an offset estimate off
        by up to its uncertainty can never make it negative (a latency register would
        wrap); the figures take it back out (results.latency.shifted_latency). One
        guard for every pair, and round, so that the crossing streams' histograms keep
        the same edges within a trial and mostly from trial to trial, and add up. 0 when
        the pair was not measured."""
        if (sender, receiver) not in self._start and (receiver, sender) not in self._start:
            return 0
        worst = max(start.uncertainty_ns for start in self._start.values())
        return round_up_125((worst + GUARD_SLACK_NS) / NS_PER_US) * NS_PER_US

    def end_records(self, skew_s: float) -> tuple[ClockRecord, ...]:
        """The probes again, after a trial: per path measured at its start, what its
        one-way figures rest on."""
        records = []
        for path in self.paths:
            pair = (path.a, path.b)
            start = self._start.get(pair)
            if start is None:
                continue
            try:
                end = self._measure(path)
            except ProbeUnanswered as unanswered:
                self.unmeasured.append(str(unanswered))
                records.append(self._with_ptp(clock_record(path.a, path.b, start, None,
                                                           None, skew_s)))
                continue
            records.append(self._with_ptp(clock_record(path.a, path.b, start, end,
                                                       self.predicted(pair, end.at_ns),
                                                       skew_s)))
        return tuple(records)

    def reasons(self, records: Sequence[ClockRecord]) -> list[str]:
        """Why one-way figures resting on this start's clocks (and `records`, its end)
        are not vouched for: paths not measured, clocks that jumped."""
        return ([f"one-way latency not measured: {why}" for why in self.unmeasured]
                + [f"one-way latency of testers {r.a} and {r.b} not vouched for: {r.jump}"
                   for r in records if r.jump])

    def _with_ptp(self, record: ClockRecord) -> ClockRecord:
        return replace(record, a_ptp=self.ptp.get(record.a), b_ptp=self.ptp.get(record.b))

    def notes(self) -> list[str]:
        """A line per pair measured at this start: its offset, uncertainty, drift, then
        what PTP said on both hosts."""
        lines = []
        for path in self.paths:
            start = self._start.get((path.a, path.b))
            if start is not None:
                # As a trial's ClockRecord.describe says it.
                lines.append(f"clock {path.b} - {path.a}: {start.offset_ns / 1000:+.1f} us "
                             f"+- {start.uncertainty_ns / 1000:.1f} us (drift "
                             f"{self.drift_ppm(path.a, path.b):.1f} ppm; {start.exchanges} "
                             "probe rounds)")
                if path.a in self.ptp and path.b in self.ptp:
                    lines.append(f"{path.a}: {self.ptp[path.a].describe()}; "
                                 f"{path.b}: {self.ptp[path.b].describe()}")
        return lines


def clock_record(a: str, b: str, start: OffsetEstimate, end: OffsetEstimate | None,
                 predicted_end_ns: float | None, skew_s: float) -> ClockRecord:
    """What a trial's one-way figures between a and b rest on: stamps corrected from
    the start's offset along the drift predicted, they are off by the estimates'
    uncertainty and by how far the end's offset is from that prediction."""
    if end is None or predicted_end_ns is None:
        return ClockRecord(a, b, start.offset_ns / 1000, None, start.uncertainty_ns / 1000,
                           None, start.exchanges, skew_s * 1000,
                           jump="the probes after the trial did not come through: the "
                           "offset may have changed unseen")
    clocks = TrialClocks(start, end)
    missed = abs(end.offset_ns - predicted_end_ns)
    return ClockRecord(a, b, start.offset_ns / 1000, end.offset_ns / 1000,
                       (clocks.uncertainty_ns + missed) / 1000,
                       clocks.drift_ppm if clocks.elapsed_ns > 0 else None,
                       start.exchanges + end.exchanges, skew_s * 1000, jump=clocks.jump())
