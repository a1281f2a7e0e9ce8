"""Loss is judged per stream (issue 21): one stream's duplicates never offset another
stream's loss, in a trial, a goal, both searches and the throughput experiment.

The trap: stream 0 loses 10 % (TX 1000, RX 900) while stream 1 duplicates 10 % (TX 1000,
RX 1100). Total TX equals total RX, yet the DUT lost 100 frames.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import pytest

from p4tester.experiments.frame_loss import FrameLossConfig, run_frame_loss
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.throughput import SearchMethod, ThroughputConfig, run_throughput
from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.results.model import (
    StreamLoss,
    StreamStats,
    TrialResult,
    frames_lost,
    loss_ratio_of,
)
from p4tester.runs.outputs import to_jsonable
from p4tester.runs.report_lines import losing_stream_lines
from p4tester.search import SearchGoal, SearchResult, binary_search, mlr_search

SHORT = {"final_trial_duration_s": 1.0, "initial_trial_duration_s": 0.1}
NDR_GOAL = SearchGoal.ndr(**SHORT)
PDR_GOAL = SearchGoal.pdr(0.005, **SHORT)
# Tolerates exactly the trial's 5 %: met, so only the NDR and the 0.5 % PDR fail.
PDR_5_PCT = SearchGoal.pdr(0.05, **SHORT)
LOSING = StreamStats(0, 64, 1000, 900, 900 * 64, 1, 100, 0, 0)
DUPLICATING = StreamStats(1, 64, 1000, 1100, 1100 * 64, 0, 0, 0, 100)


def crossed(offered_fraction: float = 0.5, duration_s: float = 1.0,
            trial_index: int = 0) -> TrialResult:
    return TrialResult("crossed", trial_index, offered_fraction, 2000.0 / duration_s,
                       duration_s, 64, (LOSING, DUPLICATING))


@dataclass(frozen=True, slots=True)
class CrossedDut:
    """Loses 10 % of stream 0 and duplicates 10 % of stream 1 at every load: a Measurer
    for the searches and a TrialRunner for the experiments."""

    _indexes: itertools.count[int] = field(default_factory=itertools.count, init=False,
                                           repr=False, compare=False)

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        return crossed(offered_fraction, duration_s, next(self._indexes))

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        return crossed(spec.offered_fraction, spec.duration_s, spec.trial_index)


# ---- a trial -----------------------------------------------------------------------


def test_one_streams_duplicates_never_offset_another_streams_loss() -> None:
    trial = crossed()
    assert (trial.tx_frames, trial.rx_frames) == (2000, 2000)  # netted out: no loss seen
    assert (LOSING.lost, DUPLICATING.lost) == (100, 0)  # RX > TX: duplicates, not -100
    assert trial.lost == 100
    assert trial.loss_ratio == 0.05
    assert trial.losing_streams == (StreamLoss(0, 100),)
    assert trial.worst_stream_loss_ratio == 0.1
    assert trial.stream_losses == (StreamLoss(0, 100), StreamLoss(1, 0))


def test_losing_streams_are_worst_first() -> None:
    """By loss ratio, then frames lost, then stream id; clean streams left out."""
    streams = (StreamStats(1, 64, 1000, 800, 0, 0, 0, 0, 0),  # 200 lost, 20 %
               StreamStats(2, 64, 1000, 800, 0, 0, 0, 0, 0),  # the same as stream 1
               StreamStats(3, 64, 100, 50, 0, 0, 0, 0, 0),  # 50 lost, 50 %
               StreamStats(4, 64, 10, 5, 0, 0, 0, 0, 0),  # 5 lost, 50 %
               StreamStats(5, 64, 10, 10, 0, 0, 0, 0, 0))  # clean
    trial = replace(crossed(), streams=streams)
    assert trial.losing_streams == (StreamLoss(3, 50), StreamLoss(4, 5), StreamLoss(1, 200),
                                    StreamLoss(2, 200))
    assert trial.worst_stream_loss_ratio == 0.5
    assert trial.lost == 455
    assert trial.loss_ratio == 455 / 2120


def test_a_trial_without_loss_names_no_stream() -> None:
    trial = replace(crossed(), streams=(DUPLICATING,))
    assert (trial.lost, trial.loss_ratio, trial.losing_streams) == (0, 0.0, ())
    assert trial.worst_stream_loss_ratio == 0.0
    assert replace(crossed(), streams=()).worst_stream_loss_ratio == 0.0


def test_loss_helpers() -> None:
    assert (frames_lost(1000, 900), frames_lost(1000, 1100), frames_lost(0, 0)) == (100, 0, 0)
    assert (loss_ratio_of(100, 2000), loss_ratio_of(0, 0)) == (0.05, 0.0)


def test_dut_loss_floor_is_per_stream() -> None:
    """The host dropped 4 frames: of stream 0's 100 lost, the DUT lost at least 96,
    and stream 1's duplicates take nothing off that."""
    check = SelfCheck((PortCheck(2, "p4lt2", 2000, 0, 0, 0, 1996, 0),))
    trial = replace(crossed(), valid=False, error="tester-limited", self_check=check)
    assert (trial.host_dropped, trial.dut_loss_floor) == (4, 96)
    assert trial.dut_loss_floor_ratio == 0.048


