"""Field patterns on Tofino 2 (p4src/tna/field_steps.p4): what the program can vary,
what a stream asks for that it cannot, and the table entries and register cells that
make a stream's patterns.

The Tofino program varies four fields: the source and destination address (IPv4, or
the low 32 bits of IPv6) and the L4 ports, each by a range ({start, step, count}) or
random draws. Its stateful ALUs have no modulo, so a random range must hold a power
of two of values (a prefix does), drawn as crc32(seed, seq) & (count - 1): the same
draws as BMv2's crc32 mod count. Lists of values, the other fields and the table
variations (listed ports, MACs, the VNI) stay BMv2's and eBPF's. Tofino 1 has no
stage to spare for them (docs/tofino.md), so it varies nothing.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

import scapy.contrib.mpls  # noqa: F401 - binds MPLS: a template's IP under its labels
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

from p4tester.config.profile import StreamConfig
from p4tester.streams.field_patterns import Draws, FieldPattern, Listed, Steps
from p4tester.streams.template import stamp_compensation
from p4tester.streams.variation import FieldVariation
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient

# Profile field -> the program's field (an IPv6 address varies in the IPv4 field's
# tables: its low 32 bits).
PROGRAM_FIELD: Final = {"src_port": "src_port", "dst_port": "dst_port",
                        "src_ip": "src_ip", "dst_ip": "dst_ip",
                        "src_ip6": "src_ip", "dst_ip6": "dst_ip"}
FIELD_BITS: Final = {"src_port": 16, "dst_port": 16, "src_ip": 32, "dst_ip": 32}
PROGRAM_FIELDS: Final = ("src_port", "dst_port", "src_ip", "dst_ip")
_U32: Final = (1 << 32) - 1


class FieldStepEntry(NamedTuple):
    """One field's tx_step_<field> entry for a stream: the action (add, draw, redraw)
    and its parameters, by the program's parameter names."""

    field: str
    action: str
    data: Mapping[str, int]


def _values_of(pattern: FieldPattern) -> tuple[int, int]:
    """The lowest and highest value a pattern gives."""
    if isinstance(pattern, Steps):
        last = pattern.start + (pattern.count - 1) * pattern.step
        return min(pattern.start, last), max(pattern.start, last)
    if isinstance(pattern, Draws):
        return pattern.low, pattern.low + pattern.count - 1
    return min(pattern.values), max(pattern.values)


def pattern_problem(pattern: FieldPattern) -> str | None:
    """Why the Tofino 2 program cannot vary this pattern; None when it can."""
    field = pattern.field
    if field not in PROGRAM_FIELD:
        return (f"vary: {field} (Tofino 2 varies {', '.join(PROGRAM_FIELD)}; BMv2 and "
                "eBPF vary it)")
    if isinstance(pattern, Listed):
        return (f"vary: {field} as a list of values (Tofino 2 takes {{start, step, count}} "
                "or random; BMv2 and eBPF take lists)")
    if isinstance(pattern, Draws) and pattern.count & (pattern.count - 1):
        return (f"vary: {field}: random over {pattern.count} values (Tofino draws over a "
                "power of two, a prefix: give a prefix, or BMv2 or eBPF)")
    low, high = _values_of(pattern)
    if field.endswith("6") and low >> 32 != high >> 32:
        return (f"vary: {field}: the values span more than one /96 (Tofino 2 varies the "
                "low 32 bits of an IPv6 address; BMv2 and eBPF the low 64)")
    return None


def vary_problems(stream: StreamConfig, tofino2: bool) -> list[str]:
    """What of a stream's `vary` the Tofino program cannot do (none: it can)."""
    if not stream.vary:
        return []
    if not tofino2:
        return ["per-frame variation (vary; Tofino 2 varies addresses and ports)"]
    problems = [f"vary: {v.field} as a list of values, MACs or the VNI (BMv2 and eBPF)"
                for v in stream.vary if isinstance(v, FieldVariation)]
    for pattern in stream.vary:
        if not isinstance(pattern, FieldVariation):
            problem = pattern_problem(pattern)
            if problem is not None:
                problems.append(problem)
    return problems


