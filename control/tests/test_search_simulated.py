"""Simulated DUTs: trial figures, determinism, and the frame-size band they model."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import pytest

from p4tester.search import NDR, Measurer, SearchGoal, SearchResult, binary_search, mlr_search
from p4tester.search.simulated import (
    EXAMPLE_BAND_CAPACITY,
    TEN_GBE_BPS,
    CleanDut,
    FlakyMeasurer,
    FrameSizeDut,
    NoisyDut,
    example_capacity_by_size,
)
from p4tester.streams.rates import line_rate_pps

Search = Callable[[Measurer, Sequence[SearchGoal]], tuple[SearchResult, ...]]


def test_line_rate_counts_preamble_and_gap() -> None:
    # design.md 4: 100GbE at 64 B = 148.81 Mpps; 10GbE at 64 B = 14.88 Mpps.
    assert line_rate_pps(100e9, 64) == pytest.approx(148.81e6, rel=1e-4)
    assert line_rate_pps(TEN_GBE_BPS, 64) == pytest.approx(10e9 / (84 * 8))
    assert line_rate_pps(TEN_GBE_BPS, 1518) == pytest.approx(10e9 / (1538 * 8))


def test_clean_trial_figures() -> None:
    dut = CleanDut(0.5, frame_size=128)
    trial = dut.measure(2.0, 0.8)
    pps = 10e9 / (148 * 8)
    assert trial.experiment == "simulated"
    assert trial.frame_size == 128
    assert trial.offered_fraction == 0.8
    assert trial.offered_pps == pytest.approx(0.8 * pps)
    assert trial.duration_s == 2.0
    assert trial.valid
    (stream,) = trial.streams
    assert stream.frame_size == 128
    assert stream.tx_frames == round(0.8 * pps * 2.0)
    # Above capacity the excess is dropped: loss = 1 - 0.5 / 0.8.
    assert trial.loss_ratio == pytest.approx(1 - 0.5 / 0.8, abs=1 / stream.tx_frames)
    assert stream.rx_bytes == stream.rx_frames * 128


def test_clean_dut_loses_nothing_up_to_capacity_and_something_just_above() -> None:
    dut = CleanDut(0.6)
    assert dut.measure(60.0, 0.6).lost == 0
    assert dut.measure(60.0, 0.3).lost == 0
    # 1e-9 of excess load is a fraction of a frame: still at least one frame lost.
    assert dut.measure(60.0, 0.6 * (1 + 1e-9)).lost >= 1


def test_trial_indices_count_up_per_dut() -> None:
    dut = CleanDut(0.6)
    assert [dut.measure(1.0, 0.5).trial_index for _ in range(3)] == [0, 1, 2]
    assert CleanDut(0.6).measure(1.0, 0.5).trial_index == 0


def test_limit_follows_the_loss_curve() -> None:
    dut = CleanDut(0.6)
    assert dut.limit_fraction(0.0) == 0.6
    assert dut.limit_fraction(0.005) == pytest.approx(0.6 / 0.995)
    assert CleanDut(0.999).limit_fraction(0.005) == 1.0


def test_noisy_dut_is_deterministic_per_seed() -> None:
    def losses(seed: int) -> list[float]:
        dut = NoisyDut(0.6, 0.001, 0.3, seed=seed)
        return [dut.measure(1.0, 0.5).loss_ratio for _ in range(40)]

    assert losses(7) == losses(7)
    assert losses(7) != losses(8)
    # Below capacity a trial is either clean or loses the noise ratio (to a frame).
    noisy = [loss for loss in losses(7) if loss]
    assert 0 < len(noisy) < 40
    assert noisy == pytest.approx([0.001] * len(noisy), abs=1e-6)


def test_noisy_dut_noise_never_lowers_capacity_loss() -> None:
    dut = NoisyDut(0.6, 0.001, 1.0, seed=0)
    trial = dut.measure(1.0, 0.9)
    assert trial.loss_ratio == pytest.approx(1 - 0.6 / 0.9, abs=1e-6)
    assert ("noise", "yes") in trial.labels


def test_example_frame_size_capacity_has_a_loss_band() -> None:
    # Pps-limited (8 Mpps) below 137 B, line rate above, 90 % in 230..278 B.
    assert example_capacity_by_size(64) == pytest.approx(8e6 / line_rate_pps(TEN_GBE_BPS, 64))
    assert example_capacity_by_size(136) < 1.0
    assert example_capacity_by_size(137) == 1.0
    assert example_capacity_by_size(229) == 1.0
    assert example_capacity_by_size(230) == EXAMPLE_BAND_CAPACITY
    assert example_capacity_by_size(278) == EXAMPLE_BAND_CAPACITY
    assert example_capacity_by_size(279) == 1.0


@pytest.mark.parametrize("search", [binary_search, mlr_search])
def test_frame_size_scan_shows_the_non_monotonic_band(search: Search) -> None:
    dut = FrameSizeDut.example()
    sizes = (64, 128, 136, 137, 200, 229, 230, 256, 278, 279, 512, 1518)
    ndr = {}
    for size in sizes:
        (result,) = search(dut.at_frame_size(size), [NDR])
        ndr[size] = result
        assert result.trials[0].frame_size == size
    # "NDR frame size" (seed 000): the smallest size running line rate without loss...
    assert min(s for s in sizes if ndr[s].upper_bound_fraction is None) == 137
    # ...yet loss comes back for 230..278 B, and leaves again above.
    for size in (230, 256, 278):
        lower, upper = ndr[size].lower_bound_fraction, ndr[size].upper_bound_fraction
        assert lower is not None and upper is not None
        assert lower <= EXAMPLE_BAND_CAPACITY <= upper
        assert ndr[size].within_goal_width
    assert ndr[279].lower_bound_fraction == 1.0
    assert ndr[1518].lower_bound_fraction == 1.0
    # Below 137 B the DUT is pps-limited: NDR rises with frame size.
    assert ndr[64].upper_bound_fraction is not None
    assert ndr[128].lower_bound_fraction is not None
    assert ndr[64].upper_bound_fraction < ndr[128].lower_bound_fraction


def test_flaky_measurer_marks_chosen_calls_invalid() -> None:
    flaky = FlakyMeasurer(CleanDut(0.6), frozenset({1}), error="read timed out")
    trials = [flaky.measure(1.0, 0.5) for _ in range(3)]
    assert [t.valid for t in trials] == [True, False, True]
    assert trials[1].error == "read timed out"
    assert trials[1].duration_s == 1.0


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: CleanDut(0.0), "capacity_fraction must be in (0, 1]"),
        (lambda: CleanDut(1.5), "capacity_fraction must be in (0, 1]"),
        (lambda: CleanDut(0.5, frame_size=63), "frame size 63 B is outside 64..9216 B"),
        (lambda: NoisyDut(0.5, 0.001, 1.5), "probability must be in [0, 1]"),
        (lambda: NoisyDut(0.5, 1.0, 0.1), "noise_loss_ratio must be in [0, 1)"),
        (lambda: FrameSizeDut.example().at_frame_size(10000), "frame size 10000 B is outside"),
        (lambda: CleanDut(0.5).measure(1.0, 0.0), "offered_fraction must be in (0, 1]"),
        (lambda: CleanDut(0.5).measure(1.0, 1.2), "offered_fraction must be in (0, 1]"),
        (lambda: CleanDut(0.5).measure(0.0, 0.5), "duration_s must be positive"),
    ],
)
def test_simulation_errors_name_the_problem(make: Callable[[], object], fragment: str) -> None:
    with pytest.raises(ValueError, match=re.escape(fragment)):
        make()
