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


def parse_impairments(settings: Mapping[str, str], where: str) -> DutImpairments:
    """The dut's drop_every / reorder_every / duplicate_every / delay_us settings, one
    value each for every ingress port."""
    raw = _raw_settings(settings)
    for key, text in raw.items():
        if ":" in text:
            raise LabError(f"{where}: dut.{key} {text!r} names ports: read it per port")
    return _impairments(raw, raw, where)


def parse_port_impairments(settings: Mapping[str, str], where: str,
                           ports: Iterable[int]) -> dict[int, DutImpairments]:
    """Each forwarding ingress port's impairments; a setting is one value for all ports
    or 'port:value,...' (ports not named: 0)."""
    ports = sorted(ports)
    raw = _raw_settings(settings)
    per_key = {key: _values_per_port(key, text, where, ports) for key, text in raw.items()}
    return {port: _impairments({key: per_key[key][port] for key in SETTINGS}, raw, where)
            for port in ports}


def _raw_settings(settings: Mapping[str, str]) -> dict[str, str]:
    return {key: str(settings.get(key, "0")) for key in SETTINGS}


def _values_per_port(key: str, text: str, where: str, ports: list[int]) -> dict[int, str]:
    """One setting's value for each port: '10' for all, or '1:10,2:0'."""
    if ":" not in text:
        return dict.fromkeys(ports, text)
    values = dict.fromkeys(ports, "0")
    for pair in text.split(","):
        port, _, value = pair.strip().partition(":")
        if not port.strip().isdigit():
            raise LabError(f"{where}: dut.{key} {text!r} must be 'port:frames,...', e.g. "
                           "'1:10,2:0'")
        if int(port) not in values:
            raise LabError(f"{where}: dut.{key} {text!r} names port {int(port)}, which the DUT "
                           f"does not forward from (dut.forward: ports "
                           f"{', '.join(str(p) for p in ports)})")
        values[int(port)] = value.strip()
    return values


def _impairments(values: Mapping[str, str], raw: Mapping[str, str],
                 where: str) -> DutImpairments:
    """DutImpairments from one port's values; errors quote the setting as written."""
    periods: dict[str, int] = {}
    for key in SETTINGS:
        try:
            periods[key] = int(values[key])
        except ValueError:
            periods[key] = -1
        if periods[key] < 0:
            unit = "microseconds" if key == "delay_us" else "frames"
            raise LabError(f"{where}: dut.{key} {raw[key]!r} must be a whole number of {unit} "
                           ">= 0 (0 = never), e.g. 50, or one per ingress port, e.g. "
                           "'1:10,2:0'")
    if periods["reorder_every"] == 1:
        raise LabError(f"{where}: dut.reorder_every 1 would hold every frame behind the next "
                       "one, which is also held: use 2 or more")
    return DutImpairments(**periods)


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
