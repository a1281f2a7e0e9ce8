"""Inclusive ranges as ternary (value, mask) prefixes, for tables without range match.

The cover is minimal: from the low end, take the largest aligned power-of-two block
that starts there and stays within the range. A w-bit range needs at most 2w - 2
prefixes ([1, 2^w - 2]), so a 32-bit latency bin can cost up to 62 TCAM entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p4tester.dataplane.program import bin_ranges


@dataclass(frozen=True, slots=True)
class Ternary:
    """A ternary match: a key k matches when k & mask == value."""

    value: int
    mask: int


def range_to_prefixes(low: int, high: int, width: int) -> tuple[Ternary, ...]:
    """The fewest prefixes whose union is exactly [low, high] of a width-bit field."""
    if width < 1:
        raise ValueError(f"field width {width} must be at least 1 bit")
    top = (1 << width) - 1
    if not 0 <= low <= high <= top:
        raise ValueError(
            f"range [{low}, {high}] must satisfy 0 <= low <= high <= {top} ({width}-bit field)"
        )
    prefixes = []
    start = low
    while start <= high:
        # Largest block 2^k aligned at `start` (k = trailing zeros) that ends <= high.
        size = start & -start if start else 1 << width
        while start + size - 1 > high:
            size >>= 1
        prefixes.append(Ternary(start, top & ~(size - 1)))
        start += size
    return tuple(prefixes)


def bin_prefixes(edges: Sequence[int], value_bits: int) -> list[tuple[int, Ternary]]:
    """(bin, prefix) for every prefix of every histogram bin (dataplane.program.bin_ranges),
    in bin order: the bin tables of targets without range match (Tofino, eBPF)."""
    return [(index, prefix) for index, (low, high) in enumerate(bin_ranges(edges, value_bits))
            for prefix in range_to_prefixes(low, high, value_bits)]
