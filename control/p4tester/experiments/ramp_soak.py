"""Ramps and soaks (seed 003): load over time, loss and reordering per step.

- Ramp: step the load from `start_fraction` to `end_fraction` (up or down) by
  `step_fraction`, `step_duration_s` per step; one trial per step, labelled
  ramp_step and offered_pct. Seed 003 ramped 0.5 Gbit/s every 2 minutes.
- Soak: one long run cut into trials of `interval_s` (the last one shorter when the
  total does not divide), labelled soak_interval; loss, reordering and duplicates per
  interval and in total (seed 003 kept 60-s interface statistics over 4 weeks).

Each step or interval is its own trial, so the tester drains and reads between them:
traffic pauses for the drain, and sequence numbers start again per trial. An invalid
step or interval is kept (valid=False, counted) and the run goes on: a long soak
should not end because one read failed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from p4tester.results.model import TrialResult, loss_ratio_of
from p4tester.results.tables import trial_latency

from .figures import trial_counts
from .recording import Labels, Recorder
from .validation import (
    check_fraction,
    check_frame_size,
    check_labels,
    check_name,
    check_positive,
)

# Four weeks of 60-s intervals is 40320 trials; past this a config is a typo.
MAX_TRIALS_PER_RUN: Final = 100_000
# Loads are start +- k x step, rounded so 0.1 + 3 x 0.1 stays 0.4 in labels and logs.
_LOAD_DIGITS: Final = 12
_SLACK: Final = 1e-9


@dataclass(frozen=True, slots=True)
class TimedTrial:
    """One ramp step or soak interval. Counters are summed over the streams; latency
    is None without samples (or for an invalid trial)."""

    index: int  # step or interval number, from 0
    offered_fraction: float
    start_offset_s: float  # since the run's first trial started (durations added up)
    duration_s: float
    trial_index: int
    valid: bool
    error: str | None
    tx_frames: int
    rx_frames: int
    lost: int
    loss_ratio: float
    reordered: int
    duplicates: int
    latency_avg_us: float | None
    latency_max_us: float | None


def _timed(index: int, offset_s: float, trial: TrialResult) -> TimedTrial:
    counts = trial_counts(trial)
    latency = trial_latency(trial) if trial.valid else None
    return TimedTrial(
        index=index,
        offered_fraction=trial.offered_fraction,
        start_offset_s=offset_s,
        duration_s=trial.duration_s,
        trial_index=trial.trial_index,
        valid=trial.valid,
        error=trial.error,
        tx_frames=counts.tx_frames,
        rx_frames=counts.rx_frames,
        lost=counts.lost,
        loss_ratio=counts.loss_ratio,
        reordered=counts.reordered,
        duplicates=counts.duplicates,
        latency_avg_us=None if latency is None else latency.avg_us,
        latency_max_us=None if latency is None else latency.max_us,
    )


# ---- ramp ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RampConfig:
    frame_size: int
    start_fraction: float
    end_fraction: float
    step_fraction: float  # size of each step, positive whichever way the ramp goes
    step_duration_s: float
    experiment: str = "ramp"
    labels: Labels = ()

    def __post_init__(self) -> None:
        owner = "RampConfig"
        check_frame_size(owner, "frame_size", self.frame_size)
        check_fraction(owner, "start_fraction", self.start_fraction)
        check_fraction(owner, "end_fraction", self.end_fraction)
        check_fraction(owner, "step_fraction", self.step_fraction)
        check_positive(owner, "step_duration_s", self.step_duration_s, "seconds")
        check_name(owner, "experiment", self.experiment)
        check_labels(owner, self.labels)
        steps = self._steps() + 1
        if steps > MAX_TRIALS_PER_RUN:
            raise ValueError(
                f"{owner}: {steps} steps is more than {MAX_TRIALS_PER_RUN}; use a larger "
                "step_fraction"
            )

    def _steps(self) -> int:
        """Whole steps from start towards end (counted before any list is built)."""
        span = abs(self.end_fraction - self.start_fraction)
        return math.floor(span / self.step_fraction + _SLACK)

    def loads(self) -> tuple[float, ...]:
        """start, start +- step, ..., up to end (included when a step lands on it)."""
        direction = 1.0 if self.end_fraction >= self.start_fraction else -1.0
        return tuple(
            round(self.start_fraction + direction * k * self.step_fraction, _LOAD_DIGITS)
            for k in range(self._steps() + 1)
        )


@dataclass(frozen=True, slots=True)
class RampResult:
    config: RampConfig
    steps: tuple[TimedTrial, ...]

    @property
    def first_lossy_step(self) -> TimedTrial | None:
        """The first valid step, in ramp order, that lost frames."""
        return next((s for s in self.steps if s.valid and s.lost > 0), None)

    @property
    def invalid_steps(self) -> int:
        return sum(1 for step in self.steps if not step.valid)


def run_ramp(config: RampConfig, recorder: Recorder) -> RampResult:
    steps = []
    offset = 0.0
    for index, load in enumerate(config.loads()):
        trial = recorder.trial(
            config.experiment,
            config.frame_size,
            load,
            config.step_duration_s,
            labels=(
                *config.labels,
                ("ramp_step", str(index)),
                ("offered_pct", f"{load * 100.0:.10g}"),
            ),
        )
        steps.append(_timed(index, offset, trial))
        offset += config.step_duration_s
    return RampResult(config, tuple(steps))


# ---- soak ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SoakConfig:
    frame_size: int
    offered_fraction: float
    total_duration_s: float
    interval_s: float
    experiment: str = "soak"
    labels: Labels = ()

    def __post_init__(self) -> None:
        owner = "SoakConfig"
        check_frame_size(owner, "frame_size", self.frame_size)
        check_fraction(owner, "offered_fraction", self.offered_fraction)
        check_positive(owner, "total_duration_s", self.total_duration_s, "seconds")
        check_positive(owner, "interval_s", self.interval_s, "seconds")
        check_name(owner, "experiment", self.experiment)
        check_labels(owner, self.labels)
        count = self._count()
        if count > MAX_TRIALS_PER_RUN:
            raise ValueError(
                f"{owner}: {count} intervals is more than {MAX_TRIALS_PER_RUN}; use a longer "
                "interval_s"
            )

    def _count(self) -> int:
        return max(1, math.ceil(self.total_duration_s / self.interval_s - _SLACK))

    def intervals(self) -> tuple[float, ...]:
        """Each interval's duration: interval_s, and what is left for the last one."""
        count = self._count()
        last = self.total_duration_s - (count - 1) * self.interval_s
        return (self.interval_s,) * (count - 1) + (last,)


