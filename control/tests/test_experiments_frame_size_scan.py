"""Frame-size scan: loss vs size, NDR frame size, and loss that comes back (seed 000)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p4tester.experiments.frame_size_scan import (
    FrameSizeScanConfig,
    ScanPoint,
    SizeBand,
    analyse,
    run_frame_size_scan,
)
from p4tester.experiments.recording import Recorder
from p4tester.experiments.simulated_runner import SimulatedDut, SimulatedRunner
from p4tester.results.plots import plot_loss_vs_frame_size
from p4tester.search.simulated import example_capacity_by_size

# search/simulated.py's example DUT: at most 8 Mpps (so at 95 % of 10GbE it loses up
# to 128 B), and 90 % capacity in a band of 230..278 B, as seed 000's line card.
EXAMPLE = SimulatedDut(capacity_by_size=example_capacity_by_size)
TRIAL_S = 0.001


def scan(**fields: object) -> FrameSizeScanConfig:
    return FrameSizeScanConfig(**{"trial_duration_s": TRIAL_S, **fields})  # type: ignore[arg-type]


def test_one_byte_steps_show_the_band_where_loss_comes_back(tmp_path: Path) -> None:
    config = scan(start_size=120, end_size=300, offered_fraction=0.95)
    recorder = Recorder(SimulatedRunner(EXAMPLE))
    result = run_frame_size_scan(config, recorder)
    assert [p.frame_size for p in result.points] == list(range(120, 301))
    assert result.lossy_sizes == (*range(120, 129), *range(230, 279))
    assert result.first_loss_free_size == 129  # seed 000's "NDR 130 B" figure
    assert result.ndr_frame_size == 279  # loss-free from here to the end of the scan
    assert result.loss_bands == (SizeBand(120, 128), SizeBand(230, 278))
    assert result.reappearing_bands == (SizeBand(230, 278),)
    assert result.loss_reappears_at == (230,)
    in_band = next(p for p in result.points if p.frame_size == 250)
    assert in_band.loss_ratio == pytest.approx(1 - 0.9 / 0.95, abs=1.0 / in_band.tx_frames)
    plot = plot_loss_vs_frame_size(recorder.trials, tmp_path / "scan.png")
    assert plot.stat().st_size > 0


def test_coarse_steps_always_include_the_end_size() -> None:
    config = scan(start_size=64, end_size=300, step=10, offered_fraction=0.95)
    assert config.sizes()[-2:] == (294, 300)
    result = run_frame_size_scan(config, Recorder(SimulatedRunner(EXAMPLE)))
    assert result.lossy_sizes == (64, 74, 84, 94, 104, 114, 124, 234, 244, 254, 264, 274)
    assert result.loss_bands == (SizeBand(64, 124), SizeBand(234, 274))
    assert (result.first_loss_free_size, result.ndr_frame_size) == (134, 284)


def test_at_90_percent_the_band_is_gone() -> None:
    # Seed 000: lowering the load to 90 % made the 230..278-B drops disappear.
    result = run_frame_size_scan(
        scan(start_size=64, end_size=300, step=2, offered_fraction=0.9),
        Recorder(SimulatedRunner(EXAMPLE)),
    )
    assert result.loss_bands == (SizeBand(64, 120),)
    assert result.reappearing_bands == ()
    assert result.ndr_frame_size == result.first_loss_free_size == 122


def point(size: int, lossy: bool) -> ScanPoint:
    return ScanPoint(size, 100, 90 if lossy else 100, 0.1 if lossy else 0.0, lossy, size)


def test_analysis_edge_cases() -> None:
    config = scan(start_size=64, end_size=67)
    lossy_end = analyse(
        config, (point(64, False), point(65, True), point(66, False), point(67, True))
    )
    assert lossy_end.ndr_frame_size is None
    assert lossy_end.first_loss_free_size == 64
    assert lossy_end.reappearing_bands == (SizeBand(65, 65), SizeBand(67, 67))
    all_lossy = analyse(config, tuple(point(s, True) for s in range(64, 68)))
    assert (all_lossy.first_loss_free_size, all_lossy.ndr_frame_size) == (None, None)
    assert all_lossy.loss_bands == (SizeBand(64, 67),) and all_lossy.reappearing_bands == ()
    clean = analyse(config, tuple(point(s, False) for s in range(64, 68)))
    assert (clean.first_loss_free_size, clean.ndr_frame_size, clean.loss_bands) == (64, 64, ())


def test_threshold_tolerates_small_loss() -> None:
    result = run_frame_size_scan(
        scan(start_size=240, end_size=242, offered_fraction=0.95, loss_ratio_threshold=0.06),
        Recorder(SimulatedRunner(EXAMPLE)),
    )
    assert result.lossy_sizes == ()  # the band loses 5.3 %, under the 6 % threshold
    assert all(p.loss_ratio > 0.05 for p in result.points)


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"start_size": 300, "end_size": 200}, "end_size 200 B is below start_size 300 B"),
        ({"start_size": 60, "end_size": 200}, "start_size: frame size 60 B is outside"),
        ({"start_size": 64, "end_size": 200, "step": 0}, "step must be a whole number >= 1"),
        (
            {"start_size": 64, "end_size": 65, "loss_ratio_threshold": 1.0},
            "loss_ratio_threshold must be in [0, 1)",
        ),
    ],
)
def test_config_errors(fields: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"FrameSizeScanConfig: {fragment}")):
        FrameSizeScanConfig(**fields)  # type: ignore[arg-type]
