"""Ramps and soaks (seed 003): labels, per-step and per-interval figures, totals."""

from __future__ import annotations

import re

import pytest

from p4tester.experiments.ramp_soak import RampConfig, SoakConfig, run_ramp, run_soak
from p4tester.experiments.recording import Recorder
from p4tester.experiments.simulated_runner import (
    CrashingRunner,
    Impairment,
    SimulatedDut,
    SimulatedRunner,
)

SEVENTY = SimulatedDut(capacity_by_size=lambda size: 0.7)


def test_ramp_up_steps_labels_and_first_loss() -> None:
    config = RampConfig(64, 0.2, 1.0, 0.2, step_duration_s=0.01)
    recorder = Recorder(SimulatedRunner(SEVENTY))
    result = run_ramp(config, recorder)
    assert [s.offered_fraction for s in result.steps] == [0.2, 0.4, 0.6, 0.8, 1.0]
    assert [s.index for s in result.steps] == [0, 1, 2, 3, 4]
    assert [s.start_offset_s for s in result.steps] == pytest.approx([0, 0.01, 0.02, 0.03, 0.04])
    assert [dict(t.labels)["ramp_step"] for t in recorder.trials] == ["0", "1", "2", "3", "4"]
    assert [dict(t.labels)["offered_pct"] for t in recorder.trials] == [
        "20", "40", "60", "80", "100",
    ]  # fmt: skip
    assert [s.lost > 0 for s in result.steps] == [False, False, False, True, True]
    first = result.first_lossy_step
    assert first is not None and (first.index, first.offered_fraction) == (3, 0.8)
    assert first.loss_ratio == pytest.approx(1 - 0.7 / 0.8, abs=1.0 / first.tx_frames)
    # Below capacity the queue, and so the latency, grows with the load.
    below = [s.latency_max_us for s in result.steps[:3]]
    assert below[0] is not None and below[1] is not None and below[2] is not None
    assert below[0] < below[1] < below[2]
    assert result.invalid_steps == 0


def test_ramp_down_and_a_single_step() -> None:
    down = RampConfig(64, 1.0, 0.5, 0.25, step_duration_s=0.01)
    assert down.loads() == (1.0, 0.75, 0.5)
    assert RampConfig(64, 0.1, 0.4, 0.1, step_duration_s=1).loads() == (0.1, 0.2, 0.3, 0.4)
    assert RampConfig(64, 0.5, 0.5, 0.1, step_duration_s=1).loads() == (0.5,)
    # An end between steps is not reached: the ramp stops at the last whole step.
    assert RampConfig(64, 0.1, 0.35, 0.1, step_duration_s=1).loads() == (0.1, 0.2, 0.3)


def test_soak_intervals_with_loss_and_reordering_per_interval() -> None:
    dut = SimulatedDut(
        impairments=(
            (1, Impairment(lost=5, reordered=2)),
            (3, Impairment(reordered=7, duplicates=1)),
        )
    )
    config = SoakConfig(64, 0.5, total_duration_s=10.0, interval_s=3.0)
    recorder = Recorder(SimulatedRunner(dut))
    result = run_soak(config, recorder)
    assert [i.duration_s for i in result.intervals] == [3.0, 3.0, 3.0, 1.0]
    assert [i.start_offset_s for i in result.intervals] == [0.0, 3.0, 6.0, 9.0]
    assert [dict(t.labels)["soak_interval"] for t in recorder.trials] == ["0", "1", "2", "3"]
    # Half of 10GbE at 64 B: 7440476.19 frames/s.
    assert [i.tx_frames for i in result.intervals] == [22321429, 22321429, 22321429, 7440476]
    # Interval 3 has a duplicate (RX > TX): no loss, never a negative one.
    assert [i.lost for i in result.intervals] == [0, 5, 0, 0]
    assert [i.reordered for i in result.intervals] == [0, 2, 0, 7]
    assert [i.duplicates for i in result.intervals] == [0, 0, 0, 1]
    assert result.intervals[1].loss_ratio == 5 / 22321429
    assert result.intervals[3].loss_ratio == 0.0
    totals = result.totals
    assert (totals.intervals, totals.invalid_intervals) == (4, 0)
    assert totals.tx_frames == 3 * 22321429 + 7440476
    assert totals.rx_frames == totals.tx_frames - 4
    # Interval 3's duplicate does not make up for a frame interval 1 lost.
    assert (totals.lost, totals.reordered, totals.duplicates) == (5, 9, 1)
    assert (totals.intervals_with_loss, totals.intervals_with_reordering) == (1, 2)
    assert (totals.worst_interval, totals.worst_interval_loss_ratio) == (1, 5 / 22321429)
    assert totals.loss_ratio == 5 / totals.tx_frames


def test_soak_keeps_going_past_an_invalid_interval() -> None:
    runner = CrashingRunner(SimulatedRunner(SEVENTY), frozenset({2}))
    config = SoakConfig(64, 0.5, total_duration_s=4.0, interval_s=1.0)
    result = run_soak(config, Recorder(runner))
    assert [i.valid for i in result.intervals] == [True, True, False, True]
    assert result.intervals[2].error == "ConnectionError: simulated: switch stopped answering"
    assert result.intervals[2].latency_avg_us is None
    assert result.totals.invalid_intervals == 1
    assert result.totals.tx_frames == 3 * 7440476
    assert result.totals.worst_interval is None  # no loss at half load


def test_soak_interval_count_is_exact_for_whole_divisions() -> None:
    tenths = SoakConfig(64, 0.5, 60.0, 0.1).intervals()
    assert len(tenths) == 600
    assert set(tenths[:-1]) == {0.1} and tenths[-1] == pytest.approx(0.1)
    assert len(SoakConfig(64, 0.5, 3.0, 1.0).intervals()) == 3
    assert SoakConfig(64, 0.5, 0.5, 1.0).intervals() == (0.5,)


@pytest.mark.parametrize(
    ("factory", "fragment"),
    [
        (lambda: RampConfig(64, 0.0, 1.0, 0.1, 1.0), "RampConfig: start_fraction must be"),
        (lambda: RampConfig(64, 0.1, 1.0, 1e-6, 1.0), "RampConfig: 900001 steps is more than"),
        (lambda: RampConfig(64, 0.1, 1.0, 0.1, 0.0), "RampConfig: step_duration_s must be"),
        (lambda: SoakConfig(64, 0.5, 1e6, 1.0), "SoakConfig: 1000000 intervals is more than"),
        (lambda: SoakConfig(64, 0.5, 10.0, 0.0), "SoakConfig: interval_s must be a positive"),
    ],
)
def test_config_errors(factory: object, fragment: str) -> None:
    with pytest.raises(ValueError, match=re.escape(fragment)):
        factory()  # type: ignore[operator]
