"""The reference DUT's impairment settings and the P4Runtime entities the lab writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p4tester.lab.dut_impairments import (
    DUP_GROUP_BASE,
    DutImpairments,
    impairment_entities,
    parse_impairments,
    parse_port_impairments,
)
from p4tester.lab.netdev import LabError
from p4tester.p4rt import P4InfoSchema

DUT_SCHEMA = P4InfoSchema.from_text_file("p4src/build/dut.p4info.txt")


def test_settings_parse_with_zero_for_never() -> None:
    assert parse_impairments({"drop_every": "50", "duplicate_every": "40"}, "t.yaml") == (
        DutImpairments(drop_every=50, reorder_every=0, duplicate_every=40, delay_us=0)
    )
    assert parse_impairments({"delay_us": "2000"}, "t.yaml").any
    assert not parse_impairments({}, "t.yaml").any


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"drop_every": "-1"}, "t.yaml: dut.drop_every '-1' must be a whole number of frames >= 0"),
        ({"delay_us": "2ms"}, "t.yaml: dut.delay_us '2ms' must be a whole number of microseconds"),
        ({"duplicate_every": "often"}, "t.yaml: dut.duplicate_every 'often' must be a whole"),
        ({"reorder_every": "1"}, "t.yaml: dut.reorder_every 1 would hold every frame"),
    ],
)
def test_bad_settings_name_the_key_and_the_fix(settings: dict[str, str], message: str) -> None:
    with pytest.raises(LabError, match=re.escape(message)):
        parse_impairments(settings, "t.yaml")


def test_entities_per_ingress_port_and_duplicate_groups_per_egress_port() -> None:
    impairments = DutImpairments(drop_every=50, reorder_every=30, duplicate_every=40, delay_us=7)
    table, other_table, group_to_1, group_to_2 = impairment_entities(
        DUT_SCHEMA, impairments, {1: 2, 2: 1}
    )
    info = DUT_SCHEMA.table("DutIngress.impairments.impairments")
    assert table.table_id == other_table.table_id == info.id
    assert [m.exact.value for m in table.match] == [b"\x01"]
    params = [int.from_bytes(p.value, "big") for p in table.action.action.params]
    assert params == [50, 30, 40, 7]
    assert group_to_1.multicast_group_entry.multicast_group_id == DUP_GROUP_BASE + 1
    assert group_to_2.multicast_group_entry.multicast_group_id == DUP_GROUP_BASE + 2
    replicas = group_to_2.multicast_group_entry.replicas
    assert [(r.egress_port, r.instance) for r in replicas] == [(2, 1), (2, 2)]


def test_no_groups_without_duplication() -> None:
    entities = impairment_entities(DUT_SCHEMA, DutImpairments(drop_every=5), {1: 2})
    assert len(entities) == 1


def test_duplicate_group_base_matches_the_dut_program() -> None:
    source = (Path(__file__).resolve().parents[2] / "p4src/dut/impairments.p4").read_text()
    (value,) = re.findall(r"const bit<16> DUP_GROUP_BASE = (\d+);", source)
    assert int(value) == DUP_GROUP_BASE


def test_impairments_per_ingress_port() -> None:
    """One direction loses every 10th frame, the other duplicates every 10th (issue 21's
    lab); a port a setting does not name is not impaired by it."""
    settings = {"drop_every": "1:10,2:0", "duplicate_every": "2:10"}
    assert parse_port_impairments(settings, "t.yaml", [1, 2]) == {
        1: DutImpairments(drop_every=10), 2: DutImpairments(duplicate_every=10)}
    entities = impairment_entities(DUT_SCHEMA, parse_port_impairments(settings, "t.yaml",
                                                                      [1, 2]), {1: 2, 2: 1})
    assert len(entities) == 3  # two table entries, one duplicate group (into port 1)
    with pytest.raises(LabError, match=r"dut.drop_every '3:10' names port 3, which the DUT "
                                       r"does not forward from \(dut.forward: ports 1, 2\)"):
        parse_port_impairments({"drop_every": "3:10"}, "t.yaml", [1, 2])
    with pytest.raises(LabError, match=r"dut.drop_every 'x:10' must be 'port:frames,...', "
                                       r"e.g. '1:10,2:0'"):
        parse_port_impairments({"drop_every": "x:10"}, "t.yaml", [1, 2])
