"""A tutorials runtime_json as P4Runtime entities, on the committed routed program of
topologies/tutorials/basic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p4tester.lab.mininet.runtime import match_of, runtime_entities, value_of
from p4tester.lab.netdev import LabError
from p4tester.p4rt import P4InfoSchema
from p4tester.p4rt.entities import Exact
from p4tester.p4rt.schema import MatchFieldInfo

BASIC = Path(__file__).resolve().parents[2] / "topologies/tutorials/basic"


@pytest.mark.parametrize(("raw", "value"), [
    (7, 7), ("0x1f", 31), ("10.0.2.2", 0x0A000202), ("08:00:00:00:02:22", 0x080000000222),
])
def test_values(raw: object, value: int) -> None:
    assert value_of(raw, "here") == value


@pytest.mark.parametrize("raw", [True, 1.5, "ten", None])
def test_bad_values_name_the_place(raw: object) -> None:
    with pytest.raises(LabError, match="here: value"):
        value_of(raw, "here")


def test_s2_entries() -> None:
    schema = P4InfoSchema.from_text_file(BASIC / "build/routed.p4info.txt")
    entities = runtime_entities(schema, BASIC / "s2-runtime.json")
    (default,) = entities.defaults
    assert default.is_default_action
    assert default.action.action.action_id == schema.action("RoutedIngress.drop").id
    first, second, third = entities.inserts
    assert first.match[0].lpm.value == bytes([10, 0, 2, 2])
    assert first.match[0].lpm.prefix_len == 32
    params = {p.param_id: p.value for p in first.action.action.params}
    assert params == {1: bytes.fromhex("080000000222"), 2: b"\x01"}
    assert (second.match[0].lpm.value, second.match[0].lpm.prefix_len) == (bytes([10, 0, 1, 0]),
                                                                           24)
    assert third.match[0].lpm.prefix_len == 24


def test_an_lpm_key_needs_a_pair(tmp_path: Path) -> None:
    schema = P4InfoSchema.from_text_file(BASIC / "build/routed.p4info.txt")
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"table_entries": [{
        "table": "RoutedIngress.ipv4_lpm", "match": {"hdr.ipv4.dst_addr": "10.0.2.2"},
        "action_name": "RoutedIngress.drop"}]}))
    with pytest.raises(LabError, match=r"key hdr.ipv4.dst_addr \(lpm\) needs a pair: "
                                       r"\[value, prefix_len\]"):
        runtime_entities(schema, path)


def test_an_exact_value_in_a_list_of_one_is_that_value() -> None:
    """p4lang's basic_tunnel writes `"hdr.myTunnel.dst_id": [1]`; their helper unwraps it."""
    dst_id = MatchFieldInfo(1, "hdr.myTunnel.dst_id", 16, "exact")
    assert match_of(dst_id, [1], "here") == Exact(1)
    assert match_of(dst_id, "0x2", "here") == Exact(2)
    with pytest.raises(LabError, match=r"here: value \[1, 2\] must be a number"):
        match_of(dst_id, [1, 2], "here")
