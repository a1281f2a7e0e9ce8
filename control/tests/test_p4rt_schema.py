"""Look-ups in the P4Info schema, by full name, alias and id."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p4tester.p4rt import (
    MatchFieldInfo,
    MetadataFieldInfo,
    P4InfoLookupError,
    P4InfoSchema,
    ParamInfo,
    pipeline_differences,
)

RX_STREAM = "Ingress.checker.rx_stream"


def test_table_by_full_name_and_alias(mini_schema: P4InfoSchema) -> None:
    table = mini_schema.table(RX_STREAM)
    assert mini_schema.table("rx_stream") is table
    assert mini_schema.table_by_id(33554433) is table
    assert (table.id, table.alias, table.size) == (33554433, "rx_stream", 1024)
    assert table.match_fields == (
        MatchFieldInfo(id=1, name="hdr.ipv4.dst_addr", bitwidth=32, match_type="exact"),
        MatchFieldInfo(id=2, name="hdr.tester.stream_id", bitwidth=16, match_type="ternary"),
    )
    assert table.action_ids == (16777218, 16777217)
    assert table.default_only_action_ids == (16777217,)
    assert table.table_only_action_ids == ()
    assert not table.is_const


@pytest.mark.parametrize(
    ("table", "requires_priority"),
    [("rx_stream", True), ("latency_bins", True), ("ipv4_lpm", False)],
)
def test_priority_needed_for_ternary_and_range_keys(
    mini_schema: P4InfoSchema, table: str, requires_priority: bool
) -> None:
    assert mini_schema.table(table).requires_priority is requires_priority


def test_action_and_params(mini_schema: P4InfoSchema) -> None:
    action = mini_schema.action("set_stream")
    assert mini_schema.action("Ingress.checker.set_stream") is action
    assert mini_schema.action_by_id(16777218) is action
    assert action.params == (
        ParamInfo(id=1, name="stream_id", bitwidth=16),
        ParamInfo(id=2, name="port", bitwidth=9),
    )
    assert mini_schema.param("set_stream", "port") == ParamInfo(id=2, name="port", bitwidth=9)
    assert mini_schema.action("NoAction").params == ()


def test_counter_register_and_packet_metadata(mini_schema: P4InfoSchema) -> None:
    counter = mini_schema.counter("rx_packets")
    assert (counter.id, counter.name, counter.size, counter.unit) == (
        302000001,
        "Ingress.checker.rx_packets",
        64,
        "both",
    )
    assert mini_schema.counter_by_id(302000001) is counter
    register = mini_schema.register("Ingress.checker.next_seq")
    assert (register.id, register.size, register.bitwidth) == (369098753, 64, 32)
    packet_out = mini_schema.packet_metadata("packet_out")
    assert packet_out.fields == (
        MetadataFieldInfo(id=1, name="opcode", bitwidth=8),
        MetadataFieldInfo(id=2, name="stream_id", bitwidth=16),
    )
    assert [f.name for f in mini_schema.packet_metadata("packet_in").fields] == [
        "ingress_port",
        "reason",
    ]


def test_match_field_lookup(mini_schema: P4InfoSchema) -> None:
    field = mini_schema.match_field("rx_stream", "hdr.tester.stream_id")
    assert (field.id, field.bitwidth, field.match_type) == (2, 16, "ternary")
    with pytest.raises(P4InfoLookupError) as info:
        mini_schema.match_field("rx_stream", "hdr.tester.stream")
    assert str(info.value) == (
        "no match field named 'hdr.tester.stream' in table 'Ingress.checker.rx_stream'; "
        "did you mean 'hdr.tester.stream_id'?"
    )


def test_unknown_table_suggests_the_full_name(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(P4InfoLookupError) as info:
        mini_schema.table("rx_stram")  # a typo of the alias
    assert str(info.value) == f"no table named 'rx_stram'; did you mean {RX_STREAM!r}?"
    assert info.value.suggestion == RX_STREAM
    assert (info.value.kind, info.value.name) == ("table", "rx_stram")


def test_unknown_tail_of_a_full_name_is_suggested(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(
        P4InfoLookupError, match=re.escape("did you mean 'Ingress.fwd.set_egress'?")
    ):
        mini_schema.action("fwd.set_egress")


def test_unknown_name_without_a_close_match_lists_what_exists(
    mini_schema: P4InfoSchema,
) -> None:
    with pytest.raises(P4InfoLookupError) as info:
        mini_schema.counter("zzz")
    assert str(info.value) == "no counter named 'zzz'; known: Ingress.checker.rx_packets"
    assert info.value.suggestion is None


def test_unknown_param_and_id(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(
        P4InfoLookupError,
        match=re.escape("in action 'Ingress.checker.set_stream'; did you mean 'port'?"),
    ):
        mini_schema.param("set_stream", "prt")
    with pytest.raises(P4InfoLookupError, match=r"no table with id 7 \(0x00000007\)"):
        mini_schema.table_by_id(7)


def test_from_text_file_equals_from_text(mini_p4info_path: Path) -> None:
    from_file = P4InfoSchema.from_text_file(mini_p4info_path)
    from_text = P4InfoSchema.from_text(mini_p4info_path.read_text())
    assert from_file.tables == from_text.tables
    assert from_file.p4info == from_text.p4info


def test_same_pipeline_has_no_differences(mini_schema: P4InfoSchema) -> None:
    assert pipeline_differences(mini_schema, mini_schema) == ()


def test_pipeline_differences_name_what_differs(mini_schema: P4InfoSchema) -> None:
    changed = type(mini_schema.p4info)()
    changed.CopyFrom(mini_schema.p4info)
    changed.tables[0].preamble.name = "Ingress.checker.rx_stream_v2"
    changed.counters[0].preamble.id = 302000002
    differences = pipeline_differences(mini_schema, P4InfoSchema(changed))
    assert differences == (
        f"table {RX_STREAM!r} is missing on the switch",
        "table 'Ingress.checker.rx_stream_v2' is on the switch only",
        "counter 'Ingress.checker.rx_packets' has id 302000002 on the switch, 302000001 expected",
    )


def test_empty_pipeline_is_reported_as_missing(mini_schema: P4InfoSchema) -> None:
    empty = P4InfoSchema(type(mini_schema.p4info)())
    assert pipeline_differences(mini_schema, empty) == ("the switch has no pipeline loaded",)
