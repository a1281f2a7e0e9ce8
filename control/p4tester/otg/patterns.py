"""OTG packet field patterns ({choice: value | values | increment | decrement | auto})
read into what the tester can send: one value, or the list of values frame i of
the stream cycles through (values[i % len(values)])."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from .errors import OtgError, validation

FIXED_CHOICES: Final = ("value", "auto")
LIST_CHOICES: Final = ("values", "increment", "decrement")
_MAC: Final = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


def _int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise validation(f"{where}: expected an integer, got {value!r}")
    try:
        return int(value)
    except ValueError as exc:
        raise validation(f"{where}: expected an integer, got {value!r}") from exc


def _mac(value: object, where: str) -> int:
    if not isinstance(value, str) or not _MAC.match(value):
        raise validation(f"{where}: {value!r} is not a MAC address")
    return int(value.replace(":", ""), 16)


def field_choice(data: object, where: str) -> str | None:
    """The pattern's choice; None when the field is absent (the tester's default)."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise validation(f"{where}: expected a pattern object, got {data!r}")
    choice = data.get("choice")
    if choice is None:
        known = [c for c in (*FIXED_CHOICES, *LIST_CHOICES) if c in data]
        return known[0] if len(known) == 1 else None
    if not isinstance(choice, str):
        raise validation(f"{where}.choice: expected a string, got {choice!r}")
    return choice


def fixed_value(data: object, where: str) -> Any:
    """A field the tester sends unchanged in every frame: its value, or None for
    absent / auto (the tester's default). A list pattern here is refused."""
    choice = field_choice(data, where)
    if choice is None or choice == "auto":
        return None
    assert isinstance(data, Mapping)
    if choice == "value":
        if "value" not in data:
            raise validation(f"{where}.value: missing")
        return data["value"]
    raise validation(f"{where}: choice {choice!r} is not supported for this field (only "
                     "'value'): the tester sends it unchanged in every frame")


def int_values(data: object, where: str, bits: int) -> tuple[int, ...] | None:
    """value / values / increment / decrement of an integer field -> the values in
    frame order (increment and decrement wrap within the field's width); None for
    absent or auto."""
    return _pattern_values(data, where, bits, _int)


def mac_values(data: object, where: str) -> tuple[int, ...] | None:
    """The same for a MAC field: values, start and step are MACs ("00:00:00:00:00:01"
    steps by one), the values 48-bit numbers."""
    return _pattern_values(data, where, 48, _mac)


def _pattern_values(data: object, where: str, bits: int,
                    parse: Callable[[object, str], int]) -> tuple[int, ...] | None:
    choice = field_choice(data, where)
    if choice is None or choice == "auto":
        return None
    assert isinstance(data, Mapping)
    top = 1 << bits
    if choice == "value":
        values: tuple[int, ...] = (parse(data.get("value"), f"{where}.value"),)
    elif choice == "values":
        items = data.get("values")
        if not isinstance(items, list) or not items:
            raise validation(f"{where}.values: expected a non-empty list")
        values = tuple(parse(v, f"{where}.values[{i}]") for i, v in enumerate(items))
    elif choice in ("increment", "decrement"):
        counter = data.get(choice)
        if not isinstance(counter, Mapping):
            raise validation(f"{where}.{choice}: expected {{start, step, count}}")
        start = parse(counter["start"], f"{where}.{choice}.start") if "start" in counter else 0
        step = parse(counter["step"], f"{where}.{choice}.step") if "step" in counter else 1
        count = _int(counter.get("count", 1), f"{where}.{choice}.count")
        if count < 1:
            raise validation(f"{where}.{choice}.count: {count} must be >= 1")
        sign = 1 if choice == "increment" else -1
        values = tuple((start + sign * step * i) % top for i in range(count))
    else:
        raise validation(f"{where}: choice {choice!r} is not supported (use value, values, "
                         "increment or decrement)")
    for position, value in enumerate(values):
        if not 0 <= value < top:
            raise validation(f"{where}: value {value} (position {position}) is outside "
                             f"0..{top - 1}")
    return values


def reject_extra(data: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    """A set key the tester does not implement is refused, naming it."""
    extra = sorted(k for k in data if k not in allowed and k != "choice")
    if extra:
        raise validation(*(f"{where}.{key}: not supported by the tester" for key in extra))


def collect(errors: list[str], error: OtgError) -> None:
    errors.extend(error.errors)
