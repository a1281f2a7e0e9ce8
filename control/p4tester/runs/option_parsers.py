"""Option text -> typed values: the same parsers for argv (the CLI) and JSON (the
web server), each error naming what to give instead."""

from __future__ import annotations

from p4tester.streams.rates import Rate, RateError


class OptionValueError(ValueError):
    """An option's text does not parse; the message says what to give instead."""


def load_fraction(text: str) -> float:
    """'50%' or '0.5' -> 0.5 of line rate (options that span several frame sizes)."""
    try:
        value = Rate.parse(text).value / 100.0 if text.endswith("%") else float(text)
    except (RateError, ValueError) as exc:
        raise OptionValueError(f"load {text!r}: give a % or a fraction") from exc
    if not 0 < value <= 1:
        raise OptionValueError(
            f"load {text!r} is {value * 100:g} % of line rate: it must be in (0, 100] %")
    return value


def load_rate(text: str) -> Rate:
    """A load at one frame size: '50%', '0.5' (of line rate), '3000pps', '2Mbps' (L1)
    or 'l2:2Mbps'; turned into a share of line rate by `fraction_at`."""
    try:
        if text.replace(".", "", 1).isdigit():
            return Rate.from_percent(float(text) * 100.0)
        return Rate.parse(text)
    except RateError as exc:
        raise OptionValueError(f"load {text!r}: {exc}") from exc


def size_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError as exc:
        raise OptionValueError(f"{text!r}: give sizes like 64,128,1518") from exc


def percent_list(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError as exc:
        raise OptionValueError(f"{text!r}: give percents like 1,10,50,100") from exc
