"""Runs experiments for the API, one at a time per switch, each in its own thread,
along the CLI's path: results dir -> recorder -> the CLI's experiment body ->
summary, CSV, plots. A stopped or failed run keeps its finished trials and says
why in summary.json, as an interrupted CLI run keeps them in trials.jsonl."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from p4tester.cli.experiment_cmds import (
    Body,
    back_to_back_body,
    check_loads,
    frame_loss_body,
    frame_size_scan_body,
    latency_body,
    queue_sweep_body,
    ramp_body,
    soak_body,
    throughput_body,
)
from p4tester.cli.run_output import open_log, write_outputs
from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.stream_rates import profile_pps
from p4tester.config.topology import Topology
from p4tester.experiments.errors import ExperimentError
from p4tester.experiments.recording import Recorder
from p4tester.lab.placement import observed_placement
from p4tester.results.jsonl import ResultLog

from .backend import Backend
from .options import parse_options
from .progress import ObservedRunner, Progress, ProgressTracker, RunState, StopRequested
from .runs import STOPPED_BY_USER, new_run_id

# The CLI's experiment bodies by subcommand name (cli/experiment_cmds.EXPERIMENTS).
BODIES: Final[Mapping[str, Body]] = {
    "throughput": throughput_body, "latency": latency_body, "frame-loss": frame_loss_body,
    "back-to-back": back_to_back_body, "frame-size-scan": frame_size_scan_body,
    "ramp": ramp_body, "soak": soak_body, "queue-sweep": queue_sweep_body,
}
RESULT_TEXT_FILE: Final = "result.txt"


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

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def progress(self) -> Progress | None:
        """The running run's progress, else the last run's (None before the first)."""
        tracker = self._tracker
        return tracker.snapshot() if tracker is not None else None

    def start(self, experiment: str,
              options: Mapping[str, str | int | float | bool]) -> Progress:
        """OptionError / ConfigError for bad input, BusyError while a run is going."""
        args = parse_options(experiment, options)
        if experiment == "queue-sweep" and self._backend.simulated:
            # The sweep steps a BMv2 DUT's buffer over thrift; there is none to step.
            raise ConfigError("queue-sweep steps a bmv2 DUT's buffer over thrift: it needs a "
                              "lab switch, not --simulate")
        check_loads(args, self._topology, self._profile)
        with self._lock:
            if self.busy:
                raise BusyError(self._busy_message())
            run_id = new_run_id(self._results, experiment)
            output = self._results / run_id
            args.output, args.resume, args.push_pipeline, args.json = output, False, False, False
            log = open_log(output, experiment, self._profile.source, self._topology.source,
                           resume=False, placement=observed_placement(self._topology))
            tracker = ProgressTracker(run_id, experiment, self._profile.search.pdr_loss_ratio)
            thread = threading.Thread(target=self._run, name=f"run-{run_id}", daemon=True,
                                      args=(experiment, args, output, log, tracker))
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

    def _pps_at(self, frame_size: int) -> float:
        """Frames/s of all the profile's streams at 100 % load."""
        return profile_pps(self._topology, self._profile, frame_size)

    def _run(self, experiment: str, args: argparse.Namespace, output: Path, log: ResultLog,
             tracker: ProgressTracker) -> None:
        recorder: Recorder | None = None
        try:
            with self._backend.trial_runner(tracker.stop_event) as runner:
                recorder = Recorder(ObservedRunner(runner, tracker, self._pps_at), log)
                result, text = BODIES[experiment](args, self._topology, self._profile,
                                                  recorder, output)
            write_outputs(output, result, recorder.trials, text)
            (output / RESULT_TEXT_FILE).write_text(text + "\n")
            tracker.end(RunState.FINISHED)
        except StopRequested:
            self._end_early(output, recorder, tracker, RunState.STOPPED, STOPPED_BY_USER)
        except ExperimentError as exc:
            self._end_early(output, recorder, tracker, RunState.FAILED, str(exc))
        except Exception as exc:  # bad input found late, switch down: said in the run
            self._end_early(output, recorder, tracker, RunState.FAILED,
                            f"{type(exc).__name__}: {exc}")

    @staticmethod
    def _end_early(output: Path, recorder: Recorder | None, tracker: ProgressTracker,
                   state: RunState, message: str) -> None:
        trials = recorder.trials if recorder is not None else ()
        write_outputs(output, {"stopped": message}, trials)
        (output / RESULT_TEXT_FILE).write_text(f"{message}\n")
        tracker.end(state, message)
