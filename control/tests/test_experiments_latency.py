"""RFC 2544 26.2 latency with the RFC 8219 7.2 summary, on a DUT whose latency is
spread evenly between known bounds."""

from __future__ import annotations

import dataclasses
import re
import statistics
from collections.abc import Sequence

import pytest

from p4tester.experiments.figures import (
    Bounded,
    bounded_statistic,
    median_with_overflow,
    nearest_rank_with_overflow,
)
from p4tester.experiments.latency import (
    LatencyConfig,
    config_at_throughput,
    run_latency,
)
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.simulated_runner import (
    CrashingRunner,
    Impairment,
    SimulatedDut,
    SimulatedRunner,
)
from p4tester.experiments.throughput import SearchMethod, ThroughputConfig, run_throughput
from p4tester.results.checks import SelfCheck
from p4tester.results.latency import linear_bin_edges
from p4tester.results.model import TrialResult
from p4tester.results.reference import ReferenceLatency, spiked
from p4tester.runs.report_lines import latency_lines
from p4tester.search import SearchGoal

# 105-B frames are 1000 bits on the wire: 10 Mpps at 10GbE. The DUT forwards half of
# that, holds 100 frames (10500 B) and adds 10 us, so at 80 % load its queue is full:
# latency is spread evenly over [10, 10 + 100 x 0.2] = [10, 30] us.
SIZE = 105
DUT = SimulatedDut(
    capacity_by_size=lambda size: 0.5,
    buffer_bytes=10_500,
    fixed_latency_us=10.0,
    store_and_forward=False,
    latency_edges_us=linear_bin_edges(62, 31),  # 2-us bins: 10..30 us is 10 full bins
)
LOAD = 0.8
TRIAL_S = 0.002  # 16000 frames sent, 6000 dropped (1 - 0.5 / 0.8), 10000 received


def test_each_trial_and_the_summary_are_exact() -> None:
    config = LatencyConfig(SIZE, LOAD, trials=4, trial_duration_s=TRIAL_S)
    result = run_latency(config, Recorder(SimulatedRunner(DUT)))
    assert result.complete and result.invalid_trials == 0
    assert [t.trial_index for t in result.trials] == [0, 1, 2, 3]
    for trial in result.trials:
        assert trial.samples == 10_000
        assert trial.loss_ratio == 0.375
        assert (trial.min_us, trial.avg_us, trial.max_us) == (10.0, 20.0, 30.0)
        assert trial.jitter_us == pytest.approx(20.0 / 3.0)
        assert trial.p50_us == pytest.approx(20.0)  # 5000th of 10000 samples, 1000 per bin
        assert trial.p99_us == pytest.approx(29.8)
        assert trial.p999_us == pytest.approx(29.98)
    summary = result.summary
    assert summary is not None
    assert summary.trials == 4
    assert summary.typical_latency_us == pytest.approx(20.0)
    assert summary.worst_case_latency_us == pytest.approx(29.98)
    assert summary.median_p99_us == pytest.approx(29.8)
    assert (summary.min_us, summary.avg_us, summary.max_us) == (10.0, 20.0, 30.0)


def test_summary_is_the_median_of_per_trial_figures_with_noise() -> None:
    noisy = SimulatedDut(
        capacity_by_size=lambda size: 0.5,
        buffer_bytes=10_500,
        fixed_latency_us=10.0,
        store_and_forward=False,
        latency_edges_us=linear_bin_edges(62, 31),
        latency_noise_us=8.0,
        seed=7,
    )
    config = LatencyConfig(SIZE, LOAD, trials=5, trial_duration_s=TRIAL_S)
    result = run_latency(config, Recorder(SimulatedRunner(noisy)))
    again = run_latency(config, Recorder(SimulatedRunner(noisy)))
    assert result == again  # seeded: the same every time
    p50s = [t.p50_us for t in result.trials]
    p999s = [t.p999_us for t in result.trials]
    assert len(set(p50s)) == 5  # the noise moves every trial
    known_p50s = [v for v in p50s if v is not None]
    known_p999s = [v for v in p999s if v is not None]
    assert len(known_p50s) == len(known_p999s) == 5
    summary = result.summary
    assert summary is not None
    assert summary.typical_latency_us == statistics.median(known_p50s)
    assert summary.worst_case_latency_us == statistics.median(known_p999s)
    # Nearest rank over 5 trials: p1 is the lowest, p99 the highest.
    assert (summary.typical_p1_us, summary.typical_p99_us) == (min(known_p50s), max(known_p50s))
    assert (summary.worst_case_p1_us, summary.worst_case_p99_us) == (
        min(known_p999s),
        max(known_p999s),
    )
    assert summary.max_us == max(t.max_us for t in result.trials)


