"""Field patterns the data plane keeps per stream and field (p4src/v1model/
field_steps.p4): flows at scale, beyond the variation table's whole-frame entries
(streams.variation).

    Steps:  value_i = start + (i mod count) x step          (increment, decrement)
    Listed: value_i = values[i mod len(values)]
    Draws:  value_i = low + crc32(seed, seq_i) mod count    (random within a range)
            or, repeating every `repeat` frames (OTG's random count),
            value_i = low + crc32(seed, i mod repeat) mod count

i counts the stream's frames from the trial's start; seq_i is frame i's sequence
number. A draw depends only on its seed and the frame's sequence number, so the
flows a stream sent can be told from the frames it numbered. Fields of different
counts combine as the table's do: the whole repeats every lcm(counts) frames.
"""

from __future__ import annotations

import ipaddress
import math
import zlib
from dataclasses import dataclass
from typing import Final

from p4tester.dataplane.field_entries import (
    STEPPED_FIELDS,
    CycleEntry,
    DrawEntry,
    FieldEntry,
    StepEntry,
)
from p4tester.streams.variation import VariationError

# Field -> the bits the data plane writes. An IPv6 address varies in its low 64 bits
# (the interface identifier); its high 64 are the start's, the same for every flow.
FIELD_BITS: Final = {"src_port": 16, "dst_port": 16, "src_ip": 32, "dst_ip": 32,
                     "src_ip6": 64, "dst_ip6": 64, "dscp": 6, "vlan": 12, "outer_vlan": 12,
                     "tcp_seq": 32, "tcp_ack": 32}
PATTERN_FIELDS: Final = STEPPED_FIELDS
IPV4_FIELDS: Final = ("src_ip", "dst_ip")
IPV6_FIELDS: Final = ("src_ip6", "dst_ip6")
ADDRESS_FIELDS: Final = IPV4_FIELDS + IPV6_FIELDS
# Counters that wrap as TCP's do: steps go on modulo 2^32 instead of stopping at the
# field's top.
TCP_FIELDS: Final = ("tcp_seq", "tcp_ack")
# Entries of a field's list, all streams together (p4src/common/constants.p4).
MAX_LISTED: Final = 4096
# A draw is a CRC-32 taken mod count: at most 2^32 outcomes.
MAX_DRAWN: Final = 1 << 32
_LOW64: Final = (1 << 64) - 1


def _limit(field: str) -> int:
    """The largest value: a whole IPv6 address for the IPv6 fields."""
    return (1 << 128) - 1 if field in IPV6_FIELDS else (1 << FIELD_BITS[field]) - 1


def field_text(field: str, value: int) -> str:
    """A value as users write it: addresses as addresses, numbers as numbers."""
    if field in IPV4_FIELDS:
        return str(ipaddress.IPv4Address(value))
    if field in IPV6_FIELDS:
        return str(ipaddress.IPv6Address(value))
    return str(value)


def _check_value(field: str, value: int) -> None:
    if not 0 <= value <= _limit(field):
        raise VariationError(f"vary: {field}: {field_text_safe(field, value)} is outside "
                             f"{field_text(field, 0)}..{field_text(field, _limit(field))}")


def field_text_safe(field: str, value: int) -> str:
    try:
        return field_text(field, value)
    except ValueError:
        return str(value)


def _same_high_64(field: str, values: tuple[int, ...]) -> None:
    """The data plane writes an IPv6 address's low 64 bits only."""
    if field in IPV6_FIELDS and len({v >> 64 for v in values}) > 1:
        raise VariationError(
            f"vary: {field}: {field_text(field, min(values))} .. {field_text(field, max(values))} "
            "span more than one /64; the tester varies the low 64 bits of an IPv6 address")


@dataclass(frozen=True, slots=True)
class Steps:
    """start, start + step, ... (count values, then again)."""

    field: str
    start: int
    step: int
    count: int

    def __post_init__(self) -> None:
        _known(self.field)
        if self.count < 1:
            raise VariationError(f"vary: {self.field}: count {self.count} must be at least 1")
        if self.field in TCP_FIELDS:
            _check_value(self.field, self.start)
            if self.count > 1 << 32:
                raise VariationError(f"vary: {self.field}: count {self.count} is more than "
                                     "the field's 4294967296 values")
            return
        last = self.start + (self.count - 1) * self.step
        for value in (self.start, last):
            if not 0 <= value <= _limit(self.field):
                raise VariationError(
                    f"vary: {self.field}: start {field_text_safe(self.field, self.start)}, "
                    f"step {self.step}, count {self.count} reaches "
                    f"{field_text_safe(self.field, value)}, outside "
                    f"{field_text(self.field, 0)}..{field_text(self.field, _limit(self.field))}")
        _same_high_64(self.field, (self.start, last))
        if self.count > 1 << min(FIELD_BITS[self.field], 64):
            raise VariationError(f"vary: {self.field}: count {self.count} is more than the "
                                 f"field's {1 << FIELD_BITS[self.field]} values")

    @property
    def cycle(self) -> int:
        return self.count

    def value(self, index: int, seq: int) -> int:
        value = self.start + (index % self.count) * self.step
        return value % (1 << 32) if self.field in TCP_FIELDS else value


@dataclass(frozen=True, slots=True)
class Listed:
    """values[0], values[1], ... (then again)."""

    field: str
    values: tuple[int, ...]

    def __post_init__(self) -> None:
        _known(self.field)
        if not self.values:
            raise VariationError(f"vary: {self.field}: give at least one value")
        if len(self.values) > MAX_LISTED:
            raise VariationError(f"vary: {self.field}: {len(self.values)} values, more than the "
                                 f"data plane's {MAX_LISTED}; give {{start, step, count}} or "
                                 "random for more")
        for value in self.values:
            _check_value(self.field, value)
        _same_high_64(self.field, self.values)

    @property
    def cycle(self) -> int:
        return len(self.values)

    def value(self, index: int, seq: int) -> int:
        return self.values[index % len(self.values)]


