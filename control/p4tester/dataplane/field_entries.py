"""What one field's pattern table holds for a stream (p4src/v1model/field_steps.p4):
the data plane's own terms, with no knowledge of how a profile wrote them
(streams.field_patterns makes these)."""

from __future__ import annotations

from typing import Final, NamedTuple

# The fields, in the order the data plane applies them.
STEPPED_FIELDS: Final = ("src_port", "dst_port", "src_ip", "dst_ip", "src_ip6", "dst_ip6",
                         "dscp", "vlan", "outer_vlan", "tcp_seq", "tcp_ack")


class StepEntry(NamedTuple):
    """value = first + offset; offset += step, back to 0 after span (mod 2^W)."""

    field: str
    first: int
    step: int
    span: int


class DrawEntry(NamedTuple):
    """value = low + crc32(seed, seq) mod outcomes (the P4 action's `count`); with a
    repeat, crc32(seed, i mod repeat) (the redraw action)."""

    field: str
    low: int
    outcomes: int
    seed: int
    repeat: int = 0


class CycleEntry(NamedTuple):
    """value = values[index], index 0, 1, ... len - 1, 0, ..."""

    field: str
    values: tuple[int, ...]


FieldEntry = StepEntry | DrawEntry | CycleEntry