def test_invalid_and_empty_trials_are_excluded_and_counted() -> None:
    starved = SimulatedDut(
        capacity_by_size=lambda size: 0.5,
        buffer_bytes=10_500,
        fixed_latency_us=10.0,
        store_and_forward=False,
        impairments=((4, Impairment(lost=10**9)),),  # trial 4 receives nothing
    )
    runner = CrashingRunner(SimulatedRunner(starved), frozenset({1, 3}))
    config = LatencyConfig(SIZE, LOAD, trials=6, trial_duration_s=TRIAL_S)
    result = run_latency(config, Recorder(runner))
    assert result.invalid_trials == 2
    assert result.trials_without_latency == 1
    assert [t.trial_index for t in result.trials] == [0, 2, 5]
    assert not result.complete
    assert result.summary is not None and result.summary.trials == 3


def _short_bins(last_edge_us: int) -> SimulatedDut:
    """DUT with 1-us bins up to `last_edge_us`, below its 30-us maximum latency."""
    return SimulatedDut(
        capacity_by_size=lambda size: 0.5,
        buffer_bytes=10_500,
        fixed_latency_us=10.0,
        store_and_forward=False,
        latency_edges_us=linear_bin_edges(last_edge_us, last_edge_us),
    )


def test_percentiles_beyond_the_histogram_are_lower_bounds_not_invented() -> None:
    config = LatencyConfig(SIZE, LOAD, trials=3, trial_duration_s=TRIAL_S)
    # A quarter of the frames (10..30 us evenly) lie at or above the last edge, 25 us.
    result = run_latency(config, Recorder(SimulatedRunner(_short_bins(25))))
    for trial in result.trials:
        assert (trial.p50_us, trial.p99_us, trial.p999_us) == (20.0, 25.0, 25.0)
        assert trial.lower_bounds == ("p99_us", "p999_us")
        assert trial.beyond_histogram == 2500
    summary = result.summary
    assert summary is not None
    assert summary.typical_latency_us == 20.0
    assert (summary.worst_case_latency_us, summary.worst_case_p1_us) == (25.0, 25.0)
    assert summary.lower_bounds == ("worst_case_latency_us", "worst_case_p1_us",
                                    "worst_case_p99_us", "median_p99_us")
    assert summary.is_lower_bound("worst_case_latency_us")
    assert not summary.is_lower_bound("typical_latency_us")
    assert summary.beyond_histogram == 3 * 2500


def test_a_median_beyond_the_histogram_is_its_last_edge() -> None:
    # Three quarters of the frames lie at or above 15 us: even the median does.
    config = LatencyConfig(SIZE, LOAD, trials=3, trial_duration_s=TRIAL_S)
    result = run_latency(config, Recorder(SimulatedRunner(_short_bins(15))))
    assert [t.p50_us for t in result.trials] == [15.0, 15.0, 15.0]
    assert all(t.lower_bounds == ("p50_us", "p99_us", "p999_us") for t in result.trials)
    summary = result.summary
    assert summary is not None
    assert (summary.typical_latency_us, summary.worst_case_latency_us) == (15.0, 15.0)
    assert summary.is_lower_bound("typical_latency_us")
    assert len(summary.lower_bounds) == 7  # every figure
    assert summary.beyond_histogram == 3 * 7500
    assert latency_lines(summary).splitlines()[1:3] == [
        "typical latency (median of p50) ≥ 15 us, worst case (median of p99.9) ≥ 15 us, "
        "min 10.0 avg 20.0 max 30.0 us",
        "≥: only a lower bound is known, the histogram's last edge: 22500 frames of the 3 "
        "trials lay at or above it, up to the max (raise the profile's last latency_bins_us "
        "edge to measure it)"]
    # Microseconds to 0.1, as measured: never a float's binary tail.
    odd = dataclasses.replace(summary, min_us=107.39999999999999, max_us=1009.9118010992408)
    assert "min 107.4 avg 20.0 max 1009.9 us" in latency_lines(odd)


