"""Impairments of the `bmv2` reference DUT (p4src/dut/impairments.p4): per ingress
port, every Nth tester frame dropped, held back behind the next one (reordered) or
sent twice (duplicated), and the others delayed by a fixed time. The lab's stand-in
for netem, with a known pattern."""

from __future__ import annotations

from collections.abc import Mapping
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
    """The dut's drop_every / reorder_every / duplicate_every / delay_us settings."""
    periods: dict[str, int] = {}
    for key in SETTINGS:
        raw = settings.get(key, "0")
        try:
            periods[key] = int(raw)
        except ValueError:
            periods[key] = -1
        if periods[key] < 0:
            unit = "microseconds" if key == "delay_us" else "frames"
            raise LabError(f"{where}: dut.{key} {raw!r} must be a whole number of {unit} "
                           ">= 0 (0 = never), e.g. 50")
    if periods["reorder_every"] == 1:
        raise LabError(f"{where}: dut.reorder_every 1 would hold every frame behind the next "
                       "one, which is also held: use 2 or more")
    return DutImpairments(**periods)


def impairment_entities(schema: P4InfoSchema, impairments: DutImpairments,
                        forward: Mapping[int, int]) -> list[Any]:
    """Table entries for every forwarding ingress port, and the duplicate groups."""
    entities: list[Any] = [
        build_table_entry(schema, names.DUT_IMPAIRMENTS, {"ingress_port": Exact(port)},
                          names.DUT_IMPAIR, {
                              "drop_every_n": impairments.drop_every,
                              "reorder_every_n": impairments.reorder_every,
                              "duplicate_every_n": impairments.duplicate_every,
                              "delay_us": impairments.delay_us,
                          })
        for port in sorted(forward)
    ]
    if impairments.duplicate_every:
        entities += [build_multicast_group(DUP_GROUP_BASE + port, [(port, 1), (port, 2)])
                     for port in sorted(set(forward.values()))]
    return entities
