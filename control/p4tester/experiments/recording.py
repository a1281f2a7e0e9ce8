"""Every trial of an experiment goes through a Recorder: numbered, logged the moment it
ends, resumable, and never lost to a runner that raises.

- Numbering: trial indexes go up by one per experiment name, in the order the
  experiment asks for trials. Experiments are deterministic given their trials'
  results, so a rerun asks for the same trials in the same order: trial k of the
  rerun is trial k of the first run.
- Crash safety: each TrialResult is appended to the ResultLog (one fsynced line)
  before the experiment sees it, so a killed controller loses at most the trial
  that was running.
- Resume: a trial whose (experiment, trial_index) already finished in the log is not
  run again; its logged result is returned instead. Finished means valid, or invalid
  but followed by later trials of the same experiment: the first run already acted
  on that invalid trial (repeated it, or left it out), so replaying it keeps the rerun
  on the same path. Only an invalid trial at the end of an experiment's log (the run
  stopped there) is run again. A logged trial run with other parameters stops the run
  (ResumeMismatchError) instead of mixing two configurations in one file.
- A runner that raises (the switch died, a read timed out) gives an invalid trial
  (valid=False, error = the exception), logged like any other: the experiment decides
  whether to repeat or stop, and nothing finished before is lost.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from p4tester.results.jsonl import ResultLog
from p4tester.results.model import TrialResult
from p4tester.search.trials import (
    NOT_DRAINED_ATTEMPTS,
    TESTER_LIMITED_ATTEMPTS,
    not_drained_message,
)
from p4tester.streams.rates import IFG_BITS
from p4tester.streams.shapes import TrafficShape

from .errors import (
    InvalidTrialsError,
    ResumeMismatchError,
    TesterUnanswered,
    UnvouchedTrialError,
)
from .runner import TrialRunner, TrialSpec

Labels = tuple[tuple[str, str], ...]

# One repeat, as the searches do: a single failure is often transient (a slow counter
# read), two in a row at the same load mean the setup is broken.
DEFAULT_ATTEMPTS: Final = 2
# MLRsearch works in log space and may hand back line rate a rounding error above 1.
_LINE_RATE_SLACK: Final = 1e-9

_LOG = logging.getLogger(__name__)


def _merged_labels(first: Labels, second: Labels) -> Labels:
    """first, then the pairs of second whose names first does not have."""
    names = {name for name, _ in first}
    return first + tuple(pair for pair in second if pair[0] not in names)


class Recorder:
    """Runs TrialSpecs through a TrialRunner and logs each result (see module doc).

    Itself a TrialRunner, so it can stand wherever one is expected. Mutable on
    purpose: one recorder follows one run from start to end. Pass a ResultLog that
    has been `start`ed (ResultLog.append refuses a file without a header), or None to
    keep the trials in memory only.
    """

    __slots__ = (
        "_clock",
        "_finished",
        "_log",
        "_next_index",
        "_ran",
        "_resumed",
        "_runner",
        "_trials",
    )

    def __init__(
        self,
        runner: TrialRunner,
        log: ResultLog | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._runner = runner
        self._log = log
        self._clock = clock
        self._finished = _finished_trials(log)
        self._next_index: dict[str, int] = {}
        self._trials: list[TrialResult] = []
        self._ran = 0
        self._resumed = 0

    @property
    def trials(self) -> tuple[TrialResult, ...]:
        """This run's trials in order, the ones taken from the log included."""
        return tuple(self._trials)

    @property
    def ran_count(self) -> int:
        """Trials handed to the runner in this run (invalid ones included)."""
        return self._ran

    @property
    def resumed_count(self) -> int:
        """Trials answered from the log instead of being run again."""
        return self._resumed

    def next_index(self, experiment: str) -> int:
        """The trial index the next trial of `experiment` will get."""
        return self._next_index.get(experiment, 0)

    def trial(
        self,
        experiment: str,
        frame_size: int,
        offered_fraction: float,
        duration_s: float,
        *,
        frame_count: int | None = None,
        labels: Labels = (),
        reference_loop: bool = False,
        stream_loads: tuple[tuple[int, float], ...] = (),
        shapes: tuple[tuple[int, TrafficShape], ...] = (),
        shape_step_s: float = 0.5,
        variation_lengths: tuple[tuple[int, int], ...] = (),
        inter_frame_gap_bits: int = IFG_BITS,
    ) -> TrialResult:
        """Run (or resume) the next trial of `experiment` with these parameters
        (`reference_loop`: a latency trial; `stream_loads`: only these streams, each at
        its own load; `shapes`: these streams' rates shaped; `inter_frame_gap_bits`:
        RFC 2889's forward pressure, above line rate; TrialSpec)."""
        spec = TrialSpec(
            experiment=experiment,
            trial_index=self.next_index(experiment),
            frame_size=frame_size,
            offered_fraction=offered_fraction,
            duration_s=duration_s,
            frame_count=frame_count,
            labels=labels,
            reference_loop=reference_loop,
            stream_loads=stream_loads,
            shapes=shapes,
            shape_step_s=shape_step_s,
            variation_lengths=variation_lengths,
            inter_frame_gap_bits=inter_frame_gap_bits,
        )
        return self.run_trial(spec)

    def valid_trial(
        self,
        experiment: str,
        frame_size: int,
        offered_fraction: float,
        duration_s: float,
        *,
        frame_count: int | None = None,
        labels: Labels = (),
        attempts: int = DEFAULT_ATTEMPTS,
        fails_above: float | None = None,
        reference_loop: bool = False,
        stream_loads: tuple[tuple[int, float], ...] = (),
        shapes: tuple[tuple[int, TrafficShape], ...] = (),
        shape_step_s: float = 0.5,
        variation_lengths: tuple[tuple[int, int], ...] = (),
        inter_frame_gap_bits: int = IFG_BITS,
    ) -> TrialResult:
        """`trial`, repeated (each attempt its own trial index) while invalid: up to
        `attempts` failed trials (InvalidTrialsError), and up to
        TESTER_LIMITED_ATTEMPTS trials that the tester or a lab DUT could not vouch for
        (UnvouchedTrialError: the host, not the DUT under test, was the limit).

        `fails_above`: for an experiment that only asks whether the loss ratio exceeds
        this: when every one of the TESTER_LIMITED_ATTEMPTS host-limited trials has a DUT
        loss floor (results.model) above it, that is a definite answer, and the trial
        with the smallest floor is returned (invalid, with its figures) as it is."""
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts}")
        errors: list[str] = []
        unvouched: list[str] = []
        limited: list[TrialResult] = []
        busy: list[TrialResult] = []
        while len(errors) < attempts:
            result = self.trial(
                experiment,
                frame_size,
                offered_fraction,
                duration_s,
                frame_count=frame_count,
                labels=labels,
                reference_loop=reference_loop,
                stream_loads=stream_loads,
                shapes=shapes,
                shape_step_s=shape_step_s,
                variation_lengths=variation_lengths,
                inter_frame_gap_bits=inter_frame_gap_bits,
            )
            if result.valid:
                return result
            if result.dut_not_drained and not result.host_limited:
                busy.append(result)
                if len(busy) >= NOT_DRAINED_ATTEMPTS:
                    raise InvalidTrialsError(f"{experiment}: {not_drained_message(busy)}",
                                             result)
                continue
            if result.host_limited:
                limited.append(result)
                unvouched.append(f"trial {result.trial_index}: {result.error}")
                if len(unvouched) >= TESTER_LIMITED_ATTEMPTS:
                    # A DUT loss floor is believed when every repeat shows it (as in
                    # search.trials): the smallest of them answers.
                    least = min(limited, key=lambda t: t.dut_loss_floor_ratio)
                    if fails_above is not None and least.dut_loss_floor_ratio > fails_above:
                        return least
                    raise UnvouchedTrialError(
                        f"{experiment}: {len(unvouched)} trial(s) at {frame_size} B, "
                        f"{offered_fraction:.6g} of line rate could not be vouched for "
                        f"({'; '.join(unvouched)}): this host cannot carry the load; a "
                        "quieter host or a lower load measures the DUT", result)
                continue
            errors.append(f"trial {result.trial_index}: {result.error or 'no error given'}")
        burst = f", burst of {frame_count} frames" if frame_count is not None else ""
        raise InvalidTrialsError(
            f"{experiment}: {attempts} trial(s) in a row were invalid at {frame_size} B, "
            f"{offered_fraction:.6g} of line rate{burst} ({'; '.join(errors)}); fix the "
            "switch or the link, then rerun with the same results file to resume",
            result,
        )

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        """Run one spec as given (its own trial index), or return it from the log."""
        key = (spec.experiment, spec.trial_index)
        self._next_index[spec.experiment] = max(
            self.next_index(spec.experiment), spec.trial_index + 1
        )
        logged = self._finished.get(key)
        if logged is not None:
            self._check_same(logged, spec)
            self._resumed += 1
            self._trials.append(logged)
            return logged
        result = self._run(spec)
        self._ran += 1
        if self._log is not None:
            self._log.append(result)  # on disk before anyone acts on it
        if result.valid:
            self._finished[key] = result
        self._trials.append(result)
        return result

    def _run(self, spec: TrialSpec) -> TrialResult:
        started_at = self._clock()
        try:
            result = self._runner.run_trial(spec)
        except Exception as error:  # a dying switch must not take finished trials along
            # A tester that stopped answering is said in full by its message.
            _LOG.warning(
                "%s trial %d failed: %s", spec.experiment, spec.trial_index, error,
                exc_info=not isinstance(error, TesterUnanswered)
            )
            return TrialResult(
                experiment=spec.experiment,
                trial_index=spec.trial_index,
                offered_fraction=spec.offered_fraction,
                offered_pps=0.0,  # unknown: the runner did not get to say
                duration_s=spec.duration_s,
                frame_size=spec.frame_size,
                started_at=started_at,
                valid=False,
                error=f"{type(error).__name__}: {error}",
                labels=spec.labels,
            )
        # The recorder owns the trial's identity: a runner may number its trials its own
        # way, but the log and resume need the spec's experiment, index and labels.
        return replace(
            result,
            experiment=spec.experiment,
            trial_index=spec.trial_index,
            labels=_merged_labels(spec.labels, result.labels),
        )

    def _check_same(self, logged: TrialResult, spec: TrialSpec) -> None:
        where = self._log.path if self._log is not None else "results log"
        spec_labels = set(spec.labels)
        if (
            logged.frame_size != spec.frame_size
            or logged.offered_fraction != spec.offered_fraction
            or not spec_labels <= set(logged.labels)
        ):
            raise ResumeMismatchError(
                f"{where}: {spec.experiment} trial {spec.trial_index} was run at "
                f"{logged.frame_size} B, {logged.offered_fraction:.9g} of line rate, labels "
                f"{logged.labels}; this run asks for {spec.frame_size} B, "
                f"{spec.offered_fraction:.9g}, labels {spec.labels}: the configuration "
                "changed since the log was written; resume with the same configuration or "
                "use a new results file"
            )