def test_a_statistic_of_lower_bounds_is_exact_only_when_they_do_not_decide_it() -> None:
    median = median_with_overflow
    assert bounded_statistic(median, [10.0, 12.0, 20.0], [False, False, True]) == Bounded(
        12.0, lower_bound=False)  # the bound sorts last either way
    assert bounded_statistic(median, [10.0, 20.0, 30.0], [False, True, False]) == Bounded(
        20.0, lower_bound=True)  # the median is the bound: at least 20
    assert bounded_statistic(median, [10.0, 20.0, 25.0, 25.0],
                             [False, False, True, True]) == Bounded(22.5, lower_bound=True)

    def lowest(values: Sequence[float | None]) -> float | None:
        return nearest_rank_with_overflow(values, 0.01)

    assert bounded_statistic(lowest, [25.0, 10.0, 12.0], [True, False, False]) == Bounded(
        10.0, lower_bound=False)
    # No histogram in a trial (None): unknown, as before.
    assert bounded_statistic(median, [None, None, 1.0], [False, False, False]) == Bounded(
        None, lower_bound=False)


def test_all_trials_invalid_gives_no_summary() -> None:
    runner = CrashingRunner(SimulatedRunner(DUT), frozenset({0, 1}))
    result = run_latency(
        LatencyConfig(SIZE, LOAD, trials=2, trial_duration_s=TRIAL_S), Recorder(runner)
    )
    assert (result.summary, result.invalid_trials, result.trials) == (None, 2, ())


def test_load_defaults_to_the_throughput_found() -> None:
    goal = {"final_trial_duration_s": 0.01, "initial_trial_duration_s": 0.01}
    throughput = run_throughput(
        ThroughputConfig(
            10e9,
            (SIZE,),
            method=SearchMethod.BINARY,
            ndr=SearchGoal.ndr(**goal),
            pdr=SearchGoal.pdr(**goal),
        ),
        Recorder(SimulatedRunner(DUT)),
    ).at(SIZE)
    config = config_at_throughput(throughput, trials=3, trial_duration_s=TRIAL_S)
    assert (config.frame_size, config.offered_fraction, config.trials) == (SIZE, 0.5, 3)
    # RFC 2544 26.2 measures at the throughput: no frame is lost there.
    result = run_latency(config, Recorder(SimulatedRunner(DUT)))
    assert [t.loss_ratio for t in result.trials] == [0.0, 0.0, 0.0]


def test_config_at_throughput_needs_a_throughput() -> None:
    goal = {"final_trial_duration_s": 0.01, "initial_trial_duration_s": 0.01}
    dead = SimulatedDut(capacity_by_size=lambda size: 0.0005)
    found = run_throughput(
        ThroughputConfig(
            10e9,
            (64,),
            method=SearchMethod.BINARY,
            ndr=SearchGoal.ndr(**goal),
            pdr=SearchGoal.pdr(**goal),
        ),
        Recorder(SimulatedRunner(dead)),
    ).at(64)
    with pytest.raises(ValueError, match="no throughput at 64 B"):
        config_at_throughput(found)


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"offered_fraction": 0.0}, "offered_fraction must be a share of line rate in (0, 1]"),
        ({"trials": 0}, "trials must be a whole number >= 1"),
        ({"trial_duration_s": -1.0}, "trial_duration_s must be a positive number of seconds"),
        ({"frame_size": 10_000}, "frame_size: frame size 10000 B is outside"),
    ],
)
def test_config_errors(fields: dict[str, object], fragment: str) -> None:
    kwargs: dict[str, object] = {"frame_size": 64, "offered_fraction": 0.5, **fields}
    with pytest.raises(ValueError, match=re.escape(f"LatencyConfig: {fragment}")):
        LatencyConfig(**kwargs)  # type: ignore[arg-type]


