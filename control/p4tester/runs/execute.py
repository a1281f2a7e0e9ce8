"""The one path every run takes, whichever front end started it: loads checked and
the log opened (`plan_run`), then the runner opened, every trial through one
recorder, the experiment's body, and the outputs written, also when the run ends
early (`run_experiment`). Front ends add only how they show progress (an `observe`
wrapper around the trial runner) and how they say the outcome."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.errors import ExperimentError, TesterUnanswered
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialRunner
from p4tester.results.jsonl import ResultLog
from p4tester.results.model import TrialResult
from p4tester.search.errors import SearchError

from .bodies import RunContext
from .catalog import Experiment
from .flows_record import flows_report, write_flows
from .loads import check_frame_sizes, check_loads, load_warnings
from .outputs import open_log, with_clocks, with_receivers, write_outputs, write_report
from .requests import ExperimentRequest
from .stopping import STOPPED_BY_USER, StopRequested


class RunEnd(Enum):
    FINISHED = "finished"
    STOPPED = "stopped"  # by the user; finished trials kept
    FAILED = "failed"  # the switch or DUT broke, or a search could not go on


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A checked run with its log open: what a front end then runs."""

    experiment: Experiment
    request: ExperimentRequest
    topology: Topology
    profile: Profile
    output: Path
    log: ResultLog
    warnings: tuple[str, ...]  # loads above the tester's calibrated capacity
    calibration: Path | None = None  # the stored capacity a search is capped at


@dataclass(frozen=True, slots=True)
class RunOutcome:
    end: RunEnd
    document: dict[str, Any]  # summary.json's
    text: str  # the report for a person, or why the run ended early
    trials: tuple[TrialResult, ...]

    @property
    def tester_unanswered(self) -> bool:
        """It ended because a tester (one of several, through its agent) stopped
        answering: its last trial failed so (experiments.errors.TesterUnanswered)."""
        last = self.trials[-1] if self.trials else None
        return (self.end is RunEnd.FAILED and last is not None and last.error is not None
                and last.error.startswith(f"{TesterUnanswered.__name__}:"))


def plan_run(experiment: Experiment, request: ExperimentRequest, topology: Topology,
             profile: Profile, output: Path, *, resume: bool = False, placement: str = "",
             calibration: Path | None = None) -> RunPlan:
    """ConfigError for what the experiment's body would refuse (its check), a frame
    size no stream carries, a load above line rate or an output directory holding
    another run (unless resuming), before the switch is touched: a front end refuses
    the request instead of starting a run that fails at once."""
    check_frame_sizes(request, profile)
    if experiment.check is not None:
        experiment.check(request, topology, profile)
    check_loads(request, topology, profile)
    warnings = tuple(load_warnings(request, topology, profile, calibration))
    log = open_log(output, experiment.name, profile.source, topology.source, resume,
                   placement)
    if experiment.sends_profile_flows:
        write_flows(output, profile)
    return RunPlan(experiment, request, topology, profile, output, log, warnings, calibration)


def failure_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def run_experiment(plan: RunPlan, runner: AbstractContextManager[TrialRunner], *,
                   observe: Callable[[TrialRunner], TrialRunner] | None = None) -> RunOutcome:
    """Runs the plan on the runner `runner` opens. A stop, a broken switch or a search
    that cannot go on end the run with its finished trials written and the reason in
    summary.json; any other error is written the same way, then raised."""
    recorder: Recorder | None = None
    try:
        with runner as opened:
            recorder = Recorder(observe(opened) if observe else opened, plan.log)
            result, text = plan.experiment.body(plan.request, RunContext(
                plan.topology, plan.profile, recorder, plan.output, plan.calibration))
    except StopRequested:
        return _ended_early(plan, recorder, RunEnd.STOPPED, STOPPED_BY_USER)
    except (ExperimentError, SearchError) as exc:
        # The switch or DUT broke mid-run, or a search could not go on (a trial that
        # stayed invalid): every trial, the failed ones with their error, is in
        # trials.jsonl already.
        return _ended_early(plan, recorder, RunEnd.FAILED, str(exc))
    except Exception as exc:
        _ended_early(plan, recorder, RunEnd.FAILED, failure_text(exc))
        raise
    text = with_clocks(with_receivers(text, recorder.trials), recorder.trials)
    if plan.experiment.sends_profile_flows and (flows := flows_report(plan.profile)):
        text = f"{text}\n\n{flows}"
    document = write_outputs(plan.output, result, recorder.trials, text)
    write_report(plan.output, text)
    return RunOutcome(RunEnd.FINISHED, document, text, recorder.trials)


def _ended_early(plan: RunPlan, recorder: Recorder | None, end: RunEnd,
                 reason: str) -> RunOutcome:
    trials = recorder.trials if recorder is not None else ()
    document = write_outputs(plan.output, {"stopped": reason}, trials)
    write_report(plan.output, reason)
    return RunOutcome(end, document, reason, trials)
