"""The edge array the eBPF program's bin search reads (targets/ebpf/tester.py)."""

from __future__ import annotations

import pytest

from p4tester.targets.ebpf.tester import bin_search_cells

ABOVE_ANY_VALUE = (1 << 64) - 1


def test_edges_then_cells_above_any_value() -> None:
    assert bin_search_cells([10, 20, 1 << 16], 16) == [10, 20, 1 << 16] + [ABOVE_ANY_VALUE] * 29


def test_31_bins_fill_the_array() -> None:
    assert bin_search_cells(list(range(32)), 32) == list(range(32))


@pytest.mark.parametrize(("edges", "message"), [
    ([5], "at least two edges"),
    (list(range(33)), "32 bins asked, the data plane has 31"),
    ([3, 3], "must increase strictly"),
    ([0, (1 << 16) + 1], "bin edge 65537 does not fit a 16-bit value (at most 65536)"),
])
def test_refused_edges(edges: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        bin_search_cells(edges, 16)
