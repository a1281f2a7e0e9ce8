"""The generator's clock in the trial loop's units: the one conversion on Tofino.

Each generator cell (p4src/tna/generator.p4) keeps, beside its count, the tick of
the last packet it counted: global_tstamp (48-bit nanoseconds) bits 39..8, ticks of
256 ns in 32 bits, wrapping every 2^40 ns (~1100 s). The trial loop times its samples
on a switch clock of microseconds that wraps at 2^SWITCH_CLOCK_BITS
(tester.trial_course, BMv2's own clock). Neither wrap is a multiple of the other, so
the ticks are first widened past their wrap, then converted and wrapped at 2^32 us:
the result is one clock that wraps where the trial loop expects it to.

Widening follows each cell from read to read: a cell's tick moves on by less than a
wrap between two reads (the loop reads every POLL_S, and an application's packets are
at most one timer period, 4.3 s, apart). A cell read for the first time is placed
within half a wrap of the latest tick seen in the trial, so every cell's clock is the
same clock: all of a trial's generators start together.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

from p4tester.tester.trial_course import SWITCH_CLOCK_BITS, SWITCH_CLOCK_HZ

TICK_NS: Final = 256  # global_tstamp bits 39..8
TICK_BITS: Final = 32
NS_PER_S: Final = 1_000_000_000


def ticks_to_switch_time(ticks: int) -> int:
    """Widened ticks as the trial loop's switch clock (SWITCH_CLOCK_HZ, wrapping at
    2^SWITCH_CLOCK_BITS), truncated to whole units. Ticks below 0 (a cell read first
    that was just before the wrap the trial's latest was after) wrap too."""
    return (ticks * TICK_NS * SWITCH_CLOCK_HZ // NS_PER_S) % (1 << SWITCH_CLOCK_BITS)


class TickWidener:
    """32-bit generator ticks widened past their wrap, per cell (any key: application
    and pipe), for one trial. Mutable on purpose: it follows the reads."""

    def __init__(self) -> None:
        self._cells: dict[Hashable, int] = {}
        self._latest: int | None = None

    def reset(self) -> None:
        """A new trial: no cell read yet."""
        self._cells.clear()
        self._latest = None

    def widen(self, cell: Hashable, raw: int) -> int:
        """The cell's tick `raw` (as read, 32 bits) widened: at or after the cell's
        last one, or near the trial's latest for a cell's first read."""
        if not 0 <= raw < 1 << TICK_BITS:
            raise ValueError(f"generator tick {raw} does not fit {TICK_BITS} bits")
        wrap = 1 << TICK_BITS
        last = self._cells.get(cell)
        if last is not None:
            widened = last + (raw - last) % wrap
        elif self._latest is not None:
            ahead = (raw - self._latest) % wrap
            widened = self._latest + (ahead - wrap if ahead >= wrap // 2 else ahead)
        else:
            widened = raw
        self._cells[cell] = widened
        self._latest = widened if self._latest is None else max(self._latest, widened)
        return widened
