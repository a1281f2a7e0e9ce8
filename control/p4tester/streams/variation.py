"""Per-field variation of a stream's frames: L4 source and destination ports, the
VxLAN VNI, and the Ethernet source and destination MACs (many addresses for a
learning switch: RFC 2889's address caching capacity and learning rate).

Frame i of a varying stream carries values[i mod len(values)] of each varied
field. The data plane cycles through one table of entries per stream (p4src/
v1model/generator.p4 tx_vary_fields), so two fields of different lengths take
lcm(len, len) entries.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Final

from p4tester.dataplane.varied_fields import VariedFields

VARIABLE_FIELDS: Final = ("src_port", "dst_port", "vni", "src_mac", "dst_mac")
MAC_FIELDS: Final = ("src_mac", "dst_mac")
# The largest value of each field (a VxLAN VNI has 24 bits, a MAC 48).
FIELD_LIMITS: Final = {"src_port": 0xFFFF, "dst_port": 0xFFFF, "vni": 0xFFFFFF,
                       "src_mac": 0xFFFF_FFFF_FFFF, "dst_mac": 0xFFFF_FFFF_FFFF}
FIELD_NAMES: Final = {"src_port": "source ports", "dst_port": "destination ports",
                      "vni": "VNIs", "src_mac": "source MACs", "dst_mac": "destination MACs"}
_MAC: Final = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
# tx_vary_fields entries of all streams together (p4src/common/constants.p4).
MAX_VARY_ENTRIES: Final = 4096


class VariationError(ValueError):
    """A variation the data plane cannot stamp."""


def is_mac(text: str) -> bool:
    return bool(_MAC.match(text))


def mac_number(text: str) -> int:
    """"02:00:00:00:00:01" -> 0x020000000001."""
    if not _MAC.match(text):
        raise VariationError(f"vary: {text!r} is not a MAC address (aa:bb:cc:dd:ee:ff)")
    return int(text.replace(":", ""), 16)


def mac_text(number: int) -> str:
    """0x020000000001 -> "02:00:00:00:00:01"."""
    digits = f"{number:012x}"
    return ":".join(digits[i:i + 2] for i in range(0, 12, 2))


@dataclass(frozen=True, slots=True)
class FieldVariation:
    field: str
    values: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.field not in VARIABLE_FIELDS:
            raise VariationError(f"vary: field {self.field!r} cannot vary; the tester varies "
                                 f"{', '.join(VARIABLE_FIELDS)}")
        if not self.values:
            raise VariationError(f"vary: {self.field}: give at least one value")
        limit = FIELD_LIMITS[self.field]
        for value in self.values:
            if not 0 <= value <= limit:
                what = {"vni": "a VNI", "src_mac": "a MAC", "dst_mac": "a MAC"}.get(
                    self.field, "a port")
                raise VariationError(f"vary: {self.field}: {value} is not {what} (0..{limit})")


def stepped(start: int, step: int, count: int, limit: int = 0xFFFF) -> tuple[int, ...]:
    """start, start+step, ... (count values; a negative step decrements), as
    OTG's increment/decrement and the profiles' {start, step, count} mean."""
    if count < 1:
        raise VariationError(f"vary: count {count} must be at least 1")
    values = tuple(start + i * step for i in range(count))
    bad = [v for v in values if not 0 <= v <= limit]
    if bad:
        raise VariationError(f"vary: start {start}, step {step}, count {count} reaches "
                             f"{bad[0]}, outside 0..{limit}")
    return values


def port_pairs(variations: tuple[FieldVariation, ...], src_port: int,
               dst_port: int) -> tuple[tuple[int, int], ...]:
    """The (source, destination) pairs frame 0, 1, ... carry, one cycle; () when
    nothing varies. A field that does not vary keeps the template's port."""
    if not variations:
        return ()
    by_field = {v.field: v.values for v in variations}
    if len(by_field) != len(variations):
        raise VariationError("vary: a field is listed twice")
    sources = by_field.get("src_port", (src_port,))
    destinations = by_field.get("dst_port", (dst_port,))
    cycle = math.lcm(len(sources), len(destinations))
    if cycle > MAX_VARY_ENTRIES:
        raise VariationError(
            f"vary: {len(sources)} source x {len(destinations)} destination ports repeat "
            f"every {cycle} frames, more than the data plane's {MAX_VARY_ENTRIES} entries; "
            "choose counts where one divides the other")
    return tuple((sources[i % len(sources)], destinations[i % len(destinations)])
                 for i in range(cycle))


def field_cycle(variations: tuple[FieldVariation, ...], src_port: int, dst_port: int,
                vni: int, src_mac: int, dst_mac: int) -> tuple[VariedFields, ...]:
    """The fields frame 0, 1, ... carry, one cycle; () when nothing varies. What the
    data plane's tx_vary_fields entries hold: a field that does not vary keeps the
    template's value (vni: the tunnel's, 0 without VxLAN; MACs: the template's)."""
    if not variations:
        return ()
    by_field = {v.field: v.values for v in variations}
    if len(by_field) != len(variations):
        raise VariationError("vary: a field is listed twice")
    columns = (by_field.get("src_port", (src_port,)), by_field.get("dst_port", (dst_port,)),
               by_field.get("vni", (vni,)), by_field.get("src_mac", (src_mac,)),
               by_field.get("dst_mac", (dst_mac,)))
    cycle = math.lcm(*(len(c) for c in columns))
    if cycle > MAX_VARY_ENTRIES:
        counts = " x ".join(f"{len(values)} {FIELD_NAMES[name]}" for name, values in
                            zip(VARIABLE_FIELDS, columns, strict=True) if len(values) > 1)
        raise VariationError(
            f"vary: {counts} repeat every {cycle} frames, more than the data plane's "
            f"{MAX_VARY_ENTRIES} entries; choose counts where one divides the others")
    return tuple(VariedFields(*(column[i % len(column)] for column in columns))
                 for i in range(cycle))
