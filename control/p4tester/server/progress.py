"""What a running experiment has done so far: trials, the trial running now, and the
search bounds the finished trials imply (for the dashboard's convergence chart).

Bounds are read off the trials themselves, not out of the search's internals, so they
work for MLRsearch, the binary search and any experiment: per frame size, the NDR
lower bound is the highest load with no loss, its upper bound the lowest load with
loss; PDR likewise with the profile's loss ratio.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum

from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.results.model import StreamLoss, TrialResult
from p4tester.runs.stopping import StopRequested


class RunState(Enum):
    RUNNING = "running"
    STOPPING = "stopping"
    FINISHED = "finished"
    STOPPED = "stopped"  # by the user; finished trials kept
    FAILED = "failed"  # bad input or the switch broke; message says which
    INCOMPLETE = "incomplete"  # a past run without summary.json (the server was killed)


@dataclass(frozen=True, slots=True)
class TrialPoint:
    trial_index: int
    frame_size: int
    offered_fraction: float
    loss_ratio: float
    valid: bool


@dataclass(frozen=True, slots=True)
class Bounds:
    """Loads as fractions of line rate; None where no trial says yet."""

    frame_size: int
    ndr_lower: float | None
    ndr_upper: float | None
    pdr_lower: float | None
    pdr_upper: float | None


@dataclass(frozen=True, slots=True)
class CurrentTrial:
    trial_index: int
    frame_size: int
    offered_fraction: float
    offered_pps: float  # all streams of the profile together
    duration_s: float
    started_at: float


@dataclass(frozen=True, slots=True)
class Progress:
    run_id: str
    experiment: str
    state: RunState
    started_at: float
    trials_done: int
    current: CurrentTrial | None
    points: tuple[TrialPoint, ...]
    bounds: tuple[Bounds, ...]
    message: str = ""
    ended_at: float | None = None
    # Each stream's loss in the last valid trial (an invalid one's figures are not the
    # DUT's): per stream, as the searches judge it (results.model).
    stream_losses: tuple[StreamLoss, ...] = ()
    # Loads above the tester's calibrated capacity on this host (runs.loads): said
    # before the first trial, as the CLI says them.
    warnings: tuple[str, ...] = ()


def _bound(points: list[TrialPoint], lower: bool, limit: float) -> float | None:
    """lower: the highest load with loss ratio <= limit; else the lowest load above it."""
    loads = [p.offered_fraction for p in points if (p.loss_ratio <= limit) == lower]
    return (max(loads) if lower else min(loads)) if loads else None


def bounds_of(points: tuple[TrialPoint, ...], pdr_loss_ratio: float) -> tuple[Bounds, ...]:
    out = []
    for size in sorted({p.frame_size for p in points}):
        valid = [p for p in points if p.valid and p.frame_size == size]

        out.append(Bounds(size, _bound(valid, True, 0.0), _bound(valid, False, 0.0),
                          _bound(valid, True, pdr_loss_ratio),
                          _bound(valid, False, pdr_loss_ratio)))
    return tuple(out)


class ProgressTracker:
    """Mutable on purpose: one per run, written by the run's thread, read by requests."""

    def __init__(self, run_id: str, experiment: str, pdr_loss_ratio: float,
                 warnings: tuple[str, ...] = ()) -> None:
        self._lock = threading.Lock()
        self._pdr = pdr_loss_ratio
        self.stop_event = threading.Event()
        self._progress = Progress(run_id, experiment, RunState.RUNNING, time.time(), 0, None,
                                  (), (), warnings=warnings)

    def snapshot(self) -> Progress:
        with self._lock:
            return self._progress

    def trial_started(self, spec: TrialSpec, offered_pps: float) -> None:
        with self._lock:
            self._progress = replace(self._progress, current=CurrentTrial(
                spec.trial_index, spec.frame_size, spec.offered_fraction, offered_pps,
                spec.duration_s, time.time()))

    def trial_ended(self, point: TrialPoint, stream_losses: tuple[StreamLoss, ...] = ()) -> None:
        """`stream_losses`: the trial's (TrialResult.stream_losses); kept only when the
        trial is valid."""
        with self._lock:
            points = (*self._progress.points, point)
            losses = stream_losses if point.valid else self._progress.stream_losses
            self._progress = replace(self._progress, current=None, points=points,
                                     trials_done=len(points),
                                     bounds=bounds_of(points, self._pdr),
                                     stream_losses=losses)

    def request_stop(self) -> None:
        with self._lock:
            if self._progress.state is RunState.RUNNING:
                self._progress = replace(self._progress, state=RunState.STOPPING)
        self.stop_event.set()

    def end(self, state: RunState, message: str = "") -> None:
        with self._lock:
            self._progress = replace(self._progress, state=state, message=message,
                                     current=None, ended_at=time.time())


class ObservedRunner:
    """A TrialRunner that tells the tracker about each trial and stops between trials
    when asked (a switch trial in flight finishes: its frames are already counted)."""

    def __init__(self, inner: TrialRunner, tracker: ProgressTracker,
                 pps_at: Callable[[int], float],
                 beginning: Callable[[TrialSpec], None] = lambda spec: None) -> None:
        self._inner = inner
        self._tracker = tracker
        self._pps_at = pps_at  # frame size -> frames/s of all streams at 100 % load
        self._beginning = beginning  # told before each trial (the live figures' window)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        if self._tracker.stop_event.is_set():
            raise StopRequested
        self._beginning(spec)
        self._tracker.trial_started(spec, spec.offered_fraction * self._pps_at(spec.frame_size))
        try:
            result = self._inner.run_trial(spec)
        except Exception:
            # The Recorder logs it as an invalid trial; the chart shows it as one.
            self._tracker.trial_ended(TrialPoint(spec.trial_index, spec.frame_size,
                                                 spec.offered_fraction, 0.0, valid=False))
            raise
        self._tracker.trial_ended(TrialPoint(spec.trial_index, spec.frame_size,
                                             spec.offered_fraction, result.loss_ratio,
                                             result.valid), result.stream_losses)
        return result
