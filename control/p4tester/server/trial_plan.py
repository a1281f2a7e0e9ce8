"""What a run is expected to do, read off its request before the first trial, and how
far along it is: the dashboard's "trials done of N", "elapsed of total" and estimate of
what is left (issue 43, point 3).

Only what the request fixes is promised: a ramp's steps, a frame-size scan's sizes, a
latency run's trials, Y.1564's steps and a soak's seconds are known in advance; a
search (throughput, RFC 2889, back-to-back, frame loss, address caching) decides its
next load from the last trial, so it gets its phases (one per frame size) and an
honest "N trials so far", never an invented total.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.frame_size_scan import FrameSizeScanConfig
from p4tester.experiments.ramp_soak import RampConfig, SoakConfig
from p4tester.runs.loads import fraction_at
from p4tester.runs.requests import (
    ExperimentRequest,
    FrameSizeScanRequest,
    LatencyRequest,
    QueueSweepRequest,
    RampRequest,
    Rfc2889Request,
    ShapeRequest,
    SoakRequest,
    ThroughputRequest,
    Y1564Request,
)


class PlanKind(Enum):
    TRIALS = "trials"  # a number of trials known in advance
    DURATION = "duration"  # a soak: seconds of traffic known in advance
    SEARCH = "search"  # the next load depends on the last trial: phases only
    OPEN = "open"  # nothing known in advance


@dataclass(frozen=True, slots=True)
class TrialPlan:
    kind: PlanKind
    planned_trials: int | None = None
    # DURATION: each interval's seconds (the last may be shorter), in order.
    intervals_s: tuple[float, ...] = ()
    # SEARCH: the frame sizes searched in turn, one phase each.
    phases: tuple[int, ...] = ()


# Nothing known in advance (an experiment this module does not know).
OPEN_PLAN: Final = TrialPlan(PlanKind.OPEN)


@dataclass(frozen=True, slots=True)
class Outlook:
    """How far a run has got, for a person: `text` says it in words."""

    text: str
    planned_trials: int | None
    planned_s: float | None  # a soak's traffic seconds
    done_s: float | None  # a soak's traffic seconds in finished intervals
    left_s: float | None  # wall seconds still to go, estimated from the pace so far


def plan_of(request: ExperimentRequest, topology: Topology, profile: Profile) -> TrialPlan:
    """The plan `request` fixes (after plan_run checked it: its configs build)."""
    if isinstance(request, SoakRequest):
        config = SoakConfig(frame_size=request.frame_size,
                            offered_fraction=fraction_at(request.load, request.frame_size,
                                                         topology, profile),
                            total_duration_s=request.total_s, interval_s=request.interval_s)
        intervals = config.intervals()
        return TrialPlan(PlanKind.DURATION, len(intervals), intervals)
    count = _trials_known(request, topology, profile)
    if count is not None:
        return TrialPlan(PlanKind.TRIALS, count)
    if isinstance(request, ThroughputRequest | Rfc2889Request):
        return TrialPlan(PlanKind.SEARCH, phases=request.frame_sizes or profile.frame_sizes)
    return OPEN_PLAN


def _trials_known(request: ExperimentRequest, topology: Topology,
                  profile: Profile) -> int | None:
    if isinstance(request, LatencyRequest):
        return request.trials
    if isinstance(request, ShapeRequest):
        return 1  # one trial, its steps inside it
    if isinstance(request, RampRequest):
        size = request.frame_size
        return len(RampConfig(frame_size=size,
                              start_fraction=fraction_at(request.start, size, topology, profile),
                              end_fraction=fraction_at(request.end, size, topology, profile),
                              step_fraction=fraction_at(request.step, size, topology, profile),
                              step_duration_s=1.0).loads())
    if isinstance(request, FrameSizeScanRequest):
        return len(FrameSizeScanConfig(start_size=request.start, end_size=request.end,
                                       step=request.step, offered_fraction=request.load,
                                       trial_duration_s=1.0).sizes())
    if isinstance(request, QueueSweepRequest):
        sizes = request.frame_sizes or profile.frame_sizes
        return len(sizes) * len(request.buffer_percents) * request.repetitions
    if isinstance(request, Y1564Request):
        return _y1564_trials(request, profile)
    return None


def _y1564_trials(request: Y1564Request, profile: Profile) -> int:
    """Per service: a trial per CIR step, then EIR (when it has one) and policing; then
    one performance trial for all services (experiments.y1564)."""
    configuration = sum(len(request.cir_steps_pct) + (2 if s.eir_bps > 0 else 1)
                        for s in profile.services) if request.tests != "performance" else 0
    return configuration + (1 if request.tests != "configuration" else 0)


def outlook(plan: TrialPlan, trials_done: int, elapsed_s: float,
            current_frame_size: int | None) -> Outlook:
    """Where the run stands after `trials_done` trials and `elapsed_s` wall seconds;
    what is left is the pace so far carried over the rest (None before a trial ends)."""
    if plan.kind is PlanKind.DURATION:
        total = sum(plan.intervals_s)
        done = sum(plan.intervals_s[:trials_done])
        left = elapsed_s * (total - done) / done if done > 0 else None
        return Outlook(f"soak: {done:g} s of {total:g} s ({trials_done} of "
                       f"{len(plan.intervals_s)} intervals)", len(plan.intervals_s), total,
                       done, left)
    if plan.kind is PlanKind.TRIALS and plan.planned_trials is not None:
        planned = plan.planned_trials
        left = (elapsed_s * max(0, planned - trials_done) / trials_done
                if trials_done > 0 else None)
        return Outlook(f"{trials_done} of {planned} trials", planned, None, None, left)
    if plan.kind is PlanKind.SEARCH and plan.phases:
        phase = (plan.phases.index(current_frame_size) + 1
                 if current_frame_size in plan.phases else None)
        where = (f"frame size {current_frame_size} B, phase {phase} of {len(plan.phases)}; "
                 if phase is not None else f"{len(plan.phases)} frame sizes; ")
        return Outlook(f"search: {where}{trials_done} trials so far", None, None, None, None)
    return Outlook(f"{trials_done} trials so far", None, None, None, None)
