"""Latency: percentiles from crafted histograms, stats from register sums, bin edges."""

from __future__ import annotations

import dataclasses
from itertools import pairwise
from pathlib import Path

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
    round_up_125,
    shifted_latency,
    widened_log_bins,
    with_lower_bounds,
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


def test_rank_among_outside_samples_is_the_last_edge_a_lower_bound() -> None:
    histogram = Histogram(edges=(0, 10), counts=(9,), outside=1)
    assert percentile(histogram, P50) == pytest.approx(50 / 9)
    assert percentile(histogram, 0.9) == 10.0  # rank 9: the last in-bin sample
    assert not histogram.beyond_last_edge(0.9)
    assert percentile(histogram, P99) == 10.0  # rank 9.9 is beyond the last edge
    assert histogram.beyond_last_edge(P99)
    everything_beyond = Histogram(edges=(0, 10, 20), counts=(0, 0), outside=5)
    assert percentile(everything_beyond, P50) == 20.0
    assert everything_beyond.beyond_last_edge(P50)


# 100 samples: 30 in the bins, 70 at or above the last edge (5000 us), up to 9000 us.
MOSTLY_BEYOND = Histogram(edges=(0, 1000, 5000), counts=(10, 20), outside=70)


def test_median_beyond_the_last_edge_is_the_edge_flagged_as_a_lower_bound() -> None:
    stats = latency_stats(100, 200.0, 9000.0, 500_000.0, 990.0, MOSTLY_BEYOND)
    assert (stats.p50_us, stats.p99_us, stats.p999_us) == (5000.0, 5000.0, 5000.0)
    assert [stats.is_lower_bound(q) for q in (P50, P99, P999)] == [True, True, True]
    assert stats.lower_bounds == ("p50_us", "p99_us", "p999_us")
    assert stats.beyond_histogram == 70
    # The bound is clamped like every estimate: the max says the truth is no higher.
    capped = latency_stats(100, 200.0, 4500.0, 300_000.0, 990.0, MOSTLY_BEYOND)
    assert (capped.p50_us, capped.lower_bounds) == (4500.0, ("p50_us", "p99_us", "p999_us"))


def test_a_p99_inside_the_bins_is_not_flagged() -> None:
    # 1000 samples, 995 in the bins: p99 (rank 990) is measured, p99.9 (999) is not.
    histogram = Histogram(edges=(0, 10, 20), counts=(500, 495), outside=5)
    stats = latency_stats(1000, 1.0, 80.0, 12_000.0, 999.0, histogram)
    assert stats.p50_us == 10.0  # rank 500: all of bin [0, 10)
    assert stats.p99_us == pytest.approx(10 + 490 / 495 * 10)
    assert stats.p999_us == 20.0
    assert [stats.is_lower_bound(q) for q in (P50, P99, P999)] == [False, False, True]
    assert (stats.lower_bounds, stats.beyond_histogram) == (("p999_us",), 5)


def test_no_histogram_or_no_samples_is_the_only_none() -> None:
    stats = latency_stats(4, 2.0, 9.0, 20.0, 6.0)
    assert (stats.p50_us, stats.lower_bounds, stats.beyond_histogram) == (None, (), 0)
    assert not stats.is_lower_bound(P50)
    empty = latency_stats(4, 2.0, 9.0, 20.0, 6.0, Histogram((0, 10), (0,)))
    assert (empty.p50_us, empty.lower_bounds) == (None, ())


def test_merged_lower_bounds_follow_the_added_histogram() -> None:
    # a: 2 of 4 beyond 20 (median in the bins); b: 4 of 4 beyond. Together 6 of 8 are:
    # the median is beyond too, and the outside counts add up.
    a = latency_stats(4, 1.0, 30.0, 60.0, 3.0, Histogram((0, 10, 20), (1, 1), outside=2))
    b = latency_stats(4, 25.0, 40.0, 120.0, 3.0, Histogram((0, 10, 20), (0, 0), outside=4))
    assert (a.p50_us, a.lower_bounds) == (20.0, ("p99_us", "p999_us"))
    assert b.lower_bounds == ("p50_us", "p99_us", "p999_us")
    merged = merge_latency([a, b])
    assert merged is not None
    assert merged.histogram == Histogram((0, 10, 20), (1, 1), outside=6)
    assert (merged.p50_us, merged.p99_us, merged.p999_us) == (20.0, 20.0, 20.0)
    assert merged.lower_bounds == ("p50_us", "p99_us", "p999_us")
    assert merged.beyond_histogram == 6
    # Bins of another range: no histogram to read percentiles off, nothing flagged.
    other = latency_stats(2, 1.0, 2.0, 3.0, 1.0, Histogram((0, 5), (2,)))
    dropped = merge_latency([a, other])
    assert dropped is not None
    assert (dropped.p50_us, dropped.lower_bounds, dropped.beyond_histogram) == (None, (), 0)