@dataclass(frozen=True, slots=True)
class Draws:
    """low + a draw of 0..count-1, independent per frame and per field; with a
    repeat, the same draws again every `repeat` frames."""

    field: str
    low: int
    count: int
    seed: int
    repeat: int = 0  # 0: never (each frame's sequence number is drawn on)

    def __post_init__(self) -> None:
        _known(self.field)
        if not 1 <= self.count <= MAX_DRAWN:
            raise VariationError(f"vary: {self.field}: random over {self.count} values; the "
                                 f"tester draws from 1 to {MAX_DRAWN} (a /0 of IPv4, a /96 of "
                                 "IPv6)")
        _check_value(self.field, self.low)
        _check_value(self.field, self.low + self.count - 1)
        _same_high_64(self.field, (self.low, self.low + self.count - 1))
        if not 0 <= self.seed <= 0xFFFF_FFFF:
            raise VariationError(f"vary: {self.field}: seed {self.seed} is not 0..4294967295")
        if not 0 <= self.repeat <= 0xFFFF_FFFF:
            raise VariationError(f"vary: {self.field}: repeat {self.repeat} is not "
                                 "0..4294967295 frames")

    @property
    def cycle(self) -> int:
        """Draws on the seq never repeat: 1 leaves the other fields' cycle as it is."""
        return self.repeat or 1

    def value(self, index: int, seq: int) -> int:
        drawn_on = index % self.repeat if self.repeat else seq
        return self.low + draw(self.seed, drawn_on) % self.count


FieldPattern = Steps | Listed | Draws


def draw(seed: int, seq: int) -> int:
    """The data plane's draw for a frame: CRC-32 (BMv2's crc32, zlib's) over the
    seed and the frame's sequence number, 32 bits each, big-endian."""
    return zlib.crc32(seed.to_bytes(4, "big") + (seq & 0xFFFF_FFFF).to_bytes(4, "big"))


def field_seed(stream_seed: int, field: str) -> int:
    """Each field of a stream draws with its own seed: independent draws."""
    return zlib.crc32(stream_seed.to_bytes(4, "big") + field.encode())


def _known(field: str) -> None:
    if field not in FIELD_BITS:
        raise VariationError(f"vary: field {field!r} has no pattern; these do: "
                             f"{', '.join(PATTERN_FIELDS)}")


def flows_cycle(patterns: tuple[FieldPattern, ...]) -> int:
    """Frames before the stepped and listed fields repeat together (draws aside)."""
    return math.lcm(*(p.cycle for p in patterns)) if patterns else 1


def drawn_on_seq(patterns: tuple[FieldPattern, ...]) -> bool:
    """A field drawn on each frame's sequence number: its flows never repeat in a cycle;
    the frames' sequence numbers tell which were sent (frame_fields)."""
    return any(isinstance(p, Draws) and not p.repeat for p in patterns)


def frame_fields(patterns: tuple[FieldPattern, ...], index: int, seq: int) -> dict[str, int]:
    """The fields frame `index` of the trial carries (seq: its sequence number)."""
    return {p.field: p.value(index, seq) for p in patterns}


def data_plane_value(field: str, value: int) -> int:
    """What the data plane writes: an IPv6 address's low 64 bits, else the value."""
    return value & _LOW64 if field in IPV6_FIELDS else value


def step_parameters(pattern: Steps) -> tuple[int, int, int]:
    """first, step and span (the last offset) as the data plane adds them: modulo
    2^W, so a negative step is its two's complement."""
    bits = FIELD_BITS[pattern.field]
    modulus = 1 << bits
    first = data_plane_value(pattern.field, pattern.start)
    return first, pattern.step % modulus, ((pattern.count - 1) * pattern.step) % modulus


def data_plane_entries(patterns: tuple[FieldPattern, ...]) -> tuple[FieldEntry, ...]:
    """What the data plane's pattern tables hold for these patterns."""
    entries: list[FieldEntry] = []
    for pattern in patterns:
        field = pattern.field
        if isinstance(pattern, Steps):
            first, step, span = step_parameters(pattern)
            entries.append(StepEntry(field, first, step, span))
        elif isinstance(pattern, Draws):
            entries.append(DrawEntry(field, data_plane_value(field, pattern.low),
                                     pattern.count, pattern.seed, pattern.repeat))
        else:
            entries.append(CycleEntry(field, tuple(data_plane_value(field, v)
                                                   for v in pattern.values)))
    return tuple(entries)


def listed_entries(patterns: tuple[FieldPattern, ...]) -> dict[str, int]:
    """The entries each field's list table holds for these patterns."""
    return {p.field: len(p.values) for p in patterns if isinstance(p, Listed)}


def check_listed_total(per_stream: list[tuple[FieldPattern, ...]]) -> None:
    """A field's list table holds MAX_LISTED entries for all streams together."""
    totals: dict[str, int] = {}
    for patterns in per_stream:
        for field, count in listed_entries(patterns).items():
            totals[field] = totals.get(field, 0) + count
    over = {f: n for f, n in totals.items() if n > MAX_LISTED}
    if over:
        field, count = next(iter(over.items()))
        raise VariationError(f"vary: the streams list {count} values of {field}, more than the "
                             f"data plane's {MAX_LISTED} for all streams together; give "
                             "ranges ({start, step, count}) or random draws instead")
