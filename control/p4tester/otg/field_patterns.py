"""OTG field patterns onto the tester's field patterns (streams.field_patterns):
flows at scale for addresses, DSCP, VLAN ids and L4 ports.

    value                     one value in every frame (no pattern)
    values                    Listed, frame i takes values[i mod len]
    increment / decrement     Steps (start, +-step, count); a counter that wraps
                              past the field's width is a list of its values
    random {min, max, seed, count}
                              Draws over min..max: the tester draws count values
                              (crc32 of the seed, the field and the draw's index)
                              and sends them again every count frames
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from p4tester.streams.field_patterns import (
    MAX_LISTED,
    TCP_FIELDS,
    Draws,
    FieldPattern,
    Listed,
    Steps,
    field_seed,
)
from p4tester.streams.variation import VariationError

from .errors import validation
from .patterns import field_choice

CHOICES: Final = ("value", "values", "increment", "decrement", "random", "auto")


@dataclass(frozen=True, slots=True)
class RawPattern:
    """An OTG pattern as written: values (one or more), a counter, or random."""

    values: tuple[int, ...] = ()
    start: int = 0
    step: int = 0  # signed: a decrement's is negative
    count: int = 0  # a counter's values; 0: not a counter
    random: tuple[int, int, int, int] | None = None  # min, max, seed, count

    def mapped(self, convert: Callable[[int], int], step_divisor: int = 1) -> RawPattern:
        """The same pattern over converted values (a TOS byte's DSCP)."""
        return RawPattern(values=tuple(convert(v) for v in self.values),
                          start=convert(self.start) if self.count else 0,
                          step=self.step // step_divisor, count=self.count,
                          random=self.random)


def read_field(data: object, where: str, field: str, bits: int,
               parse: Callable[[object, str], int]) -> tuple[int | None, FieldPattern | None]:
    """(the first frame's value, the pattern; None when it does not vary); (None, None)
    for absent or auto: the tester's default."""
    raw = read_raw(data, where, bits, parse)
    return (None, None) if raw is None else as_pattern(raw, field, bits, where)


def read_raw(data: object, where: str, bits: int,
             parse: Callable[[object, str], int]) -> RawPattern | None:
    choice = field_choice(data, where)
    if choice is None or choice == "auto":
        return None
    assert isinstance(data, Mapping)
    if choice == "value":
        return RawPattern(values=(parse(data.get("value"), f"{where}.value"),))
    if choice == "values":
        items = data.get("values")
        if not isinstance(items, list) or not items:
            raise validation(f"{where}.values: expected a non-empty list")
        return RawPattern(values=tuple(parse(v, f"{where}.values[{i}]")
                                       for i, v in enumerate(items)))
    if choice in ("increment", "decrement"):
        return _counter(data, choice, where, bits, parse)
    if choice == "random":
        return _random(data, where, parse)
    raise validation(f"{where}: choice {choice!r} is not supported (use one of "
                     f"{', '.join(CHOICES)})")


def as_pattern(raw: RawPattern, field: str, bits: int,
               where: str) -> tuple[int, FieldPattern | None]:
    """The first value and the tester's pattern of a raw one (None: fixed)."""
    try:
        if raw.random is not None:
            low, high, seed, count = raw.random
            return low, Draws(field, low, high - low + 1, field_seed(seed, field), count)
        if raw.count:
            if raw.count == 1 or raw.step == 0:
                return raw.start, None
            last = raw.start + (raw.count - 1) * raw.step
            if 0 <= last < 1 << bits or field in TCP_FIELDS:
                return raw.start, Steps(field, raw.start, raw.step, raw.count)
            # OTG counters wrap within the field; the data plane's steps do not: a
            # short one becomes the list of its values.
            if raw.count > MAX_LISTED:
                direction = "increment" if raw.step > 0 else "decrement"
                raise validation(
                    f"{where}.{direction}: {raw.count} values from {raw.start} wrap past the "
                    f"field's {bits} bits; the tester steps without wrapping (or lists up to "
                    f"{MAX_LISTED} values): choose a start and step that stay inside the "
                    "field")
            top = 1 << bits
            return raw.start, Listed(field, tuple((raw.start + i * raw.step) % top
                                                  for i in range(raw.count)))
        values = raw.values
        return values[0], (Listed(field, values) if len(set(values)) > 1 else None)
    except VariationError as exc:
        raise validation(f"{where}: {exc}") from exc


def _counter(data: Mapping[str, object], choice: str, where: str, bits: int,
             parse: Callable[[object, str], int]) -> RawPattern:
    counter = data.get(choice)
    if not isinstance(counter, Mapping):
        raise validation(f"{where}.{choice}: expected {{start, step, count}}")
    start = parse(counter["start"], f"{where}.{choice}.start") if "start" in counter else 0
    step = parse(counter["step"], f"{where}.{choice}.step") if "step" in counter else 1
    count = counter.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise validation(f"{where}.{choice}.count: {count!r} must be a whole number >= 1")
    return RawPattern(start=start, step=step if choice == "increment" else -step, count=count)


def _random(data: Mapping[str, object], where: str,
            parse: Callable[[object, str], int]) -> RawPattern:
    body = data.get("random")
    if not isinstance(body, Mapping):
        raise validation(f"{where}.random: expected {{min, max, seed, count}}")
    low = parse(body.get("min"), f"{where}.random.min")
    high = parse(body.get("max"), f"{where}.random.max")
    if high < low:
        raise validation(f"{where}.random: max {body.get('max')} is below min {body.get('min')}")
    seed, count = body.get("seed", 1), body.get("count", 1)
    for key, number in (("seed", seed), ("count", count)):
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise validation(f"{where}.random.{key}: {number!r} must be a whole number >= 0")
    assert isinstance(seed, int) and isinstance(count, int)
    if count < 1:
        raise validation(f"{where}.random.count: 0 values; give at least 1")
    return RawPattern(random=(low, high, seed & 0xFFFF_FFFF, count))
