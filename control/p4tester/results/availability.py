"""Availability of a service over a trial (MEF 10.3 section 8.8, as Y.1564 8.2 asks):
time is cut into intervals of delta-t (1 s); an interval whose frame loss ratio exceeds
C is a high-loss interval; time becomes unavailable at the start of n high-loss
intervals in a row and available again at the start of n intervals in a row that are
not. Availability is the share of intervals that were available, in percent.

MEF 10.3 lets the operator choose C and n; this uses C = 0.5 and n = 10 (its examples'
values, and Y.1563's severely errored second). A trial shorter than n intervals can
only be available throughout.
"""

from __future__ import annotations

from typing import Final

from p4tester.results.model import IntervalCounts

UNAVAILABLE_FLR: Final = 0.5  # C
UNAVAILABLE_RUN: Final = 10  # n
AVAILABILITY_INTERVAL_S: Final = 1.0  # delta-t


def high_loss(intervals: IntervalCounts, threshold: float = UNAVAILABLE_FLR) -> tuple[bool, ...]:
    """Per interval: did it lose more than `threshold` of the frames sent in it? An
    interval that sent nothing has no loss ratio and counts as not high-loss."""
    return tuple(sent > 0 and (sent - min(received, sent)) / sent > threshold
                 for sent, received in zip(intervals.sent, intervals.received, strict=True))


def unavailable(flags: tuple[bool, ...], run: int = UNAVAILABLE_RUN) -> tuple[bool, ...]:
    """Per interval: was it unavailable? A state changes only after `run` intervals in a
    row of the other kind, and then from the first of them on."""
    state = [False] * len(flags)
    available = True
    index = 0
    while index < len(flags):
        window = flags[index:index + run]
        changes = len(window) == run and all(flag == available for flag in window)
        if changes:
            available = not available
            for i in range(index, index + run):
                state[i] = not available
            index += run
            continue
        state[index] = not available
        index += 1
    return tuple(state)


def availability_pct(intervals: IntervalCounts, threshold: float = UNAVAILABLE_FLR,
                     run: int = UNAVAILABLE_RUN) -> float:
    """The share of intervals that were available, in percent (100 with none)."""
    down = unavailable(high_loss(intervals, threshold), run)
    if not down:
        return 100.0
    return 100.0 * (len(down) - sum(down)) / len(down)
