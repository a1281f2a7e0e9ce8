"""How far a benchmark's repeated figure swung, and whether a ratio on it holds (issue
41): a ratio whose baseline swung more than MAX_SPREAD between its repetitions says
nothing about the ratio's target, and is reported as not measured."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median
from typing import Final

# max / min - 1 over a figure's repetitions above which it is not a baseline.
MAX_SPREAD: Final = 0.2


def spread(values: Sequence[float]) -> float:
    """max / min - 1 (infinite when a repetition measured nothing)."""
    low = min(values)
    return max(values) / low - 1 if low > 0 else float("inf")


def figures(values: Sequence[float]) -> str:
    """'median M (v1, v2, ...; spread S%)'."""
    swing = spread(values)
    swung = f"{swing:.0%}" if swing != float("inf") else "unbounded"
    return f"median {median(values):.0f} ({', '.join(f'{v:.0f}' for v in values)}; spread {swung})"


def swung(name: str, values: Sequence[float]) -> str:
    """Why `values` is no baseline for a ratio ('' when it is)."""
    if min(values) <= 0:
        return f"{name} measured nothing in a repetition"
    if spread(values) > MAX_SPREAD:
        return (f"{name} swung {spread(values):.1%} between repetitions, more than "
                f"{MAX_SPREAD:.0%}")
    return ""