def test_a_trial_the_tester_overdrove_has_no_dut_loss_floor() -> None:
    """The generator caught up in a burst beyond its load: the 100 frames stream 0 lost
    may be the burst's doing, so no goal counts them as the DUT's failure."""
    check = SelfCheck((PortCheck(2, "p4lt2", 2000, 0, 0, 0, 2000, 0),),
                      unvouched="stream 0 sent 145 frames beyond its rate", overdriven=True)
    trial = replace(crossed(), valid=False, error="tester-limited", self_check=check)
    assert (trial.lost, trial.host_dropped, trial.dut_loss_floor) == (100, 0, 0)
    assert not NDR_GOAL.is_failed_by_dut(trial)
    not_overdriven = replace(trial, self_check=replace(check, overdriven=False))
    assert not_overdriven.dut_loss_floor == 100
    assert NDR_GOAL.is_failed_by_dut(not_overdriven)


# ---- goals and searches ------------------------------------------------------------


def test_ndr_fails_a_trial_where_any_stream_lost() -> None:
    trial = crossed()
    assert not NDR_GOAL.is_met_by(trial)
    assert not PDR_GOAL.is_met_by(trial)
    assert PDR_5_PCT.is_met_by(trial)
    assert NDR_GOAL.is_failed_by_dut(trial)
    assert not PDR_5_PCT.is_failed_by_dut(trial)


def test_binary_search_finds_no_ndr_and_names_the_losing_stream() -> None:
    ndr, pdr = binary_search(CrossedDut(), [NDR_GOAL, PDR_5_PCT])
    lowest = min(t.offered_fraction for t in ndr.trials)
    assert lowest == 0.001  # halved from line rate down to the minimum load
    assert (ndr.lower_bound_fraction, ndr.upper_bound_fraction) == (None, lowest)
    assert ndr.losing_streams == (StreamLoss(0, 100),)
    failing = ndr.failing_trial
    assert failing is not None
    assert (failing.offered_fraction, failing.trial_index) == (0.001, len(ndr.trials) - 1)
    # A 5 % PDR tolerates the loss: line rate, and no stream to name.
    assert (pdr.lower_bound_fraction, pdr.upper_bound_fraction) == (1.0, None)
    assert (pdr.failing_trial, pdr.losing_streams) == (None, ())


def test_mlrsearch_finds_no_ndr_and_names_the_losing_stream() -> None:
    ndr, pdr5 = mlr_search(CrossedDut(), [NDR_GOAL, PDR_5_PCT])
    lowest = min(t.offered_fraction for t in ndr.trials)
    assert ndr.lower_bound_fraction is None
    assert ndr.upper_bound_fraction == lowest == pytest.approx(0.001)
    assert ndr.losing_streams == (StreamLoss(0, 100),)
    failing = ndr.failing_trial
    assert failing is not None and failing.offered_fraction == lowest
    assert (pdr5.lower_bound_fraction, pdr5.upper_bound_fraction) == (1.0, None)
    assert pdr5.losing_streams == ()


def test_the_failing_trial_is_the_longest_then_the_latest_at_the_upper_bound() -> None:
    stream_2 = replace(LOSING, stream_id=2)
    trials = (crossed(0.5, 1.0, 0), crossed(0.5, 0.1, 1),
              replace(crossed(0.5, 1.0, 2), streams=(stream_2, DUPLICATING)),
              replace(crossed(0.5, 0.1, 3), streams=(replace(LOSING, stream_id=3),)),
              replace(crossed(0.5, 1.0, 4), streams=(DUPLICATING,)),  # met the goal
              replace(crossed(0.5, 1.0, 5), valid=False, error="read failed"),
              crossed(0.75, 1.0, 6))  # above the upper bound
    result = SearchResult(NDR_GOAL, 0.25, 0.5, trials, 4.4)
    assert result.failing_trial is trials[2]
    assert result.losing_streams == (StreamLoss(2, 100),)
    # An upper bound that is the tester's ceiling is no load the DUT failed.
    ceiling = replace(result, tester_ceiling_fraction=0.5)
    assert (ceiling.failing_trial, ceiling.losing_streams) == (None, ())
    line_rate = replace(result, lower_bound_fraction=1.0, upper_bound_fraction=None)
    assert (line_rate.failing_trial, line_rate.losing_streams) == (None, ())


def test_frame_loss_curve_never_sees_a_clean_trial() -> None:
    """RFC 2544 26.3 stops after two loss-free trials: there are none here."""
    config = FrameLossConfig((64,), step_fraction=0.1, start_fraction=0.3, trial_duration_s=1.0)
    [curve] = run_frame_loss(config, Recorder(CrossedDut())).curves
    assert [(p.offered_fraction, p.loss_ratio) for p in curve.points] == [
        (0.3, 0.05), (0.2, 0.05), (0.1, 0.05)]
    assert not curve.converged


@pytest.mark.parametrize("method", list(SearchMethod))
def test_throughput_summary_names_the_stream_that_failed(method: SearchMethod) -> None:
    config = ThroughputConfig(10e9, (64,), method=method, ndr=NDR_GOAL, pdr=PDR_GOAL)
    result = run_throughput(config, Recorder(CrossedDut()))
    found = result.at(64)
    for bounds in (found.ndr, found.pdr):
        assert bounds.lower is None, bounds.goal
        assert bounds.losing_streams == (StreamLoss(0, 100),), bounds.goal
    summary = to_jsonable(result)["sizes"][0]
    assert summary["ndr"]["losing_streams"] == [{"stream_id": 0, "lost": 100}]
    assert losing_stream_lines(result) == [
        f"64 B {goal}: lowest failing load 0.10 %, frames lost per stream (stream:lost) 0:100"
        for goal in ("NDR", "PDR")
    ]