def test_recorded_stats_get_their_lower_bounds_filled_in() -> None:
    """Stats of an older record (None where a percentile lay beyond) read as new ones."""
    new = latency_stats(100, 200.0, 9000.0, 500_000.0, 990.0, MOSTLY_BEYOND)
    old = dataclasses.replace(new, p50_us=None, p99_us=None, p999_us=None)
    assert old.lower_bounds == ()  # nothing to flag: no value
    assert with_lower_bounds(old) == new
    assert with_lower_bounds(new) == new  # recorded values stay as they are


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


def test_percentiles_clamped_to_whole_register_values_are_floats_and_print() -> None:
    """The checker's registers read as ints: a percentile clamped to the max (here
    every rank is beyond the last edge, 10, and the max is 8) is the float 8.0, and the
    trials table prints it (a CI run's latency table failed on an int there)."""
    from p4tester.results.tables import bounded_text

    histogram = Histogram(edges=(0, 5, 10), counts=(0, 0), outside=4)
    stats = latency_stats(4, 2, 8, 20, 3, histogram)
    assert (stats.p50_us, stats.p99_us) == (8.0, 8.0)
    assert all(isinstance(v, float) for v in (stats.p50_us, stats.p99_us, stats.p999_us))
    assert bounded_text(8, True) == "≥ 8"
    assert bounded_text(stats.p99_us, stats.is_lower_bound(0.99)) == "≥ 8"


def test_log_bins_widen_to_twice_the_largest_latency_at_a_round_top() -> None:
    default = log_bin_edges(1_000_000)
    assert widened_log_bins(default, 999_999.9) is None  # held: nothing to widen
    assert widened_log_bins(default, 1_000_000) == log_bin_edges(2_000_000)
    assert widened_log_bins(default, 1_234_567) == log_bin_edges(5_000_000)
    assert widened_log_bins(default, 2_600_000) == log_bin_edges(10_000_000)
    small = log_bin_edges(300, 10, 5)
    assert widened_log_bins(small, 301) == log_bin_edges(1000, 10, 5)
    assert len(widened_log_bins(small, 301) or ()) == 11


def test_a_profiles_own_bins_are_never_widened() -> None:
    assert widened_log_bins((0, 10, 20, 50, 100), 5000) is None


def test_the_readme_states_how_log_bins_widen() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs/experiments.md").read_text()
    top = widened_log_bins(log_bin_edges(1_000_000), 1_500_000)
    assert top is not None and top[-1] == 5_000_000
    assert "held frames 1.5 s under the default 1-s top: 5 s" in readme


def test_a_shifted_latency_moves_every_figure_but_the_counts_and_jitter() -> None:
    """Stamps put 300 us late on purpose (a crossing stream's guard) give figures
    300 us high; shifted back, a one-way delay may read below zero, within the
    offset's uncertainty, and every percentile still has its answer."""
    histogram = Histogram((0, 200, 400, 800), (0, 60, 30), outside=10)
    measured = latency_stats(100, 290.0, 900.0, 100 * 350.0, 99 * 4.0, histogram)
    assert (measured.p50_us, measured.p99_us) == (366.6666666666667, 800.0)
    shifted = shifted_latency(measured, 300)
    assert shifted.histogram == Histogram((-300, -100, 100, 500), (0, 60, 30), outside=10)
    assert widened_log_bins(log_bin_edges(800, 3), 5000.0) == log_bin_edges(10_000, 3)
    assert (shifted.min_us, shifted.avg_us, shifted.max_us) == (-10.0, 50.0, 600.0)
    assert (shifted.p50_us, shifted.p99_us, shifted.p999_us) == (66.66666666666669, 500.0,
                                                                 500.0)
    assert shifted.jitter_us == 4.0 and shifted.samples == 100
    assert shifted.lower_bounds == ("p99_us", "p999_us") == measured.lower_bounds
    # A shifted histogram is not the data plane's: it never widens them.
    assert widened_log_bins(shifted.histogram.edges, 5000.0) is None


@pytest.mark.parametrize(("value", "rounded"), [
    (0.0, 1), (1.0, 1), (1.5, 2), (3.0, 5), (101.0, 200), (262.2, 500), (327.1, 500),
    (501.0, 1000)])
def test_round_up_to_1_2_5(value: float, rounded: int) -> None:
    assert round_up_125(value) == rounded
