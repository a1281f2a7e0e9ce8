"""RFC 2544 26.3 frame loss rate: from line rate down until two clean trials."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from p4tester.experiments.frame_loss import FrameLossConfig, run_frame_loss
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.simulated_runner import Impairment, SimulatedDut, SimulatedRunner
from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.results.model import TrialResult
from p4tester.search.simulated import capacity_loss_ratio

# 64 B at 10GbE is 14880952.38 frames/s: 2.1 ms of line rate is exactly 31250 frames.
TRIAL_S = 0.0021


def runner(capacity: float) -> SimulatedRunner:
    return SimulatedRunner(SimulatedDut(capacity_by_size=lambda size: capacity))


def test_stops_after_two_clean_steps_with_the_right_points() -> None:
    config = FrameLossConfig(frame_sizes=(64,), trial_duration_s=TRIAL_S)
    result = run_frame_loss(config, Recorder(runner(0.65)))
    (curve,) = result.curves
    assert curve.frame_size == 64 and curve.converged
    assert [p.offered_fraction for p in curve.points] == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5]
    assert [p.offered_percent for p in curve.points] == pytest.approx([100, 90, 80, 70, 60, 50])
    assert [p.tx_frames for p in curve.points] == [31250, 28125, 25000, 21875, 18750, 15625]
    # Loss = (TX - RX) / TX; the simulated DUT drops the excess over 65 %, rounded up.
    assert [p.tx_frames - p.rx_frames for p in curve.points] == [10938, 7813, 4688, 1563, 0, 0]
    for point in curve.points:
        expected = capacity_loss_ratio(0.65, point.offered_fraction)
        assert point.loss_ratio == pytest.approx(expected, abs=1.0 / point.tx_frames)
        assert point.loss_percent == pytest.approx(point.loss_ratio * 100.0)
    assert [p.trial_index for p in curve.points] == [0, 1, 2, 3, 4, 5]


def test_a_clean_trial_between_lossy_ones_does_not_stop_it() -> None:
    # Capacity 85 %: loss at 90 %, none at 85 %, a glitch at 80 % (trial 2), then clean.
    # Only two clean trials *in a row* end the procedure.
    glitch_at_80 = SimulatedDut(
        capacity_by_size=lambda size: 0.85, impairments=((2, Impairment(lost=5)),)
    )
    config = FrameLossConfig(
        frame_sizes=(64,), trial_duration_s=TRIAL_S, start_fraction=0.9, step_fraction=0.05
    )
    curve = run_frame_loss(config, Recorder(SimulatedRunner(glitch_at_80))).curves[0]
    assert [p.offered_fraction for p in curve.points] == [0.9, 0.85, 0.8, 0.75, 0.7]
    assert [p.tx_frames - p.rx_frames for p in curve.points] == [1563, 0, 5, 0, 0]


def test_line_rate_dut_needs_two_trials_and_a_hopeless_one_ends_at_the_lowest_step() -> None:
    config = FrameLossConfig(frame_sizes=(64, 1518), trial_duration_s=TRIAL_S)
    clean = run_frame_loss(config, Recorder(runner(1.0)))
    assert [[p.offered_fraction for p in c.points] for c in clean.curves] == [[1.0, 0.9]] * 2
    assert [p.trial_index for c in clean.curves for p in c.points] == [0, 1, 2, 3]
    hopeless = run_frame_loss(config, Recorder(runner(0.05))).curves[0]
    assert not hopeless.converged
    assert [p.offered_fraction for p in hopeless.points] == [
        1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1,
    ]  # fmt: skip


def test_loads_are_round_numbers() -> None:
    assert FrameLossConfig(step_fraction=0.1).loads()[3] == 0.7  # not 0.7000000000000001
    assert FrameLossConfig(step_fraction=0.03, start_fraction=0.1).loads() == (
        0.1,
        0.07,
        0.04,
        0.01,
    )
    trial = Recorder(runner(1.0))
    run_frame_loss(FrameLossConfig(frame_sizes=(64,), trial_duration_s=TRIAL_S), trial)
    assert [dict(t.labels)["offered_pct"] for t in trial.trials] == ["100", "90"]


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"step_fraction": 0.2}, "step_fraction must be in (0, 0.1]: RFC 2544 26.3 steps"),
        ({"step_fraction": 0.0}, "step_fraction must be in (0, 0.1]"),
        ({"start_fraction": 1.5}, "start_fraction must be a share of line rate in (0, 1]"),
        ({"clean_trials_to_stop": 0}, "clean_trials_to_stop must be a whole number >= 1"),
        ({"frame_sizes": ()}, "frame_sizes is empty"),
    ],
)
def test_config_errors(fields: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"FrameLossConfig: {fragment}")):
        FrameLossConfig(**fields)  # type: ignore[arg-type]


class TesterLimitedAbove:
    """The simulated DUT behind a tester that loses frames itself above `limit`."""

    def __init__(self, inner: SimulatedRunner, limit: float) -> None:
        self.inner = inner
        self.limit = limit

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        trial = self.inner.run_trial(spec)
        if spec.offered_fraction <= self.limit:
            return trial
        check = SelfCheck((PortCheck(2, "p4lt2", trial.rx_frames, 0, 0, 0, 0, 0),))
        return replace(trial, valid=False, error="tester-limited", self_check=check)


def test_loads_the_tester_cannot_carry_are_not_measured_not_dut_loss() -> None:
    config = FrameLossConfig(frame_sizes=(64,), trial_duration_s=TRIAL_S)
    recorder = Recorder(TesterLimitedAbove(runner(0.65), limit=0.85))
    (curve,) = run_frame_loss(config, recorder).curves
    assert curve.not_measured == (1.0, 0.9)
    assert [p.offered_fraction for p in curve.points] == [0.8, 0.7, 0.6, 0.5]
    assert curve.converged
    # Three tries at each load the tester could not carry, then the curve goes on.
    assert [t.invalid_reason for t in recorder.trials[:6]] == ["tester-limited"] * 6
    assert [p.trial_index for p in curve.points] == [6, 7, 8, 9]