def step_entries(patterns: Sequence[FieldPattern]) -> tuple[FieldStepEntry, ...]:
    """Each pattern's tx_step_<field> entry (patterns the program can vary only)."""
    entries = []
    for pattern in patterns:
        field = PROGRAM_FIELD[pattern.field]
        bits = FIELD_BITS[field]
        if isinstance(pattern, Steps):
            # Offsets are 32 bits: a negative step is its two's complement, and the
            # field takes the offset's low bits (first + offset, modulo 2^W).
            first = pattern.start & ((1 << bits) - 1)
            step = pattern.step & _U32
            last = ((pattern.count - 1) * pattern.step) & _U32
            entries.append(FieldStepEntry(field, "add",
                                          {"first": first, "step": step, "last": last}))
        elif isinstance(pattern, Draws):
            data = {"low": pattern.low & ((1 << bits) - 1), "mask": pattern.count - 1,
                    "seed": pattern.seed}
            if pattern.repeat:
                entries.append(FieldStepEntry(field, "redraw",
                                              {**data, "last": pattern.repeat - 1}))
            else:
                entries.append(FieldStepEntry(field, "draw", data))
        else:
            raise ValueError(f"{pattern.field}: Tofino varies no list (pattern_problem)")
    return tuple(entries)


def template_words(template: bytes) -> int:
    """tx_steps' template_words for a stream's template: ~(ones'-complement sum of its
    words the deparser's stamp sum counts: the IP addresses and the L4 ports of the
    headers the frame has), so the sum counts only what the fields changed."""
    frame = Ether(template)
    values: list[int] = []
    widths: list[int] = []
    if frame.haslayer(IP):
        values += [int(ipaddress.IPv4Address(a)) for a in (frame[IP].src, frame[IP].dst)]
        widths += [32, 32]
    elif frame.haslayer(IPv6):
        values += [int(ipaddress.IPv6Address(a)) for a in (frame[IPv6].src, frame[IPv6].dst)]
        widths += [128, 128]
    l4 = frame[TCP] if frame.haslayer(TCP) else frame[UDP] if frame.haslayer(UDP) else None
    if l4 is not None:
        values += [int(l4.sport), int(l4.dport)]
        widths += [16, 16]
    return stamp_compensation(*values, widths=tuple(widths))


def clear_field_steps(client: BfrtClient) -> None:
    """No stream varies anything: every pattern table empty."""
    client.clear_table(names.TX_STEPS)
    for field in PROGRAM_FIELDS:
        client.clear_table(names.tx_step_table(field))


def write_field_steps(client: BfrtClient, stream_id: int,
                      entries: Sequence[FieldStepEntry], template: bytes) -> None:
    """A stream's patterns: each field's entry, then the gate that applies them."""
    for entry in entries:
        client.add_entry(names.tx_step_table(entry.field), {"stream": stream_id},
                         dict(entry.data),
                         action=names.field_step_action(entry.field, entry.action))
    client.add_entry(names.TX_STEPS, {names.TX_STEPS_KEY: stream_id},
                     {names.STEPS_TEMPLATE_WORDS: template_words(template)},
                     action=names.STEPS)


def remove_field_steps(client: BfrtClient, stream_id: int, fields: Sequence[str]) -> None:
    """A stream's patterns gone: the gate first, so no frame takes half of them."""
    client.delete_entry(names.TX_STEPS, {names.TX_STEPS_KEY: stream_id})
    for field in fields:
        client.delete_entry(names.tx_step_table(field), {"stream": stream_id})


def zero_offsets(client: BfrtClient, stepped: Mapping[int, Sequence[str]]) -> None:
    """Each varied field starts the trial at its first value (offset and draw index 0):
    frame i of the trial carries the pattern's value i, as on BMv2."""
    for field in PROGRAM_FIELDS:
        register = names.field_offset_register(field)
        cells = {s: {names.register_field(register): 0}
                 for s, fields in stepped.items() if field in fields}
        if cells:
            client.write_registers(register, cells)
