"""Option text -> typed values: the same parsers for argv (the CLI) and JSON (the
web server), each error naming what to give instead."""

from __future__ import annotations

import math

from p4tester.experiments.frame_loss import RFC2544_MAX_STEP as MAX_LOSS_STEP
from p4tester.streams.rates import Rate, RateError
from p4tester.streams.shapes import ShapeError, TrafficShape


class OptionValueError(ValueError):
    """An option's text does not parse; the message says what to give instead."""


def count(text: str) -> int:
    """How many of something (trials, repetitions, frames, addresses): 1 or more."""
    try:
        value = int(text)
    except ValueError as exc:
        raise OptionValueError(f"{text!r}: give a whole number, 1 or more") from exc
    if value < 1:
        raise OptionValueError(f"{text!r}: give 1 or more")
    return value


def seconds(text: str) -> float:
    """A duration in seconds: above 0."""
    return _above_zero(text, "seconds", "2 or 0.5")


def frames_per_second(text: str) -> float:
    """A rate in frames/s: above 0."""
    return _above_zero(text, "frames/s", "1000")


def _above_zero(text: str, unit: str, example: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise OptionValueError(f"{text!r}: give {unit}, like {example}") from exc
    if not (value > 0 and math.isfinite(value)):
        raise OptionValueError(f"{text!r}: give {unit} above 0, like {example}")
    return value


def load_fraction(text: str) -> float:
    """'50%' or '0.5' -> 0.5 of line rate (options that span several frame sizes)."""
    value = _share_of_line_rate(text, f"load {text!r}: give a % or a fraction")
    if not 0 < value <= 1:
        raise OptionValueError(
            f"load {text!r} is {value * 100:g} % of line rate: it must be in (0, 100] %")
    return value


def load_step(text: str) -> float:
    """A frame-loss step: '10%' or '0.1' of line rate, at most 10 % (RFC 2544 26.3)."""
    value = _share_of_line_rate(text, f"step {text!r}: give a % or a fraction, like 10% "
                                      "or 0.05")
    if not 0 < value <= MAX_LOSS_STEP:
        raise OptionValueError(
            f"step {text!r} is {value * 100:g} % of line rate: RFC 2544 26.3 steps by at "
            f"most {MAX_LOSS_STEP:.0%}: give a step in (0, {MAX_LOSS_STEP:.0%}]")
    return value


def _share_of_line_rate(text: str, unreadable: str) -> float:
    """'50%' or '0.5' -> 0.5; OptionValueError(unreadable) for anything else."""
    try:
        return Rate.parse(text).value / 100.0 if text.endswith("%") else float(text)
    except (RateError, ValueError) as exc:
        raise OptionValueError(unreadable) from exc


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


def port_list(text: str) -> tuple[int, ...]:
    """Tester port numbers, 1 or more each (whether the topology has them is the
    run's check)."""
    try:
        ports = tuple(int(part) for part in text.split(","))
    except ValueError as exc:
        raise OptionValueError(f"{text!r}: give port numbers like 1,2,3,4") from exc
    if min(ports) < 1:
        raise OptionValueError(f"{text!r}: port numbers start at 1; give ports like 1,2,3,4")
    return ports


def percent_list(text: str) -> tuple[float, ...]:
    """Shares of something whole (a DUT's queue, a service's CIR): each in (0, 100]."""
    try:
        shares = tuple(float(part) for part in text.split(","))
    except ValueError as exc:
        raise OptionValueError(f"{text!r}: give percents like 1,10,50,100") from exc
    if not all(0 < share <= 100 for share in shares):
        raise OptionValueError(f"{text!r}: each percent must be in (0, 100], like 1,10,50,100")
    return shares


def shape_list(text: str) -> tuple[tuple[int | None, TrafficShape], ...]:
    """'sine,period=4,amplitude=0.5' (every stream) or per stream,
    '0:square,period=2,amplitude=0.3;1:constant' -> (stream id or None, shape) pairs."""
    pairs: list[tuple[int | None, TrafficShape]] = []
    try:
        for part in text.split(";"):
            stream, colon, shape = part.strip().rpartition(":")
            if colon and not stream.strip().isdigit():
                raise OptionValueError(f"shape {part!r}: {stream!r} is no stream id; give "
                                       "'ID:SHAPE' or one shape for every stream")
            pairs.append((int(stream) if colon else None, TrafficShape.parse(shape)))
    except ShapeError as exc:
        raise OptionValueError(str(exc)) from exc
    if len(pairs) > 1 and any(stream is None for stream, _ in pairs):
        raise OptionValueError(f"shapes {text!r}: name each shape's stream ('0:sine,...;"
                               "1:square,...') or give one shape for every stream")
    return tuple(pairs)
