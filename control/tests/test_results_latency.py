"""Latency: percentiles from crafted histograms, stats from register sums, bin edges."""

from __future__ import annotations

from itertools import pairwise

import pytest

from p4tester.results.latency import (
    P50,
    P99,
    P999,
    latency_stats,
    linear_bin_edges,
    log_bin_edges,
    merge_latency,
    percentile,
)
from p4tester.results.model import Histogram, LatencyStats


def test_uniform_single_bin_interpolates_linearly() -> None:
    histogram = Histogram(edges=(0, 100), counts=(100,))
    assert percentile(histogram, P50) == 50.0
    assert percentile(histogram, P99) == 99.0
    assert percentile(histogram, P999) == pytest.approx(99.9)
    assert percentile(histogram, 1.0) == 100.0


def test_rank_inside_a_later_bin() -> None:
    histogram = Histogram(edges=(0, 10, 20, 30), counts=(5, 5, 0))
    # rank 5 = exactly all of bin 0: its upper edge
    assert percentile(histogram, P50) == 10.0
    # rank 9.9: 4.9 of bin 1's 5 samples -> 10 + 4.9/5 * 10
    assert percentile(histogram, P99) == pytest.approx(19.8)


def test_empty_bins_are_skipped() -> None:
    histogram = Histogram(edges=(0, 10, 20, 30), counts=(0, 4, 0))
    assert percentile(histogram, P50) == 15.0
    assert percentile(histogram, 1.0) == 20.0


def test_unequal_bins() -> None:
    histogram = Histogram(edges=(0, 1, 2, 4, 8, 16), counts=(10, 20, 40, 20, 10))
    assert percentile(histogram, P50) == 3.0  # rank 50: 20 of bin [2, 4)'s 40
    assert percentile(histogram, 0.95) == 12.0  # rank 95: 5 of bin [8, 16)'s 10


def test_rank_among_outside_samples_is_none() -> None:
    histogram = Histogram(edges=(0, 10), counts=(9,), outside=1)
    assert percentile(histogram, P50) == pytest.approx(50 / 9)
    assert percentile(histogram, 0.9) == 10.0  # rank 9: the last in-bin sample
    assert percentile(histogram, P99) is None  # rank 9.9 is beyond the last edge


def test_empty_histogram_and_bad_quantile() -> None:
    assert percentile(Histogram(edges=(0, 10), counts=(0,)), P50) is None
    with pytest.raises(ValueError, match=r"quantile must be in \(0, 1\]"):
        percentile(Histogram(edges=(0, 10), counts=(1,)), 99.0)


def test_latency_stats_from_register_sums() -> None:
    stats = latency_stats(samples=4, min_us=2.0, max_us=9.0, sum_us=20.0, jitter_sum_us=6.0)
    assert stats == LatencyStats(samples=4, min_us=2.0, max_us=9.0, avg_us=5.0, jitter_us=2.0)


def test_latency_stats_percentiles_are_clamped_to_min_max() -> None:
    # All 4 samples in [0, 100) but measured between 2 and 9: interpolation says 50 for
    # the median, the truth is at most 9.
    histogram = Histogram(edges=(0, 100), counts=(4,))
    stats = latency_stats(4, 2.0, 9.0, 20.0, 6.0, histogram)
    assert (stats.p50_us, stats.p99_us, stats.p999_us) == (9.0, 9.0, 9.0)
    histogram = Histogram(edges=(0, 4, 8), counts=(2, 2))
    stats = latency_stats(4, 0.0, 8.0, 16.0, 0.0, histogram)
    assert stats.p50_us == 4.0
    assert stats.p99_us == pytest.approx(7.92)
    assert stats.histogram is histogram


def test_latency_stats_edge_cases() -> None:
    assert latency_stats(1, 3.0, 3.0, 3.0, 0.0).jitter_us == 0.0
    with pytest.raises(ValueError, match=r"at least one sample.*latency=None"):
        latency_stats(0, 0.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match=r"min 5\.0 us is above max 1\.0 us"):
        latency_stats(2, 5.0, 1.0, 6.0, 0.0)


def test_merge_latency() -> None:
    edges = (0, 10, 20)
    a = latency_stats(3, 1.0, 12.0, 15.0, 4.0, Histogram(edges, (2, 1)))
    b = latency_stats(5, 2.0, 19.0, 45.0, 8.0, Histogram(edges, (1, 3), outside=1))
    merged = merge_latency([a, b])
    assert merged is not None
    assert (merged.samples, merged.min_us, merged.max_us) == (8, 1.0, 19.0)
    assert merged.avg_us == pytest.approx(60.0 / 8)
    assert merged.jitter_us == pytest.approx(12.0 / 6)  # (3-1) + (5-1) consecutive pairs
    assert merged.histogram == Histogram(edges, (3, 4), outside=1)
    assert merged.p50_us == pytest.approx(12.5)  # rank 4: 1 of bin [10, 20)'s 4
    other_edges = latency_stats(2, 1.0, 2.0, 3.0, 1.0, Histogram((0, 5), (2,)))
    assert merge_latency([a, other_edges]).histogram is None  # type: ignore[union-attr]
    assert merge_latency([a]) is a
    assert merge_latency([]) is None


def test_log_bin_edges() -> None:
    edges = log_bin_edges(10_000)
    assert len(edges) == 32  # 31 bins: the data plane's maximum
    assert (edges[0], edges[-1]) == (0, 10_000)
    assert all(b > a for a, b in pairwise(edges))
    # Geometric at the top: consecutive (edge + 1) ratios about 10001 ** (1/31) = 1.346
    assert edges[-1] / edges[-2] == pytest.approx(1.346, abs=0.01)
    assert log_bin_edges(31) == tuple(range(32))  # one tick per bin when that is all
    assert log_bin_edges(1000, bins=4, low=8) == (8, 13, 39, 184, 1000)


def test_linear_bin_edges() -> None:
    assert linear_bin_edges(100, bins=4) == (0, 25, 50, 75, 100)
    assert linear_bin_edges(20, bins=2, low=10) == (10, 15, 20)


@pytest.mark.parametrize(
    ("high", "bins", "low", "message"),
    [
        (1000, 32, 0, r"1\.\.31 bins per stream"),
        (1000, 0, 0, r"1\.\.31 bins"),
        (30, 31, 0, r"cannot hold 31 integer-wide bins"),
        (1000, 4, -1, r"0 <= low"),
    ],
)
def test_bin_edges_errors(high: int, bins: int, low: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        log_bin_edges(high, bins, low)
