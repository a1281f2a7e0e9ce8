"""Runs experiments for the API, one at a time per switch, each in its own thread,
along the application layer's one path (runs.execute), as the CLI does. A stopped or
failed run keeps its finished trials and says why in summary.json."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

from p4tester.config.profile import Profile
from p4tester.config.stream_rates import profile_pps, stream_pps
from p4tester.config.topology import Topology
from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.lab.placement import observed_placement
from p4tester.runs.catalog import experiment_named
from p4tester.runs.execute import RunEnd, RunPlan, failure_text, plan_run, run_experiment
from p4tester.runs.simulated_switch import check_simulated

from .backend import Backend, BackendUnavailableError
from .live_scope import LiveScope
from .options import parse_options
from .progress import ObservedRunner, Progress, ProgressTracker, RunState
from .runs import new_run_id, recorded_trials
from .trial_plan import plan_of

# How each way a run ends shows on the dashboard.
_STATES = {RunEnd.FINISHED: RunState.FINISHED, RunEnd.STOPPED: RunState.STOPPED,
           RunEnd.FAILED: RunState.FAILED}


class BusyError(RuntimeError):
    """An experiment is already running on this switch."""


class NothingRunningError(RuntimeError):
    pass


class JobManager:
    """Mutable on purpose: the one run in progress (and the last one, for its progress)."""

    def __init__(self, topology: Topology, profile: Profile, backend: Backend,
                 results_dir: Path) -> None:
        self._topology = topology
        self._profile = profile
        self._backend = backend
        self._results = results_dir
        self._lock = threading.Lock()
        self._tracker: ProgressTracker | None = None
        self._thread: threading.Thread | None = None
        self._scope = LiveScope()

    def scope(self) -> LiveScope:
        """The live figures' window: the current (or last) trial, once one ran."""
        return self._scope

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def progress(self) -> Progress | None:
        """The running run's progress, else the last run's (None before the first)."""
        tracker = self._tracker
        return tracker.snapshot() if tracker is not None else None

    def current(self) -> tuple[bool, Progress | None]:
        """Whether a run is going, and the progress that goes with it. Busy is read
        first: a run that ends in between then shows its final state, never "not
        busy" beside a run still stopping (its thread records the end, then exits)."""
        busy = self.busy
        return busy, self.progress()

    def start(self, experiment: str,
              options: Mapping[str, str | int | float | bool]) -> Progress:
        """RequestError / ConfigError for bad input, BusyError while a run is going."""
        request = parse_options(experiment, options)
        if self._backend.simulated:
            check_simulated(experiment)
        with self._lock:
            if self.busy:
                raise BusyError(self._busy_message())
            run_id = new_run_id(self._results, experiment)
            plan = plan_run(experiment_named(experiment), request, self._topology,
                            self._profile, self._results / run_id,
                            placement=observed_placement(self._topology))
            results = self._results
            tracker = ProgressTracker(run_id, experiment, self._profile.search.pdr_loss_ratio,
                                      plan.warnings,
                                      plan_of(request, self._topology, self._profile),
                                      lambda: recorded_trials(results, run_id))
            thread = threading.Thread(target=self._run, name=f"run-{run_id}", daemon=True,
                                      args=(plan, tracker))
            self._tracker, self._thread = tracker, thread
            thread.start()
            return tracker.snapshot()

    def stop(self) -> Progress:
        with self._lock:
            tracker = self._tracker
            if tracker is None or not self.busy:
                raise NothingRunningError("no experiment is running")
            tracker.request_stop()
            return tracker.snapshot()

    def wait(self, timeout_s: float) -> bool:
        """True when no run is going (after at most timeout_s)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
        return not self.busy

    def _busy_message(self) -> str:
        progress = self.progress()
        what = f"{progress.experiment} run {progress.run_id}" if progress else "a run"
        return (f"{what} is running on switch {self._topology.switch.grpc}: one experiment "
                "per switch at a time; stop it first (POST /api/current/stop)")

    def _offered_pps(self, spec: TrialSpec) -> float:
        """Frames/s the trial offers: all the profile's streams at its load, or only
        the streams it names at their own loads (a Y.1564 service step)."""
        if not spec.stream_loads:
            return profile_pps(self._topology, self._profile, spec.frame_size,
                               spec.offered_fraction)
        streams = {s.id: s for s in self._profile.streams}
        return sum(stream_pps(self._topology, streams[stream_id], spec.frame_size, load)
                   for stream_id, load in spec.stream_loads)

    def _trial_beginning(self, run_id: str, spec: TrialSpec) -> None:
        """The reading the live figures count from while this trial runs (and after,
        until the next): the registers beside them restart with it. A switch that
        cannot be read now leaves them since its start, said so."""
        try:
            baseline = self._backend.read()
        except BackendUnavailableError:
            self._scope = LiveScope()
            return
        self._scope = LiveScope(baseline, run_id, spec.trial_index)

    def _run(self, plan: RunPlan, tracker: ProgressTracker) -> None:
        run_id = tracker.snapshot().run_id

        def observe(runner: TrialRunner) -> TrialRunner:
            return ObservedRunner(runner, tracker, self._offered_pps,
                                  lambda spec: self._trial_beginning(run_id, spec))

        try:
            outcome = run_experiment(plan, self._backend.trial_runner(tracker.stop_event),
                                     observe=observe)
        except Exception as exc:  # bad input found late, switch down: said in the run
            tracker.end(RunState.FAILED, failure_text(exc))
            return
        finished = outcome.end is RunEnd.FINISHED
        tracker.end(_STATES[outcome.end], "" if finished else outcome.text)
