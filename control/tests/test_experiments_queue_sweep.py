"""Seed 004: latency vs DUT buffer threshold, with exact fits on a DUT whose latency is
linear in buffer %."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from p4tester.experiments.queue_sweep import (
    SEED_004_BUFFER_PERCENTS,
    QueueSweepConfig,
    min_fit_thresholds,
    run_queue_sweep,
)
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.simulated_runner import SimulatedDut, SimulatedRunner
from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.results.model import TrialResult

# Two ports at 50.2 % into one line-rate egress: 100.4 %, so its queue sits at the
# threshold. The default buffer (3276800 B) holds 32768 x pct / size frames: 512 per %
# of 64-B frames, 64 per % of 512-B frames. Each frame drains in (size + 20) x 8 bit
# times (0.0672 us at 64 B, 0.4256 us at 512 B), and latency starts at 1 us + the
# frame's serialization (0.0512 us at 64 B, 0.4096 us at 512 B).
DUT = SimulatedDut(fan_in=2)
PERCENTS = (1.0, 10.0, 50.0, 100.0)
BASE_US = {64: 1.0512, 512: 1.4096}
MAX_SLOPE_US_PER_PCT = {64: 512 * 0.0672, 512: 64 * 0.4256}  # 34.4064 and 27.2384


def sweep(tmp_path: Path | None = None) -> tuple[QueueSweepConfig, SimulatedRunner]:
    config = QueueSweepConfig(
        frame_sizes=(64, 512),
        buffer_percents=PERCENTS,
        trial_duration_s=0.001,
        plot_dir=tmp_path,
    )
    return config, SimulatedRunner(DUT)


def test_min_is_flat_avg_and_max_linear_with_exact_fits() -> None:
    config, runner = sweep()
    result = run_queue_sweep(config, Recorder(runner), runner)
    assert [(p.buffer_pct, p.frame_size) for p in result.points] == [
        (pct, size) for pct in PERCENTS for size in (64, 512)
    ]
    for size in (64, 512):
        fits = result.size_fit(size).fits
        slope = MAX_SLOPE_US_PER_PCT[size]
        assert fits.min.slope == pytest.approx(0.0, abs=1e-12)
        assert fits.min.intercept == pytest.approx(BASE_US[size], rel=1e-12)
        assert fits.max.slope == pytest.approx(slope, rel=1e-12)
        assert fits.max.intercept == pytest.approx(BASE_US[size], rel=1e-9)
        assert fits.avg.slope == pytest.approx(slope / 2.0, rel=1e-12)
        for fit in (fits.min, fits.avg, fits.max):
            assert fit.r_squared == pytest.approx(1.0, abs=1e-12)
    point = next(p for p in result.points if (p.frame_size, p.buffer_pct) == (512, 50.0))
    assert point.max_us == pytest.approx(1.4096 + 3200 * 0.4256, rel=1e-12)
    # 1 - 1 / 1.004 of about 2360 frames, rounded up to whole frames.
    assert point.loss_ratio == pytest.approx(1 - 1 / 1.004, abs=1 / 2000)


def test_fits_against_frame_size_and_histograms() -> None:
    config, runner = sweep()
    recorder = Recorder(runner)
    result = run_queue_sweep(config, recorder, runner)
    assert [fit.buffer_pct for fit in result.by_buffer] == list(PERCENTS)
    for fit in result.by_buffer:
        # Minimum latency grows with the frame's own serialization: 0.0008 us per byte.
        assert fit.fits.min.slope == pytest.approx(0.0008, rel=1e-9)
        assert fit.fits.min.intercept == pytest.approx(1.0, rel=1e-9)
    point = next(p for p in result.points if (p.frame_size, p.buffer_pct) == (64, 10.0))
    trial = recorder.trials[point.trial_index]
    depth, latency = point.queue_depth_histogram, point.latency_histogram
    assert depth is not None and latency is not None
    # Both streams' histograms added: every received frame counted once in each.
    assert depth.total == latency.total == trial.rx_frames > 0
    # Depth is spread evenly over 0..5120 frames (10 % of 51200): inside the bins.
    assert depth.outside == 0
    assert depth.edges[-1] >= 5120


def test_threshold_is_set_before_each_group_and_plots_are_written(tmp_path: Path) -> None:
    config, runner = sweep(tmp_path)
    calls: list[float] = []

    class Watching:
        def set_buffer_percent(self, percent: float) -> None:
            calls.append(percent)
            runner.set_buffer_percent(percent)

    recorder = Recorder(runner)
    result = run_queue_sweep(config, recorder, Watching())
    assert calls == list(PERCENTS)
    assert [dict(t.labels)["buffer_pct"] for t in recorder.trials] == [
        "1", "1", "10", "10", "50", "50", "100", "100",
    ]  # fmt: skip
    assert {dict(t.labels)["repetition"] for t in recorder.trials} == {"0"}
    assert [path.name for path in result.plots] == [
        "latency_vs_buffer_64B.png",
        "latency_vs_buffer_512B.png",
    ]
    assert all(path.stat().st_size > 0 for path in result.plots)


def test_no_plot_dir_no_plots() -> None:
    config, runner = sweep(None)
    assert run_queue_sweep(config, Recorder(runner), runner).plots == ()


def test_seed_defaults_and_config_errors() -> None:
    assert SEED_004_BUFFER_PERCENTS[:3] == (1.0, 5.0, 10.0)
    assert QueueSweepConfig().offered_fraction == 0.502
    for fields, fragment in (
        ({"buffer_percents": (50.0,)}, "buffer_percents (50.0,) needs two or more different"),
        ({"buffer_percents": (50.0, 50.0, 60.0)}, "buffer_percents lists a threshold twice"),
        ({"buffer_percents": (0.0, 50.0)}, "buffer threshold 0.0 must be in (0, 100] %"),
        ({"offered_fraction": 1.2}, "offered_fraction must be a share of line rate"),
        ({"repetitions": 0}, "repetitions must be a whole number >= 1, got 0"),
    ):
        with pytest.raises(ValueError, match=re.escape(f"QueueSweepConfig: {fragment}")):
            QueueSweepConfig(**fields)
    with pytest.raises(KeyError, match="no latency-vs-buffer fit for 128 B"):
        config, runner = sweep(None)
        run_queue_sweep(config, Recorder(runner), runner).size_fit(128)


class StallingRunner:
    """The simulated DUT, but every third trial's maximum is 5 ms longer: what one
    scheduling stall of a software switch does to a single-frame maximum."""

    def __init__(self, runner: SimulatedRunner) -> None:
        self.runner = runner
        self.trials = 0

    def set_buffer_percent(self, percent: float) -> None:
        self.runner.set_buffer_percent(percent)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        trial = self.runner.run_trial(spec)
        self.trials += 1
        if self.trials % 3 != 1:
            return trial
        streams = tuple(
            dataclasses.replace(
                s, latency=dataclasses.replace(s.latency, max_us=s.latency.max_us + 5000.0)
            )
            if s.latency is not None
            else s
            for s in trial.streams
        )
        return dataclasses.replace(trial, streams=streams)


def test_repetitions_fit_through_the_medians_so_one_stalled_trial_is_ignored() -> None:
    config = dataclasses.replace(sweep()[0], frame_sizes=(64,), repetitions=3)
    stalling = StallingRunner(SimulatedRunner(DUT))
    recorder = Recorder(stalling)
    result = run_queue_sweep(config, recorder, stalling)
    assert stalling.trials == len(PERCENTS) * 3
    assert [(p.buffer_pct, p.repetition) for p in result.points] == [
        (pct, rep) for pct in PERCENTS for rep in range(3)
    ]
    assert [dict(t.labels)["repetition"] for t in recorder.trials] == ["0", "1", "2"] * 4
    # The stalled trial is the first of each cell: its maximum is 5 ms above the others'.
    first, second = result.points[0], result.points[1]
    assert first.max_us is not None and second.max_us is not None
    assert first.max_us - second.max_us == pytest.approx(5000.0, abs=1.0)
    assert [(c.buffer_pct, c.trials) for c in result.cells] == [(pct, 3) for pct in PERCENTS]
    fits = result.size_fit(64).fits
    assert fits.max.slope == pytest.approx(MAX_SLOPE_US_PER_PCT[64], rel=1e-3)
    assert fits.max.r_squared == pytest.approx(1.0, abs=1e-6)
    assert fits.min.slope == pytest.approx(0.0, abs=1e-9)


class BusyHostRunner:
    """The simulated DUT on a host too busy at some thresholds: there every trial
    comes back dut-limited (the lab DUT's interface delivered frames its program never
    saw), and its latency is garbage (10 ms added) that must not reach a fit."""

    def __init__(self, runner: SimulatedRunner, busy_percents: set[float]) -> None:
        self.runner = runner
        self.busy_percents = busy_percents
        self.percent = 0.0

    def set_buffer_percent(self, percent: float) -> None:
        self.percent = percent
        self.runner.set_buffer_percent(percent)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        trial = self.runner.run_trial(spec)
        if self.percent not in self.busy_percents:
            return trial
        check = SelfCheck((PortCheck(1, "p4ld1", 100, 0, 0, 0, 60, 0),))
        streams = tuple(
            dataclasses.replace(s, latency=dataclasses.replace(
                s.latency, max_us=s.latency.max_us + 1e4, avg_us=s.latency.avg_us + 1e4))
            if s.latency is not None else s
            for s in trial.streams)
        return dataclasses.replace(trial, streams=streams, valid=False,
                                   error=f"dut-limited: {check.describe()}", dut_check=check)


def test_unvouched_trials_are_left_out_and_the_fit_uses_the_rest() -> None:
    config = dataclasses.replace(sweep()[0], frame_sizes=(64,))
    busy = BusyHostRunner(SimulatedRunner(DUT), {10.0})
    recorder = Recorder(busy)
    result = run_queue_sweep(config, recorder, busy)
    # Three tries at 10 %, all dut-limited: left out, named, and not fitted.
    assert [(p.buffer_pct, p.trial_index, p.reason) for p in result.left_out] == [
        (10.0, 3, "dut-limited")]
    assert [t.invalid_reason for t in recorder.trials] == [
        None, "dut-limited", "dut-limited", "dut-limited", None, None]
    assert [c.buffer_pct for c in result.cells] == [1.0, 50.0, 100.0]
    assert result.unfitted_sizes == ()
    fits = result.size_fit(64).fits
    assert fits.max.slope == pytest.approx(MAX_SLOPE_US_PER_PCT[64], rel=1e-12)
    assert fits.max.r_squared == pytest.approx(1.0, abs=1e-12)


def test_too_few_vouched_thresholds_give_no_fit() -> None:
    """Four of six thresholds unvouched: two cells are left, enough for a line but
    below the three (half of six) a fit needs; the sweep says it could not fit
    instead of reporting a line through two points."""
    config = dataclasses.replace(sweep()[0], frame_sizes=(64,),
                                 buffer_percents=(1.0, 10.0, 20.0, 50.0, 80.0, 100.0))
    busy = BusyHostRunner(SimulatedRunner(DUT), {10.0, 20.0, 50.0, 80.0})
    result = run_queue_sweep(config, Recorder(busy), busy)
    assert min_fit_thresholds(config) == 3
    assert [c.buffer_pct for c in result.cells] == [1.0, 100.0]
    assert len(result.left_out) == 4
    assert result.by_size == ()
    assert result.unfitted_sizes == (64,)
    with pytest.raises(KeyError, match="no latency-vs-buffer fit for 64 B"):
        result.size_fit(64)
