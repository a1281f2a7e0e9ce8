"""Latency figures from the checker's registers and histogram.

- Percentiles come from the histogram (RFC 8219 section 7.3: typical latency = median,
  worst-case latency = 99.9th percentile), interpolating linearly inside the bin where
  the rank falls, i.e. assuming samples spread evenly over a bin.
- The data plane has one `outside` cell for everything not in a bin. Bin edges start at
  0 (the generators below make sure), so nothing is below the first edge and `outside`
  counts samples at or above the last edge. A percentile whose rank lands there is only
  known to lie in [last edge, max]: it is given as the last edge, a proven lower bound
  (clamped to [min, max] like every estimate), and LatencyStats.is_lower_bound flags it,
  so every display says "≥ edge", never a made-up number. A figure always has an
  answer: None only without a histogram (no bins configured, or merged streams whose
  bins differ) or without samples. Widen the range (a higher last edge) for the value.
- Jitter is the mean absolute IPDV of consecutive frames (RFC 3393): the data plane
  sums |latency(i) - latency(i-1)|, which has samples - 1 terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Final

from p4tester.dataplane.constants import MAX_HIST_BINS
from p4tester.results.model import P50, P99, P999, Histogram, LatencyStats

__all__ = [
    "P50",
    "P99",
    "P999",
    "latency_stats",
    "linear_bin_edges",
    "log_bin_edges",
    "merge_latency",
    "percentile",
    "round_up_125",
    "shifted_latency",
    "widened_log_bins",
    "with_lower_bounds",
]


def percentile(histogram: Histogram, quantile: float) -> float | None:
    """The value below which `quantile` (0 < q <= 1) of the samples lie.

    When the rank falls among the `outside` samples (histogram.beyond_last_edge), the
    last edge: a lower bound, the value is at least that. None when the histogram is
    empty.
    """
    if not 0.0 < quantile <= 1.0:
        raise ValueError(f"quantile must be in (0, 1], got {quantile} (p99.9 is 0.999)")
    total = histogram.total
    if total == 0:
        return None
    if histogram.beyond_last_edge(quantile):
        return float(histogram.edges[-1])
    rank = quantile * total
    below = 0  # samples in the bins before the current one
    for index, count in enumerate(histogram.counts):
        if count and below + count >= rank:
            low, high = histogram.edges[index], histogram.edges[index + 1]
            return low + (rank - below) / count * (high - low)
        below += count
    raise AssertionError(f"rank {rank} of {histogram} is in no bin nor beyond the last edge")


def latency_stats(
    samples: int,
    min_us: float,
    max_us: float,
    sum_us: float,
    jitter_sum_us: float,
    histogram: Histogram | None = None,
) -> LatencyStats:
    """LatencyStats from the checker's per-stream sums; percentiles need the histogram.

    Percentile estimates are clamped to [min_us, max_us]: the true value lies there,
    while interpolation in a wide first or last bin can land outside it.
    """
    if samples < 1:
        raise ValueError(
            f"latency needs at least one sample, got {samples}: a stream that received "
            "nothing has latency=None"
        )
    if not min_us <= max_us:
        raise ValueError(f"latency min {min_us} us is above max {max_us} us: registers misread?")
    if jitter_sum_us < 0:
        raise ValueError(f"jitter sum {jitter_sum_us} us is negative: it sums absolute values")

    p50, p99, p999 = clamped_percentiles(histogram, min_us, max_us)
    return LatencyStats(
        samples=samples,
        min_us=min_us,
        max_us=max_us,
        avg_us=sum_us / samples,
        jitter_us=jitter_sum_us / (samples - 1) if samples > 1 else 0.0,
        p50_us=p50,
        p99_us=p99,
        p999_us=p999,
        histogram=histogram,
    )


def clamped_percentiles(
    histogram: Histogram | None, min_us: float, max_us: float
) -> tuple[float | None, float | None, float | None]:
    def clamped(quantile: float) -> float | None:
        value = None if histogram is None else percentile(histogram, quantile)
        # float(): the checker's registers read as whole numbers, and a percentile
        # clamped to them must stay the float its readers format.
        return None if value is None else float(min(max(value, min_us), max_us))

    return clamped(P50), clamped(P99), clamped(P999)


def with_lower_bounds(stats: LatencyStats) -> LatencyStats:
    """`stats` as recorded before a percentile beyond the histogram's last edge had an
    answer (it was None then), with such percentiles given their lower bound; the
    recorded values stay as they are."""
    if stats.histogram is None:
        return stats
    recorded = (stats.p50_us, stats.p99_us, stats.p999_us)
    computed = clamped_percentiles(stats.histogram, stats.min_us, stats.max_us)
    p50, p99, p999 = (old if old is not None else new
                      for old, new in zip(recorded, computed, strict=True))
    return replace(stats, p50_us=p50, p99_us=p99, p999_us=p999)


def shifted_latency(stats: LatencyStats, by_us: int) -> LatencyStats:
    """`stats` with every latency `by_us` lower: min, avg, max, the percentiles and the
    histogram's edges (its counts and the jitter, differences of latencies, stay). For
    stamps that were put `by_us` late on purpose (tester.tester_group's guard)."""
    histogram = stats.histogram
    if histogram is not None:
        histogram = replace(histogram, edges=tuple(edge - by_us for edge in histogram.edges))

    def lower(value: float | None) -> float | None:
        return None if value is None else value - by_us

    return replace(stats, min_us=stats.min_us - by_us, max_us=stats.max_us - by_us,
                   avg_us=stats.avg_us - by_us, p50_us=lower(stats.p50_us),
                   p99_us=lower(stats.p99_us), p999_us=lower(stats.p999_us),
                   histogram=histogram)


def merge_latency(stats: Sequence[LatencyStats]) -> LatencyStats | None:
    """Several streams' latency as one (e.g. a trial's): min of mins, max of maxes,
    sample-weighted mean; jitter weighted by consecutive pairs. Histograms are added when
    all have the same edges (then percentiles are recomputed, and which are lower bounds
    follows from the added histogram), otherwise dropped. None when there is nothing to
    merge."""
    stats = [s for s in stats if s.samples > 0]
    if not stats:
        return None
    if len(stats) == 1:
        return stats[0]  # as measured: recomputing could only lose what it holds
    samples = sum(s.samples for s in stats)
    pairs = sum(s.samples - 1 for s in stats)
    histogram: Histogram | None = None
    edges = {s.histogram.edges if s.histogram is not None else None for s in stats}
    if len(edges) == 1 and (only := edges.pop()) is not None:
        histograms = [s.histogram for s in stats if s.histogram is not None]
        histogram = Histogram(
            edges=only,
            counts=tuple(
                sum(column) for column in zip(*(h.counts for h in histograms), strict=True)
            ),
            outside=sum(h.outside for h in histograms),
        )
    min_us = min(s.min_us for s in stats)
    max_us = max(s.max_us for s in stats)
    p50, p99, p999 = clamped_percentiles(histogram, min_us, max_us)
    return LatencyStats(
        samples=samples,
        min_us=min_us,
        max_us=max_us,
        avg_us=sum(s.avg_us * s.samples for s in stats) / samples,
        # Each stream has samples - 1 consecutive pairs; pairs across streams do not exist.
        jitter_us=sum(s.jitter_us * (s.samples - 1) for s in stats) / pairs if pairs else 0.0,
        p50_us=p50,
        p99_us=p99,
        p999_us=p999,
        histogram=histogram,
    )


def _check_bins(low: int, high: int, bins: int) -> None:
    if not 1 <= bins <= MAX_HIST_BINS:
        raise ValueError(
            f"{bins} histogram bins: the data plane has 1..{MAX_HIST_BINS} bins per stream "
            "(one more cell counts values outside them)"
        )
    if low < 0 or high - low < bins:
        raise ValueError(
            f"bin range {low}..{high} cannot hold {bins} integer-wide bins: need "
            "0 <= low and high - low >= bins (latency is in whole clock ticks)"
        )


def linear_bin_edges(high: int, bins: int = MAX_HIST_BINS, low: int = 0) -> tuple[int, ...]:
    """bins + 1 integer edges evenly from low to high (queue depths, narrow ranges)."""
    _check_bins(low, high, bins)
    return tuple(low + round((high - low) * i / bins) for i in range(bins + 1))


def log_bin_edges(high: int, bins: int = MAX_HIST_BINS, low: int = 0) -> tuple[int, ...]:
    """bins + 1 integer edges from low to high, narrow at the bottom, wide at the top.

    Latency spans orders of magnitude (a few us idle, ms with a full queue): equal
    ratios between edges keep the relative resolution the same over the range. The
    spacing is geometric in (x - low + 1), so low may be 0, and every bin is at least one
    tick wide.
    """
    _check_bins(low, high, bins)
    span = high - low + 1
    edges = [low]
    for i in range(1, bins + 1):
        ideal = low - 1 + span ** (i / bins)
        # Where the geometric step is below one tick, step one tick; the geometric curve
        # lies below its chord, so the forced steps never push past `high`.
        edges.append(max(edges[-1] + 1, round(ideal)))
    edges[-1] = high  # exact, whatever the float powers did
    if any(a >= b for a, b in pairwise(edges)):
        raise AssertionError(f"log_bin_edges({high}, {bins}, {low}) built {edges}")
    return tuple(edges)


# Round numbers of us, 1-2-5 in each decade: the tops a widened histogram takes
# (widened_log_bins), the guards of streams between testers (tester.group_clocks).
_ROUND_STEPS: Final = (1, 2, 5)


def round_up_125(value: float) -> int:
    """The least of 1, 2, 5 x 10^k (k >= 0) at or above `value`."""
    decade = 1
    while True:
        for step in _ROUND_STEPS:
            if step * decade >= value:
                return step * decade
        decade *= 10


def widened_log_bins(edges: Sequence[int], max_us: float) -> tuple[int, ...] | None:
    """Log bins like `edges` (same count and low edge) whose top holds twice `max_us`,
    at the next round number (1, 2, 5 x 10^k us); None when `edges` already hold
    `max_us`, or are not log bins (a profile's own bins are kept as it asked: their
    percentiles beyond the top are still answered, as lower bounds) or not the data
    plane's (shifted below zero)."""
    low, high, bins = edges[0], edges[-1], len(edges) - 1
    # Edges below zero are shifted figures' (a crossing stream's, shifted_latency), not
    # the data plane's bins.
    if low < 0 or max_us < high or tuple(edges) != log_bin_edges(high, bins, low):
        return None
    return log_bin_edges(round_up_125(max(2 * max_us, high + 1)), bins, low)
