"""Each figure of a run page to its precision, by the column it is in (issue 43):
latency in µs to 0.1, rates in frames/s (and bit/s) to 1, percentages to 0.01. The
dashboard's static/format.js keeps the same rules for the live page.

trials.csv keeps full floats (a program reads it); only what a person reads is rounded.
"""

from __future__ import annotations

from typing import Final

# Column name endings -> decimals shown.
_DECIMALS: Final = (("_us", 1), ("_pps", 0), ("_pps_measured", 0), ("_bps", 0), ("_pct", 2))


def decimals_of(column: str) -> int | None:
    """Decimals a column's figures get; None: shown as written (counts, names, times)."""
    for ending, decimals in _DECIMALS:
        if column.endswith(ending):
            return decimals
    return None


def format_cell(column: str, text: str) -> str:
    """`text` to its column's precision; text that is no number stays as it is."""
    decimals = decimals_of(column)
    if decimals is None or text == "":
        return text
    try:
        value = float(text)
    except ValueError:
        return text
    return f"{value:.{decimals}f}"