@dataclass(frozen=True, slots=True)
class SoakTotals:
    """The whole soak; the valid intervals only (invalid ones are counted)."""

    intervals: int
    invalid_intervals: int
    tx_frames: int
    rx_frames: int
    lost: int  # each interval's per-stream losses added up: never netted by duplicates
    reordered: int
    duplicates: int
    intervals_with_loss: int
    intervals_with_reordering: int
    worst_interval: int | None  # index of the interval with the highest loss ratio
    worst_interval_loss_ratio: float

    @property
    def loss_ratio(self) -> float:
        return loss_ratio_of(self.lost, self.tx_frames)


@dataclass(frozen=True, slots=True)
class SoakResult:
    config: SoakConfig
    intervals: tuple[TimedTrial, ...]
    totals: SoakTotals


def _totals(intervals: tuple[TimedTrial, ...]) -> SoakTotals:
    valid = [i for i in intervals if i.valid]
    lossy = [i for i in valid if i.lost > 0]
    worst = max(lossy, key=lambda i: i.loss_ratio, default=None)
    return SoakTotals(
        intervals=len(intervals),
        invalid_intervals=len(intervals) - len(valid),
        tx_frames=sum(i.tx_frames for i in valid),
        rx_frames=sum(i.rx_frames for i in valid),
        lost=sum(i.lost for i in valid),
        reordered=sum(i.reordered for i in valid),
        duplicates=sum(i.duplicates for i in valid),
        intervals_with_loss=len(lossy),
        intervals_with_reordering=sum(1 for i in valid if i.reordered > 0),
        worst_interval=None if worst is None else worst.index,
        worst_interval_loss_ratio=0.0 if worst is None else worst.loss_ratio,
    )


def run_soak(config: SoakConfig, recorder: Recorder) -> SoakResult:
    intervals = []
    offset = 0.0
    for index, duration in enumerate(config.intervals()):
        trial = recorder.trial(
            config.experiment,
            config.frame_size,
            config.offered_fraction,
            duration,
            labels=(*config.labels, ("soak_interval", str(index))),
        )
        intervals.append(_timed(index, offset, trial))
        offset += duration
    done = tuple(intervals)
    return SoakResult(config, done, _totals(done))