def _finished_trials(log: ResultLog | None) -> dict[tuple[str, int], TrialResult]:
    """The logged trials a rerun replays (see the module doc), by key."""
    if log is None or not log.path.exists():
        return {}
    trials = log.load()
    last_index: dict[str, int] = {}
    for trial in trials:
        last_index[trial.experiment] = max(last_index.get(trial.experiment, 0), trial.trial_index)
    finished: dict[tuple[str, int], TrialResult] = {}
    for trial in trials:
        key = (trial.experiment, trial.trial_index)
        superseded = trial.trial_index < last_index[trial.experiment]
        earlier = finished.get(key)
        if earlier is not None and earlier.valid and not trial.valid:
            continue  # a valid record of a key beats an invalid one
        if trial.valid or superseded:
            finished[key] = trial
    return finished


@dataclass(frozen=True, slots=True)
class SpecMeasurer:
    """The search Measurer protocol on top of a Recorder: every search trial is a
    logged, numbered trial of `experiment` at `frame_size`, labelled `labels`.

    `stream_shares`: (stream id, share) pairs: only these streams run, each at the
    searched load x its share of its TX port's line rate (an RFC 2889 traffic
    pattern); empty: every stream of the profile at its own share."""

    recorder: Recorder
    frame_size: int
    experiment: str
    labels: Labels = ()
    stream_shares: tuple[tuple[int, float], ...] = ()

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        if 1.0 < offered_fraction <= 1.0 + _LINE_RATE_SLACK:
            offered_fraction = 1.0
        return self.recorder.trial(
            self.experiment, self.frame_size, offered_fraction, duration_s, labels=self.labels,
            stream_loads=tuple((stream_id, offered_fraction * share)
                               for stream_id, share in self.stream_shares),
        )
