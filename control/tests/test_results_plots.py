"""Plots write real PNG files (headless, deterministic); the least-squares fit is exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.results.model import Histogram, LatencyStats, StreamStats, TrialResult
from p4tester.results.plots import (
    BufferLatencyPoint,
    PlotError,
    linear_fit,
    plot_frame_loss_rate,
    plot_intervals,
    plot_latency_histograms,
    plot_latency_vs_buffer,
    plot_loss_vs_frame_size,
    plot_throughput,
)
from p4tester.results.tables import ThroughputPoint

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert len(data) > len(PNG_SIGNATURE)
    assert data.startswith(PNG_SIGNATURE)


def loss_trial(index: int, frame_size: int, fraction: float, lost: int) -> TrialResult:
    stream = StreamStats(1, frame_size, 1000, 1000 - lost, (1000 - lost) * frame_size, 0, 0, 0, 0)
    return TrialResult("scan", index, fraction, fraction * 1e4, 1.0, frame_size, (stream,))


def test_throughput_plot(tmp_path: Path) -> None:
    points = [
        ThroughputPoint(64, 10e9, 0.42, 0.45),
        ThroughputPoint(128, 10e9, None, 0.7),  # NDR not found: no point, no crash
        ThroughputPoint(1518, 10e9, 1.0, 1.0),
    ]
    path = plot_throughput(points, tmp_path / "plots" / "throughput.png")
    assert path == tmp_path / "plots" / "throughput.png"
    assert_png(path)
    again = plot_throughput(points, tmp_path / "again.png")
    assert again.read_bytes() == path.read_bytes()  # deterministic


def test_throughput_plot_shows_a_load_asked_above_the_bound(tmp_path: Path) -> None:
    """Issue 41: the point is at what the trial proved it offered; a dash marks the load
    it was set to."""
    proven = ThroughputPoint(64, 10e9, 0.0985, 0.0985, ndr_intended_fraction=0.1)
    as_asked = ThroughputPoint(64, 10e9, 0.0985, 0.0985, ndr_intended_fraction=0.0985)
    dashed = plot_throughput([proven], tmp_path / "dashed.png")
    plain = plot_throughput([as_asked], tmp_path / "plain.png")
    assert_png(dashed)
    assert dashed.read_bytes() != plain.read_bytes()
    assert plain.read_bytes() == plot_throughput(
        [ThroughputPoint(64, 10e9, 0.0985, 0.0985)], tmp_path / "none.png").read_bytes()


def test_frame_loss_rate_plot(tmp_path: Path) -> None:
    trials = [
        loss_trial(i, size, fraction, lost)
        for i, (size, fraction, lost) in enumerate(
            [(64, 1.0, 300), (64, 0.9, 120), (64, 0.8, 0), (64, 0.7, 0), (1518, 1.0, 0)]
        )
    ]
    invalid = TrialResult("scan", 99, 0.5, 1.0, 1.0, 64, valid=False, error="x")
    assert_png(plot_frame_loss_rate([*trials, invalid], tmp_path / "flr.png"))


def test_latency_histogram_plot(tmp_path: Path) -> None:
    edges = (0, 1, 2, 4, 8, 16, 32)
    streams = [
        StreamStats(
            stream_id,
            64,
            100,
            100,
            6400,
            0,
            0,
            0,
            0,
            LatencyStats(100, 0.5, 40.0, 6.0, 1.0, histogram=Histogram(edges, counts, 3)),
        )
        for stream_id, counts in ((1, (5, 20, 40, 20, 10, 2)), (2, (0, 0, 10, 60, 25, 2)))
    ]
    no_histogram = StreamStats(3, 64, 1, 0, 0, 0, 0, 0, 0)
    assert_png(plot_latency_histograms([*streams, no_histogram], tmp_path / "hist.png"))
    with pytest.raises(PlotError, match=r"none of the streams has a latency histogram"):
        plot_latency_histograms([no_histogram], tmp_path / "none.png")


def test_latency_vs_buffer_plot(tmp_path: Path) -> None:
    points = [
        BufferLatencyPoint(pct, min_us=5.0, avg_us=5.0 + 2.0 * pct, max_us=6.0 + 4.1 * pct)
        for pct in (1, 10, 25, 50, 75, 100)
    ]
    assert_png(plot_latency_vs_buffer(points, tmp_path / "buffer.png"))
    with pytest.raises(PlotError, match=r"two or more buffer thresholds"):
        plot_latency_vs_buffer(points[:1], tmp_path / "one.png")


def test_loss_vs_frame_size_plot(tmp_path: Path) -> None:
    # Loss that comes back in a size range, like seed 000's 230-278 B.
    sizes = range(64, 400, 16)
    trials = [
        loss_trial(i, size, 1.0, 50 if 230 <= size <= 278 else 0) for i, size in enumerate(sizes)
    ]
    assert_png(plot_loss_vs_frame_size(trials, tmp_path / "scan.png"))
    with pytest.raises(PlotError, match=r"no valid trials"):
        plot_loss_vs_frame_size([], tmp_path / "empty.png")


def test_linear_fit() -> None:
    fit = linear_fit([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 5.0, 7.0])
    assert (fit.slope, fit.intercept, fit.r_squared) == (2.0, 1.0, 1.0)
    flat = linear_fit([1.0, 2.0, 3.0], [4.0, 4.0, 4.0])  # min latency vs buffer: flat
    assert (flat.slope, flat.intercept, flat.r_squared) == (0.0, 4.0, 1.0)
    # y = 0, 2, 1 at x = 0, 1, 2: slope 0.5, intercept 0.5, SS_res 1.5, SS_tot 2
    noisy = linear_fit([0.0, 1.0, 2.0], [0.0, 2.0, 1.0])
    assert (noisy.slope, noisy.intercept) == (0.5, 0.5)
    assert noisy.r_squared == pytest.approx(0.25)
    with pytest.raises(PlotError, match=r"two distinct x values"):
        linear_fit([1.0, 1.0], [1.0, 2.0])


def test_intervals_plot(tmp_path: Path) -> None:
    latency = LatencyStats(100, 10.0, 90.0, 30.0, 2.0)
    trials = [
        TrialResult("soak", i, 0.3, 3e3, 1.0, 64,
                    (StreamStats(0, 64, 1000, 1000 - lost, 0, 0, 0, 0, 0, latency),))
        for i, lost in enumerate([0, 0, 12, 0])
    ]
    assert_png(plot_intervals(trials, tmp_path / "soak.png"))
    with pytest.raises(PlotError, match="no valid trials"):
        plot_intervals([TrialResult("soak", 0, 0.3, 1.0, 1.0, 64, valid=False)],
                       tmp_path / "none.png")
