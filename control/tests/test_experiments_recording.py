"""Recorder: numbering, immediate logging, crash safety and resume; SpecMeasurer."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from p4tester.experiments.back_to_back import BackToBackConfig, run_back_to_back
from p4tester.experiments.errors import (
    InvalidTrialsError,
    ResumeMismatchError,
    TesterUnanswered,
    UnvouchedTrialError,
)
from p4tester.experiments.frame_loss import FrameLossConfig, run_frame_loss
from p4tester.experiments.recording import Recorder, SpecMeasurer
from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.simulated_runner import CrashingRunner, SimulatedDut, SimulatedRunner
from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.results.jsonl import ResultLog, RunHeader
from p4tester.results.model import StreamStats, TrialResult
from p4tester.results.settle import SettleRecord
from p4tester.search import binary_search
from p4tester.search.goals import SearchGoal

HALF_CAPACITY = SimulatedDut(capacity_by_size=lambda size: 0.5)


def started_log(path: Path) -> ResultLog:
    log = ResultLog(path)
    log.start(RunHeader("rfc2544", "sim", "sim", started_at=0.0, tool_version="test"))
    return log


class ListRunner:
    """Remembers the specs it was given; answers with an empty valid trial."""

    def __init__(self) -> None:
        self.specs: list[TrialSpec] = []

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        self.specs.append(spec)
        return TrialResult(
            experiment="runner-own-name",
            trial_index=999,
            offered_fraction=spec.offered_fraction,
            offered_pps=1.0,
            duration_s=spec.duration_s,
            frame_size=spec.frame_size,
            labels=(("runner", "list"), ("step", "runner-says")),
        )


def test_indexes_go_up_per_experiment_and_identity_comes_from_the_spec() -> None:
    runner = ListRunner()
    recorder = Recorder(runner)
    a0 = recorder.trial("a", 64, 0.5, 1.0, labels=(("step", "0"),))
    b0 = recorder.trial("b", 64, 0.5, 1.0)
    a1 = recorder.trial("a", 128, 0.25, 1.0)
    assert [(t.experiment, t.trial_index) for t in (a0, b0, a1)] == [("a", 0), ("b", 0), ("a", 1)]
    assert [s.trial_index for s in runner.specs] == [0, 0, 1]
    # The spec's labels win over the runner's; the runner's others are kept.
    assert a0.labels == (("step", "0"), ("runner", "list"))
    assert recorder.next_index("a") == 2
    assert recorder.ran_count == 3
    assert recorder.resumed_count == 0
    assert recorder.trials == (a0, b0, a1)


def test_explicit_spec_moves_the_counter_past_it() -> None:
    recorder = Recorder(ListRunner())
    recorder.run_trial(TrialSpec("a", 7, 64, 0.5, 1.0))
    assert recorder.next_index("a") == 8


def test_every_trial_is_on_disk_when_the_experiment_sees_it(tmp_path: Path) -> None:
    log = started_log(tmp_path / "run.jsonl")
    seen_on_disk: list[int] = []

    class CheckingRunner(ListRunner):
        def run_trial(self, spec: TrialSpec) -> TrialResult:
            # Everything before this trial is already in the file.
            seen_on_disk.append(len(log.load()))
            return super().run_trial(spec)

    recorder = Recorder(CheckingRunner(), log)
    for _ in range(3):
        recorder.trial("a", 64, 0.5, 1.0)
    assert seen_on_disk == [0, 1, 2]
    assert [t.trial_index for t in log.load()] == [0, 1, 2]


def test_runner_exception_becomes_a_logged_invalid_trial(tmp_path: Path) -> None:
    log = started_log(tmp_path / "run.jsonl")
    runner = CrashingRunner(SimulatedRunner(), frozenset({1}), "switch gone")
    recorder = Recorder(runner, log, clock=lambda: 123.0)
    first = recorder.trial("a", 64, 0.5, 0.01)
    crashed = recorder.trial("a", 64, 0.4, 0.01, labels=(("step", "1"),))
    assert first.valid
    assert not crashed.valid
    assert crashed.error == "ConnectionError: switch gone"
    assert (crashed.trial_index, crashed.offered_fraction, crashed.frame_size) == (1, 0.4, 64)
    assert (crashed.offered_pps, crashed.streams, crashed.started_at) == (0.0, (), 123.0)
    assert crashed.labels == (("step", "1"),)
    assert log.load() == [first, crashed]
    # Invalid trials are not "finished": a resumed run retries them.
    assert log.finished_keys() == frozenset({("a", 0)})


class _AgentGone:
    def run_trial(self, spec: TrialSpec) -> TrialResult:
        raise TesterUnanswered("tester east's agent at 127.0.0.1:8462 did not answer")


def test_a_tester_that_stopped_answering_is_logged_by_its_message_alone(
        caplog: pytest.LogCaptureFixture) -> None:
    """Its message names the tester and where: no traceback beside it."""
    crashed = Recorder(_AgentGone()).trial("a", 64, 0.5, 0.01)
    assert crashed.error == ("TesterUnanswered: tester east's agent at 127.0.0.1:8462 did "
                             "not answer")
    (record,) = caplog.records
    assert record.getMessage() == ("a trial 0 failed: tester east's agent at 127.0.0.1:8462 "
                                   "did not answer")
    assert not record.exc_info


def test_valid_trial_repeats_then_gives_up_naming_every_attempt() -> None:
    runner = CrashingRunner(SimulatedRunner(), frozenset({0, 1, 2}))
    recorder = Recorder(runner)
    with pytest.raises(InvalidTrialsError, match=re.escape("2 trial(s) in a row were invalid")):
        recorder.valid_trial("a", 64, 0.5, 0.01)
    with pytest.raises(InvalidTrialsError, match="trial 2: ConnectionError"):
        recorder.valid_trial("a", 64, 0.5, 0.01, attempts=1)
    repeated = recorder.valid_trial("a", 64, 0.5, 0.01)
    assert (repeated.valid, repeated.trial_index) == (True, 3)
    with pytest.raises(ValueError, match="attempts must be at least 1"):
        recorder.valid_trial("a", 64, 0.5, 0.01, attempts=0)


def test_crash_on_trial_k_then_resume_skips_the_finished_trials(tmp_path: Path) -> None:
    """A switch that dies at trial 3 of a frame-loss run: trial 3 and its repeat are
    logged invalid, 0..2 are kept; the resumed run replays 0..3 from the log (3 was
    already repeated) and runs from the repeat, trial 4, on."""
    path = tmp_path / "flr.jsonl"
    config = FrameLossConfig(frame_sizes=(64,), trial_duration_s=0.01)
    dying = CrashingRunner(SimulatedRunner(HALF_CAPACITY), frozenset({3, 4}))
    with pytest.raises(InvalidTrialsError, match="fix the switch"):
        run_frame_loss(config, Recorder(dying, started_log(path)))
    logged = ResultLog(path).load()
    assert [(t.trial_index, t.valid, t.offered_fraction) for t in logged] == [
        (0, True, 1.0),
        (1, True, 0.9),
        (2, True, 0.8),
        (3, False, 0.7),
        (4, False, 0.7),
    ]

    fresh = SimulatedRunner(HALF_CAPACITY)
    recorder = Recorder(fresh, started_log(path))
    result = run_frame_loss(config, recorder)
    assert recorder.resumed_count == 4
    assert recorder.ran_count == fresh.calls == 4  # 0.7 again, then 0.6, 0.5 and 0.4
    curve = result.curves[0]
    assert [p.offered_fraction for p in curve.points] == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    assert [p.trial_index for p in curve.points] == [0, 1, 2, 4, 5, 6, 7]
    indexes = [(t.trial_index, t.valid) for t in ResultLog(path).load()]
    assert indexes == [
        (0, True), (1, True), (2, True), (3, False), (4, False),
        (4, True), (5, True), (6, True), (7, True),
    ]  # fmt: skip
    # Resuming a finished run runs nothing.
    idle = SimulatedRunner(HALF_CAPACITY)
    assert run_frame_loss(config, Recorder(idle, started_log(path))) == result
    assert idle.calls == 0


def test_resumed_search_with_repeated_trials_ends_where_an_unbroken_one_does(
    tmp_path: Path,
) -> None:
    """Back-to-back bursts: trial 5 fails once (repeated as 6) and the switch dies at
    trials 10 and 11. The resumed run replays the repeat and lands on the same burst."""
    dut = SimulatedDut(capacity_by_size=lambda size: 0.75)
    config = BackToBackConfig(512, 10e9, 0.75, repetitions=2)
    unbroken = run_back_to_back(config, Recorder(SimulatedRunner(dut)))
    path = tmp_path / "b2b.jsonl"
    dying = CrashingRunner(SimulatedRunner(dut), frozenset({5, 10, 11}))
    with pytest.raises(InvalidTrialsError):
        run_back_to_back(config, Recorder(dying, started_log(path)))
    fresh = SimulatedRunner(dut)
    recorder = Recorder(fresh, started_log(path))
    resumed = run_back_to_back(config, recorder)
    assert resumed.bursts == unbroken.bursts == (25600, 25600)
    assert recorder.resumed_count == 11  # 0..10; 11, the last attempt, is run again
    assert resumed.trial_count == unbroken.trial_count + 2  # invalid 5 and 10, replayed


def test_resume_refuses_a_log_of_another_configuration(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    Recorder(SimulatedRunner(), started_log(path)).trial("a", 64, 0.5, 0.01)
    recorder = Recorder(SimulatedRunner(), started_log(path))
    with pytest.raises(ResumeMismatchError, match="configuration changed since the log"):
        recorder.trial("a", 64, 0.6, 0.01)
    recorder = Recorder(SimulatedRunner(), started_log(path))
    with pytest.raises(ResumeMismatchError, match="trial 0 was run at 64 B"):
        recorder.trial("a", 128, 0.5, 0.01)
    recorder = Recorder(SimulatedRunner(), started_log(path))
    assert recorder.trial("a", 64, 0.5, 0.01).valid
    assert recorder.resumed_count == 1


def test_spec_measurer_logs_search_trials_and_resumes_the_search(tmp_path: Path) -> None:
    path = tmp_path / "search.jsonl"
    goal = SearchGoal.ndr(final_trial_duration_s=0.01, initial_trial_duration_s=0.01)
    recorder = Recorder(SimulatedRunner(HALF_CAPACITY), started_log(path))
    measurer = SpecMeasurer(recorder, 64, "tput", (("goal", "NDR"),))
    (first,) = binary_search(measurer, (goal,))
    assert first.lower_bound_fraction is not None and first.upper_bound_fraction is not None
    assert first.lower_bound_fraction <= 0.5 < first.upper_bound_fraction
    logged = ResultLog(path).load()
    assert len(logged) == len(first.trials)
    assert all(t.labels[0] == ("goal", "NDR") and t.frame_size == 64 for t in logged)

    runner = SimulatedRunner(HALF_CAPACITY)
    again = Recorder(runner, started_log(path))
    (second,) = binary_search(SpecMeasurer(again, 64, "tput", (("goal", "NDR"),)), (goal,))
    assert runner.calls == 0  # every trial came from the log
    assert second == first


def test_spec_measurer_clamps_a_hair_above_line_rate() -> None:
    recorder = Recorder(SimulatedRunner())
    trial = SpecMeasurer(recorder, 64, "tput").measure(0.01, 1.0 + 1e-12)
    assert trial.offered_fraction == 1.0
    with pytest.raises(ValueError, match=r"must be in \(0, 1\]"):
        SpecMeasurer(recorder, 64, "tput").measure(0.01, 1.01)


class LimitedRunner(ListRunner):
    """Trials at call numbers in `limited` come back tester-limited (the tester lost
    3 frames on port 2); `dut_limited` likewise on the DUT's side."""

    def __init__(self, limited: set[int], dut_limited: frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.limited = limited
        self.dut_limited = dut_limited

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        call = len(self.specs)
        trial = super().run_trial(spec)
        bad = SelfCheck((PortCheck(2, "p4lt2", 10, 0, 0, 0, 7, 0),))
        if call in self.limited:
            return replace(trial, valid=False, error="tester-limited: x", self_check=bad)
        if call in self.dut_limited:
            return replace(trial, valid=False, error="dut-limited: y", dut_check=bad)
        return trial


def test_valid_trial_repeats_unvouched_trials_three_times_apart_from_errors() -> None:
    recorder = Recorder(LimitedRunner({0, 1}))
    trial = recorder.valid_trial("a", 64, 0.5, 1.0)
    assert (trial.valid, trial.trial_index) == (True, 2)
    assert [t.invalid_reason for t in recorder.trials] == ["tester-limited", "tester-limited",
                                                           None]
    recorder = Recorder(LimitedRunner({0}, dut_limited=frozenset({1, 2})))
    with pytest.raises(UnvouchedTrialError) as caught:
        recorder.valid_trial("a", 64, 0.5, 1.0)
    assert str(caught.value) == (
        "a: 3 trial(s) at 64 B, 0.5 of line rate could not be vouched for (trial 0: "
        "tester-limited: x; trial 1: dut-limited: y; trial 2: dut-limited: y): this host "
        "cannot carry the load; a quieter host or a lower load measures the DUT")
    assert caught.value.last.trial_index == 2
    assert isinstance(caught.value, InvalidTrialsError)


def test_a_host_limited_trial_that_fails_on_the_dut_s_own_loss_is_an_answer() -> None:
    """A burst of 1000: the DUT's queue dropped 500, the tester lost 13 more itself.
    The DUT lost at least 487 in each of three tries: for "did every frame come back?"
    that is an answer (the first of the equal floors)."""

    class Burst(ListRunner):
        def run_trial(self, spec: TrialSpec) -> TrialResult:
            trial = super().run_trial(spec)
            check = SelfCheck((PortCheck(2, "p4lt2", 500, 0, 0, 0, 487, 0),))
            return replace(trial, streams=(StreamStats(0, 64, 1000, 487, 0, 0, 0, 0, 0),),
                           valid=False, error="tester-limited", self_check=check)

    recorder = Recorder(Burst())
    trial = recorder.valid_trial("b2b", 64, 1.0, 1.0, fails_above=0.0)
    assert (trial.trial_index, trial.lost, trial.host_dropped, trial.dut_loss_floor) == (
        0, 513, 13, 500)
    assert len(recorder.trials) == 3
    # Asked for a figure (no threshold), the same trial is not an answer.
    with pytest.raises(UnvouchedTrialError):
        Recorder(Burst()).valid_trial("loss", 64, 1.0, 1.0)
    # Nor when the floor is within the threshold asked about.
    with pytest.raises(UnvouchedTrialError):
        Recorder(Burst()).valid_trial("scan", 64, 1.0, 1.0, fails_above=0.5)


def test_a_floor_one_try_shows_is_asked_again_and_a_vouched_repeat_answers() -> None:
    """The first try lost 500 frames beyond the tester's own 13 (a host that starved
    the tester can starve a lab DUT beside it), the second is vouched and clean: the
    clean one answers, not the first one's floor."""

    class OnceStarved(ListRunner):
        def run_trial(self, spec: TrialSpec) -> TrialResult:
            trial = super().run_trial(spec)
            if spec.trial_index > 0:
                return trial
            check = SelfCheck((PortCheck(2, "p4lt2", 500, 0, 0, 0, 487, 0),))
            return replace(trial, streams=(StreamStats(0, 64, 1000, 487, 0, 0, 0, 0, 0),),
                           valid=False, error="tester-limited", self_check=check)

    recorder = Recorder(OnceStarved())
    trial = recorder.valid_trial("scan", 64, 1.0, 1.0, fails_above=0.0)
    assert (trial.trial_index, trial.valid) == (1, True)
    assert [t.invalid_reason for t in recorder.trials] == ["tester-limited", None]


class UndrainedRunner(ListRunner):
    """Trials at call numbers in `busy` received 5 frames of an earlier trial (the DUT
    had not drained, results.settle); the others waited 2 s and received none."""

    def __init__(self, busy: set[int]) -> None:
        super().__init__()
        self.busy = busy

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        call = len(self.specs)
        trial = replace(super().run_trial(spec), settle=SettleRecord(2.0, 0, 0.5))
        if call in self.busy:
            return replace(trial, valid=False, rx_stale=5,
                           error="dut-not-drained: 5 frames of earlier trials arrived")
        return trial


def test_a_trial_the_dut_had_not_drained_for_is_repeated_then_the_size_is_not_measured() -> None:
    recorder = Recorder(UndrainedRunner({0, 1}))
    trial = recorder.valid_trial("a", 64, 0.5, 1.0)
    assert (trial.valid, trial.trial_index) == (True, 2)
    assert [t.invalid_reason for t in recorder.trials] == ["dut-not-drained"] * 2 + [None]
    recorder = Recorder(UndrainedRunner({0, 1, 2}))
    with pytest.raises(InvalidTrialsError) as caught:
        recorder.valid_trial("a", 64, 0.5, 1.0)
    assert str(caught.value) == (
        "a: 3 trial(s) at 0.5 of line rate, 64 B, each after a longer wait, still received "
        "frames of earlier trials (last: dut-not-drained: 5 frames of earlier trials arrived): "
        "the DUT did not drain; this frame size is not measured (raise trial: settle_s and "
        "settle_max_s in the profile)")
    assert not isinstance(caught.value, UnvouchedTrialError)
