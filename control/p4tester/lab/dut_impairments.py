"""Impairments of the `bmv2` reference DUT (p4src/dut/impairments.p4): per ingress
port, every Nth tester frame dropped, held back behind the next one (reordered) or
sent twice (duplicated), and the others delayed by a fixed time. The lab's stand-in
for netem, with a known pattern. A setting is one number for every ingress port
(`drop_every: 50`) or one per port (`drop_every: "1:10,2:0"`, ports not named: 0),
so that one direction can lose frames while the other duplicates them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from p4tester.dataplane import names
from p4tester.lab.netdev import LabError
from p4tester.p4rt import Exact, P4InfoSchema, build_multicast_group, build_table_entry

# Must match impairments.p4: a duplicate goes to group DUP_GROUP_BASE + egress port.
DUP_GROUP_BASE: Final = 100
SETTINGS: Final = ("drop_every", "reorder_every", "duplicate_every", "delay_us")


@dataclass(frozen=True, slots=True)
class DutImpairments:
    """Periods in tester frames per ingress port, 0 = never; delay in us, 0 = none."""

    drop_every: int = 0
    reorder_every: int = 0
    duplicate_every: int = 0
    delay_us: int = 0

    @property
    def any(self) -> bool:
        return bool(self.drop_every or self.reorder_every or self.duplicate_every
                    or self.delay_us)


def parse_impairments(settings: Mapping[str, str], where: str,
                      port: int | None = None) -> DutImpairments:
    """The dut's drop_every / reorder_every / duplicate_every / delay_us settings (those
    of ingress `port` where a setting names ports)."""
    periods: dict[str, int] = {}
    for key in SETTINGS:
        raw = str(settings.get(key, "0"))
        per_port = _per_port(raw) if ":" in raw else None
        if per_port is not None and port is None:
            raise LabError(f"{where}: dut.{key} {raw!r} names ports: read it per port")
        value = per_port.get(port, "0") if per_port is not None and port is not None else raw
        try:
            periods[key] = int(value)
        except ValueError:
            periods[key] = -1
        if periods[key] < 0:
            unit = "microseconds" if key == "delay_us" else "frames"
            raise LabError(f"{where}: dut.{key} {raw!r} must be a whole number of {unit} "
                           ">= 0 (0 = never), e.g. 50, or one per ingress port, e.g. "
                           "'1:10,2:0'")
    if periods["reorder_every"] == 1:
        raise LabError(f"{where}: dut.reorder_every 1 would hold every frame behind the next "
                       "one, which is also held: use 2 or more")
    return DutImpairments(**periods)


def _per_port(raw: str) -> dict[int | None, str]:
    """'1:10,2:0' -> {1: '10', 2: '0'}; a malformed pair maps None to it (an error)."""
    values: dict[int | None, str] = {}
    for pair in raw.split(","):
        port, _, value = pair.strip().partition(":")
        if port.strip().isdigit():
            values[int(port)] = value.strip()
        else:
            values[None] = "-1"
    return values


def parse_port_impairments(settings: Mapping[str, str], where: str,
                           ports: Iterable[int]) -> dict[int, DutImpairments]:
    """Each forwarding ingress port's impairments."""
    per_port = {port: parse_impairments(settings, where, port) for port in sorted(ports)}
    for key in SETTINGS:
        raw = str(settings.get(key, "0"))
        if ":" in raw and (unknown := sorted(p for p in _per_port(raw)
                                             if p is not None and p not in per_port)):
            raise LabError(f"{where}: dut.{key} {raw!r} names port {unknown[0]}, which the "
                           f"DUT does not forward from (dut.forward: ports "
                           f"{', '.join(str(p) for p in per_port)})")
        if ":" in raw and None in _per_port(raw):
            raise LabError(f"{where}: dut.{key} {raw!r} must be 'port:frames,...', e.g. "
                           "'1:10,2:0'")
    return per_port


def impairment_entities(schema: P4InfoSchema,
                        impairments: DutImpairments | Mapping[int, DutImpairments],
                        forward: Mapping[int, int]) -> list[Any]:
    """Table entries for every forwarding ingress port (the same impairments for all,
    or each port's), and the duplicate groups of the ports duplicated into."""
    per_port = (impairments if not isinstance(impairments, DutImpairments)
                else dict.fromkeys(forward, impairments))
    entities: list[Any] = [
        build_table_entry(schema, names.DUT_IMPAIRMENTS, {"ingress_port": Exact(port)},
                          names.DUT_IMPAIR, {
                              "drop_every_n": per_port[port].drop_every,
                              "reorder_every_n": per_port[port].reorder_every,
                              "duplicate_every_n": per_port[port].duplicate_every,
                              "delay_us": per_port[port].delay_us,
                          })
        for port in sorted(forward)
    ]
    duplicated = sorted({forward[port] for port in forward if per_port[port].duplicate_every})
    entities += [build_multicast_group(DUP_GROUP_BASE + port, [(port, 1), (port, 2)])
                 for port in duplicated]
    return entities
