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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import Enum

from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.results.model import StreamLoss, TrialResult
from p4tester.runs.stopping import StopRequested

from .trial_plan import OPEN_PLAN, Outlook, TrialPlan, outlook


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
    offered_pps: float  # all streams the trial runs together
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
    # Wall seconds since the run started (to its end, once it ended), and how far it
    # has got against what its request planned (trial_plan).
    elapsed_s: float = 0.0
    outlook: Outlook | None = None


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


def search_points(trials: Iterable[TrialResult]) -> tuple[TrialPoint, ...]:
    """Recorded trials as the search chart and bounds take them."""
    return tuple(TrialPoint(t.trial_index, t.frame_size, t.offered_fraction, t.loss_ratio,
                            t.valid) for t in trials)


class ProgressTracker:
    """Mutable on purpose: one per run, written by the run's thread, read by requests."""

    def __init__(self, run_id: str, experiment: str, pdr_loss_ratio: float,
                 warnings: tuple[str, ...] = (), plan: TrialPlan = OPEN_PLAN,
                 recorded: Callable[[], int] | None = None) -> None:
        """`recorded`: the trials the run's record holds, the one count the dashboard
        shows (JobManager: its trials.jsonl); None: the trials seen here."""
        self._lock = threading.Lock()
        self._pdr = pdr_loss_ratio
        self._plan = plan
        self._recorded = recorded
        self.stop_event = threading.Event()
        self._progress = Progress(run_id, experiment, RunState.RUNNING, time.time(), 0, None,
                                  (), (), warnings=warnings)

    def snapshot(self) -> Progress:
        with self._lock:
            progress = self._progress
        done = self._recorded() if self._recorded is not None else progress.trials_done
        elapsed = (progress.ended_at or time.time()) - progress.started_at
        size = progress.current.frame_size if progress.current is not None else (
            progress.points[-1].frame_size if progress.points else None)
        seen = outlook(self._plan, done, elapsed, size)
        if progress.ended_at is not None:
            seen = replace(seen, left_s=None)  # nothing is left of an ended run
        return replace(progress, trials_done=done, elapsed_s=max(0.0, elapsed), outlook=seen)

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
                 offered_pps: Callable[[TrialSpec], float],
                 beginning: Callable[[TrialSpec], None] = lambda spec: None) -> None:
        self._inner = inner
        self._tracker = tracker
        self._offered_pps = offered_pps  # frames/s the trial offers, all streams it runs
        self._beginning = beginning  # told before each trial (the live figures' window)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        if self._tracker.stop_event.is_set():
            raise StopRequested
        self._beginning(spec)
        self._tracker.trial_started(spec, self._offered_pps(spec))
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
