"""An OTG flow's `size` as the frame sizes it sends and each size's weight (its
share of the flow's frames), and the split of the flow's rate and budget over them.

The tester's data plane gives each stream one frame size, so a flow of several sizes
is sent as one stream per size (as a profile's `imix` entry is, config.profile), the
flow's rate and packet budget split over them by weight in whole frames. The mix of
sizes is exact (up to whole frames); their order is not: frames of each size leave
at that size's own rate, so sizes interleave by rate instead of following OTG's
sequence (increment: start, start + step, ...). The mapping says so in a warning.

- fixed: one size.
- increment {start, end, step}: every size start, start + step, ... up to end, in
  equal numbers.
- weight_pairs: the predefined mixes as the OTG model defines them (sizes under the
  Ethernet minimum of 64 B are sent as 64 B, said in a warning), or custom pairs.
- random {min, max}: each frame's size drawn uniformly from min..max, in the data
  plane: BMv2's egress cuts each frame of a max-size template by a random number of
  bytes of its padding, lengths and checksums made to match (v1model/generator.p4,
  tx_resize). Plain frames only (no tunnel); the eBPF tester refuses it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from p4tester.streams.frame_sizes import MAX_FRAME, MIN_ETHERNET_FRAME

from .errors import validation
from .patterns import field_choice

DEFAULT_SIZE: Final = 64
# OTG's defaults for increment and random: 64..1518 B.
DEFAULT_START: Final = 64
DEFAULT_END: Final = 1518
# The OTG model's predefined <size, weight> pairs (Flow.SizeWeightPairs.predefined).
PREDEFINED: Final[dict[str, tuple[tuple[int, float], ...]]] = {
    "imix": ((64, 7), (570, 4), (1518, 1)),
    "ipsec_imix": ((90, 58.67), (92, 2), (594, 23.66), (1418, 15.67)),
    "ipv6_imix": ((60, 58.67), (496, 2), (594, 23.66), (1518, 15.67)),
    "standard_imix": ((58, 58.67), (62, 2), (594, 23.66), (1518, 15.67)),
    "tcp_imix": ((90, 58.67), (92, 2), (594, 23.66), (1518, 15.67)),
}


@dataclass(frozen=True, slots=True)
class SizeMix:
    """The sizes (bytes incl. FCS, ascending, each once) and their weights."""

    sizes: tuple[int, ...]
    weights: tuple[float, ...]

    @property
    def average_size(self) -> float:
        """Mean frame size, weighted by frame count (what rates in bit/s divide by)."""
        return sum(s * w for s, w in zip(self.sizes, self.weights, strict=True)) \
            / sum(self.weights)

    def describe(self, counts: Sequence[int], unit: str) -> str:
        """E.g. '64 B x 7/s, 570 B x 4/s'."""
        return ", ".join(f"{size} B x {count}{unit}"
                         for size, count in zip(self.sizes, counts, strict=True))


@dataclass(frozen=True, slots=True)
class RandomSizes:
    """size.random: every size from minimum to maximum (bytes incl. FCS), equally likely."""

    minimum: int
    maximum: int

    @property
    def average_size(self) -> float:
        return (self.minimum + self.maximum) / 2


def flow_sizes(data: object, where: str, max_sizes: int,
               warnings: list[str]) -> SizeMix | RandomSizes:
    """The flow's `size` (absent: OTG's fixed 64 B); raises an OtgError naming the
    field and the fix. `max_sizes`: the streams the tester has left for this flow."""
    choice = field_choice(data, where)
    if choice is None:
        return SizeMix((DEFAULT_SIZE,), (1.0,))
    assert isinstance(data, Mapping)
    if choice == "fixed":
        size = _whole(data.get("fixed", DEFAULT_SIZE), f"{where}.fixed")
        return SizeMix((size,), (1.0,))
    if choice == "increment":
        body = _body(data, choice, where)
        start = _whole(body.get("start", DEFAULT_START), f"{where}.increment.start")
        end = _whole(body.get("end", DEFAULT_END), f"{where}.increment.end")
        step = _whole(body.get("step", 1), f"{where}.increment.step")
        if step <= 0 or end < start:
            raise validation(f"{where}.increment: start {start}, end {end}, step {step}: give "
                             "start <= end and a step of at least 1")
        sizes = tuple(range(start, end + 1, step))
        _fits(len(sizes), max_sizes, f"{where}.increment",
              f"a step of at least {_smallest_step(start, end, max_sizes)}")
        return SizeMix(sizes, (1.0,) * len(sizes))
    if choice == "weight_pairs":
        return _weight_pairs(_body(data, choice, where), f"{where}.weight_pairs", max_sizes,
                             warnings)
    if choice == "random":
        body = _body(data, choice, where)
        low = _whole(body.get("min", DEFAULT_START), f"{where}.random.min")
        high = _whole(body.get("max", DEFAULT_END), f"{where}.random.max")
        if high < low:
            raise validation(f"{where}.random: min {low} is above max {high}; give min <= max")
        return RandomSizes(low, high)
    raise validation(f"{where}: size choice {choice!r} is not an OTG size (fixed, increment, "
                     "random, weight_pairs)")


def _weight_pairs(body: Mapping[str, object], where: str, max_sizes: int,
                  warnings: list[str]) -> SizeMix:
    choice = field_choice(body, where)
    if choice == "predefined" or (choice is None and "predefined" in body):
        name = body.get("predefined", "imix")
        if name not in PREDEFINED:
            raise validation(f"{where}.predefined: {name!r} is not one of "
                             f"{', '.join(PREDEFINED)}")
        pairs = list(PREDEFINED[str(name)])
        raised = sorted({s for s, _ in pairs if s < MIN_ETHERNET_FRAME})
        if raised:
            # An Ethernet port pads a shorter frame to the minimum: so does the tester.
            warnings.append(f"{where}.predefined {name}: its {', '.join(map(str, raised))} B "
                            f"frames are sent as {MIN_ETHERNET_FRAME} B, the Ethernet minimum")
            pairs = [(max(s, MIN_ETHERNET_FRAME), w) for s, w in pairs]
    elif choice == "custom" or (choice is None and "custom" in body):
        custom = body.get("custom")
        if not isinstance(custom, list) or not custom:
            raise validation(f"{where}.custom: expected a list of {{size, weight}}")
        pairs = []
        for index, item in enumerate(custom):
            here = f"{where}.custom[{index}]"
            if not isinstance(item, Mapping):
                raise validation(f"{here}: expected {{size, weight}}")
            size = _whole(item.get("size", DEFAULT_SIZE), f"{here}.size")
            weight = item.get("weight", 1)
            if isinstance(weight, bool) or not isinstance(weight, int | float) \
                    or not math.isfinite(weight) or weight <= 0:
                raise validation(f"{here}.weight: {weight!r} must be a positive number")
            pairs.append((size, float(weight)))
    else:
        raise validation(f"{where}: give predefined or custom")
    merged: dict[int, float] = {}
    for size, weight in pairs:
        merged[size] = merged.get(size, 0.0) + float(weight)
    _fits(len(merged), max_sizes, where, "fewer sizes")
    sizes = tuple(sorted(merged))
    return SizeMix(sizes, tuple(merged[s] for s in sizes))


def split_whole(total: int, weights: Sequence[float]) -> list[int]:
    """`total` in whole parts proportional to `weights`, summing to exactly `total`
    (largest remainder: each part the floor of its share, the parts with the largest
    remainders one more; ties to the earlier part)."""
    whole = sum(weights)
    shares = [total * w / whole for w in weights]
    parts = [math.floor(s + 1e-9) for s in shares]
    short = total - sum(parts)
    by_remainder = sorted(range(len(shares)), key=lambda i: (-(shares[i] - parts[i]), i))
    for index in by_remainder[:short]:
        parts[index] += 1
    return parts


def _fits(count: int, max_sizes: int, where: str, fix: str) -> None:
    if count > max_sizes:
        raise validation(f"{where}: {count} frame sizes, and the tester sends each size as a "
                         f"stream of its own: {max_sizes} streams are left for this flow; "
                         f"give {fix}")


def _smallest_step(start: int, end: int, max_sizes: int) -> int:
    """The smallest step whose sizes start..end fit in `max_sizes` streams: the sizes
    are (end - start) // step + 1."""
    return (end - start) // max_sizes + 1


def _body(data: Mapping[str, object], choice: str, where: str) -> Mapping[str, object]:
    body = data.get(choice, {})
    if not isinstance(body, Mapping):
        raise validation(f"{where}.{choice}: expected an object")
    return body


def _whole(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise validation(f"{where}: expected an integer, got {value!r}")
    if not 0 < value <= MAX_FRAME:
        raise validation(f"{where}: {value} is not a frame size (1..{MAX_FRAME} B)")
    return value