def test_median_and_nearest_rank_treat_unknown_as_highest() -> None:
    assert median_with_overflow([3.0, 1.0, 2.0]) == 2.0
    assert median_with_overflow([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert median_with_overflow([1.0, None, 2.0]) == 2.0  # None sorts last
    assert median_with_overflow([1.0, None, None]) is None
    assert median_with_overflow([1.0, 2.0, None, None]) is None  # mean of 2 and "beyond"
    values = [float(v) for v in range(1, 21)]
    assert nearest_rank_with_overflow(values, 0.01) == 1.0
    assert nearest_rank_with_overflow(values, 0.5) == 10.0
    assert nearest_rank_with_overflow(values, 0.99) == 20.0
    assert nearest_rank_with_overflow([1.0, None], 0.5) == 1.0
    assert nearest_rank_with_overflow([1.0, None], 0.99) is None
    with pytest.raises(ValueError, match="quantile must be in"):
        nearest_rank_with_overflow(values, 0.0)


class ReferenceRunner:
    """The simulated DUT, with the reference figures a switch would add: trial i's loop
    took 15..(200 + 1000 i) us; it records whether each spec asked for the loop."""

    def __init__(self) -> None:
        self.inner = SimulatedRunner(DUT)
        self.asked: list[bool] = []

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        self.asked.append(spec.reference_loop)
        result = self.inner.run_trial(spec)
        high = 200.0 + 1000.0 * spec.trial_index
        return dataclasses.replace(result, reference=ReferenceLatency(
            63, 20, 20, 15.0, 40.0, high, spiked=spiked(15.0, high, 30.0)))


def test_latency_trials_run_the_reference_stream_and_the_summary_counts_its_spikes() -> None:
    runner = ReferenceRunner()
    result = run_latency(LatencyConfig(SIZE, LOAD, trials=3, trial_duration_s=TRIAL_S),
                         Recorder(runner))
    assert runner.asked == [True, True, True]
    assert [t.reference.max_us if t.reference else None for t in result.trials] == [
        200.0, 1200.0, 2200.0]
    # 1185 and 2185 us of the tester's own against a DUT's 30 us: both trials marked.
    assert [t.tester_spiked for t in result.trials] == [False, True, True]
    summary = result.summary
    assert summary is not None
    assert (summary.tester_floor_us, summary.tester_max_us, summary.tester_spiked_trials) == (
        15.0, 2200.0, 2)


def test_without_a_reference_stream_the_summary_says_nothing_of_the_tester() -> None:
    result = run_latency(LatencyConfig(SIZE, LOAD, trials=2, trial_duration_s=TRIAL_S),
                         Recorder(SimulatedRunner(DUT)))
    assert [t.reference for t in result.trials] == [None, None]
    summary = result.summary
    assert summary is not None
    assert (summary.tester_floor_us, summary.tester_max_us, summary.tester_spiked_trials) == (
        None, None, 0)


class UnvouchedCalls:
    """A SimulatedRunner whose trials at these call numbers the tester could not vouch
    for (its generator fell behind on a busy host)."""

    def __init__(self, inner: SimulatedRunner, unvouched: frozenset[int]) -> None:
        self._inner, self._unvouched, self._calls = inner, unvouched, 0

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        trial = self._inner.run_trial(spec)
        call, self._calls = self._calls, self._calls + 1
        if call not in self._unvouched:
            return trial
        reason = "stream 0 offered 2021 frames/s, not its 3200"
        return dataclasses.replace(trial, valid=False, error=f"tester-limited: {reason}",
                                   self_check=SelfCheck((), unvouched=reason))


def test_a_repetition_the_tester_could_not_vouch_for_is_run_again() -> None:
    """Repetition 0's first two attempts and repetition 1's three are unvouched: the
    first is measured on its third attempt, the second gives up after three and is
    counted invalid; a crashed trial is not repeated."""
    runner = UnvouchedCalls(SimulatedRunner(DUT), frozenset({0, 1, 3, 4, 5}))
    config = LatencyConfig(SIZE, LOAD, trials=3, trial_duration_s=TRIAL_S)
    recorder = Recorder(runner)
    result = run_latency(config, recorder)
    assert [(t.trial_index, t.valid, dict(t.labels)["repetition"]) for t in recorder.trials] == [
        (0, False, "0"), (1, False, "0"), (2, True, "0"),
        (3, False, "1"), (4, False, "1"), (5, False, "1"),
        (6, True, "2")]
    assert [t.trial_index for t in result.trials] == [2, 6]
    assert result.invalid_trials == 1
    crashed = run_latency(config, Recorder(CrashingRunner(SimulatedRunner(DUT),
                                                          frozenset({0}))))
    assert (crashed.invalid_trials, [t.trial_index for t in crashed.trials]) == (1, [1, 2])
