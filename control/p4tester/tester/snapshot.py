"""Counter snapshots: a trial's figures are the difference of two, so nothing
has to be reset on the switch (resetting 2 x 2048 histogram cells on BMv2 is a
cell-by-cell write)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p4tester.dataplane import names
from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM
from p4tester.dataplane.cut_bytes import without_cut_bytes
from p4tester.dataplane.program import TesterDataplane
from p4tester.p4rt import CounterValue

_ZERO = CounterValue(0, 0)


@dataclass(frozen=True, slots=True)
class CounterSnapshot:
    cells: Mapping[str, Mapping[int, CounterValue]]

    @classmethod
    def take(cls, dataplane: TesterDataplane,
             counters: tuple[str, ...] = names.ALL_COUNTERS) -> CounterSnapshot:
        """`counters` (all by default) as they are now; a snapshot of some of them
        answers for those only."""
        # TX bytes as they left: less what random-size frames lost (dataplane.cut_bytes).
        return cls(without_cut_bytes({name: dataplane.read_counter(name)
                                      for name in counters}))

    def cell(self, counter: str, index: int) -> CounterValue:
        return self.cells[counter].get(index, _ZERO)


def packets_between(before: CounterSnapshot, after: CounterSnapshot, counter: str,
                    index: int) -> int:
    return after.cell(counter, index).packets - before.cell(counter, index).packets


def bytes_between(before: CounterSnapshot, after: CounterSnapshot, counter: str,
                  index: int) -> int:
    return after.cell(counter, index).bytes - before.cell(counter, index).bytes


def histogram_between(before: CounterSnapshot, after: CounterSnapshot, counter: str,
                      stream_id: int) -> list[int]:
    """Packets per histogram cell of one stream; the last cell is 'outside all bins'."""
    base = stream_id * HIST_CELLS_PER_STREAM
    return [packets_between(before, after, counter, base + i) for i in range(HIST_CELLS_PER_STREAM)]
