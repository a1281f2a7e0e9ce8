"""Small statistics the experiments share: medians and percentiles over trials, a
trial's counters summed over its streams, histograms added up."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p4tester.results.model import Histogram, TrialResult, loss_ratio_of


def median(values: Sequence[float]) -> float:
    """The middle value; the mean of the two middle ones for an even count."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def median_with_overflow(values: Sequence[float | None]) -> float | None:
    """Median where None means an unknown value taken as above every known one (beyond
    any histogram): such values sort last, and a median that lands on one is unknown
    (None)."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(math.inf if value is None else value for value in values)
    result = median(ordered)
    return None if math.isinf(result) else result


def nearest_rank_with_overflow(values: Sequence[float | None], quantile: float) -> float | None:
    """Nearest-rank percentile: the smallest value with at least `quantile` of the
    values at or below it (with 20 values, p1 is the lowest and p99 the highest).
    None values (beyond a histogram) rank above every known one; landing on one gives
    None."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0.0 < quantile <= 1.0:
        raise ValueError(f"quantile must be in (0, 1], got {quantile}")
    known = sorted(value for value in values if value is not None)
    # The slack keeps 0.99 x 100 = 99.00000000000001 from ranking one too high.
    rank = max(1, math.ceil(quantile * len(values) - 1e-9))
    return known[rank - 1] if rank <= len(known) else None


@dataclass(frozen=True, slots=True)
class Bounded:
    """A statistic of values some of which are only lower bounds: `value` is a lower
    bound of the true statistic, exact unless `lower_bound`; None: unknown values
    decided it."""

    value: float | None
    lower_bound: bool


def bounded_statistic(statistic: Callable[[Sequence[float | None]], float | None],
                      values: Sequence[float | None], lower_bounds: Sequence[bool]) -> Bounded:
    """`statistic` (median_with_overflow, a nearest rank) over values where
    lower_bounds[i] says values[i] is only a lower bound (a percentile beyond a
    histogram's last edge: the truth lies at or above it).

    An order statistic does not fall when a value rises, so taken over the bounds it
    is at most the true one, and taken with the bounds unknown (above everything) at
    least: the result is exact when the two agree, else only its lower bound is known.
    """
    low = statistic(values)
    high = statistic([None if bound else value
                      for value, bound in zip(values, lower_bounds, strict=True)])
    return Bounded(low, low is not None and low != high)


@dataclass(frozen=True, slots=True)
class TrialCounts:
    """A trial's counters summed over its streams."""

    tx_frames: int
    rx_frames: int
    lost: int  # each stream's TX - RX after the drain, never negative, added up
    reordered: int
    duplicates: int
    # Frames the DUT was to deliver (a replicated stream's TX on each of its ports).
    frames_due: int

    @property
    def loss_ratio(self) -> float:
        return loss_ratio_of(self.lost, self.frames_due)


def trial_counts(trial: TrialResult) -> TrialCounts:
    return TrialCounts(
        tx_frames=trial.tx_frames,
        rx_frames=trial.rx_frames,
        lost=trial.lost,
        reordered=sum(stream.reordered for stream in trial.streams),
        duplicates=sum(stream.duplicates for stream in trial.streams),
        frames_due=trial.frames_due,
    )


def add_histograms(histograms: Sequence[Histogram]) -> Histogram | None:
    """Bin-wise sum when all have the same edges; None when there are none or the
    edges differ (adding bins that cover different ranges would be meaningless)."""
    if not histograms or len({h.edges for h in histograms}) != 1:
        return None
    return Histogram(
        edges=histograms[0].edges,
        counts=tuple(sum(column) for column in zip(*(h.counts for h in histograms), strict=True)),
        outside=sum(h.outside for h in histograms),
    )


def queue_depth_histogram(trial: TrialResult) -> Histogram | None:
    """The trial's queue-depth histograms (stamped by the DUT) over all streams."""
    return add_histograms([s.queue_depth for s in trial.streams if s.queue_depth is not None])
