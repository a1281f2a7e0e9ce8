"""Builders of P4Runtime messages: exact bytes and ids, and the errors they raise."""

from __future__ import annotations

import re
from typing import Any

import pytest
from p4.v1 import p4runtime_pb2

from p4tester.p4rt import (
    EncodingError,
    Exact,
    Lpm,
    P4InfoLookupError,
    P4InfoSchema,
    Range,
    ReceivedPacket,
    Ternary,
    build_counter_entry,
    build_default_action,
    build_multicast_group,
    build_packet_out,
    build_table_entry,
    decode_packet_in,
    ipv4_to_int,
)

RX_STREAM_ID = 33554433
SET_STREAM_ID = 16777218


def _rx_stream(schema: P4InfoSchema, stream: Ternary | Exact, priority: int | None = 10) -> Any:
    return build_table_entry(
        schema,
        "rx_stream",
        {"hdr.ipv4.dst_addr": Exact(ipv4_to_int("10.0.0.1")), "hdr.tester.stream_id": stream},
        "set_stream",
        {"stream_id": 5, "port": 0x101},
        priority=priority,
    )


def test_exact_and_ternary_entry(mini_schema: P4InfoSchema) -> None:
    entry = _rx_stream(mini_schema, Ternary(0x0500, 0xFF00))
    expected = p4runtime_pb2.TableEntry(table_id=RX_STREAM_ID, priority=10)
    expected.match.add(field_id=1).exact.value = b"\x0a\x00\x00\x01"
    ternary = expected.match.add(field_id=2).ternary
    ternary.value, ternary.mask = b"\x05\x00", b"\xff\x00"
    action = expected.action.action
    action.action_id = SET_STREAM_ID
    action.params.add(param_id=1, value=b"\x05")
    action.params.add(param_id=2, value=b"\x01\x01")
    assert entry == expected


def test_dont_care_ternary_is_omitted(mini_schema: P4InfoSchema) -> None:
    entry = _rx_stream(mini_schema, Ternary(0, 0))
    assert [m.field_id for m in entry.match] == [1]


def test_exact_on_a_ternary_key_means_full_mask(mini_schema: P4InfoSchema) -> None:
    ternary = _rx_stream(mini_schema, Exact(7)).match[1].ternary
    assert (ternary.value, ternary.mask) == (b"\x07", b"\xff\xff")


def test_ternary_value_outside_mask_is_rejected(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(
        EncodingError,
        match=r"value 0x101 of match field 'hdr.tester.stream_id'"
        r" of table 'Ingress.checker.rx_stream' has bits outside mask 0xff",
    ):
        _rx_stream(mini_schema, Ternary(0x101, 0xFF))


def test_range_entry_and_full_range(mini_schema: P4InfoSchema) -> None:
    entry = build_table_entry(
        mini_schema,
        "latency_bins",
        {"meta.latency": Range(100, 1000)},
        "set_latency_bin",
        {"bin": 3},
        priority=1,
    )
    assert entry.match[0].field_id == 1
    assert (entry.match[0].range.low, entry.match[0].range.high) == (b"\x64", b"\x03\xe8")
    full = build_table_entry(
        mini_schema,
        "latency_bins",
        {"meta.latency": Range(0, 2**32 - 1)},
        "set_latency_bin",
        {"bin": 0},
        priority=1,
    )
    assert len(full.match) == 0
    with pytest.raises(EncodingError, match=re.escape("range 9..8 of match field 'meta.latency'")):
        build_table_entry(
            mini_schema,
            "latency_bins",
            {"meta.latency": Range(9, 8)},
            "set_latency_bin",
            {"bin": 0},
            priority=1,
        )


def test_lpm_entry(mini_schema: P4InfoSchema) -> None:
    def lpm(value: int, prefix_len: int) -> Any:
        return build_table_entry(
            mini_schema,
            "Ingress.fwd.ipv4_lpm",
            {"hdr.ipv4.dst_addr": Lpm(value, prefix_len)},
            "set_egress",
            {"port": 2},
        )

    entry = lpm(ipv4_to_int("10.1.0.0"), 16)
    assert (entry.match[0].lpm.value, entry.match[0].lpm.prefix_len) == (b"\x0a\x01\x00\x00", 16)
    assert entry.priority == 0
    assert len(lpm(0, 0).match) == 0  # /0 is don't-care
    with pytest.raises(EncodingError, match="has bits set after the /16 prefix"):
        lpm(ipv4_to_int("10.1.0.1"), 16)
    with pytest.raises(EncodingError, match=r"prefix length 33 .* is outside 0\.\.32"):
        lpm(0, 33)


def test_missing_exact_key_and_wrong_kind(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(
        EncodingError,
        match=re.escape(
            "'hdr.ipv4.dst_addr' of table 'Ingress.checker.rx_stream' "
            "is an exact key and must be given"
        ),
    ):
        build_table_entry(
            mini_schema, "rx_stream", {}, "set_stream", {"stream_id": 1, "port": 1}, 1
        )
    with pytest.raises(
        EncodingError, match=r"is a exact key; Range\(low=1, high=2\) does not apply"
    ):
        build_table_entry(
            mini_schema,
            "rx_stream",
            {"hdr.ipv4.dst_addr": Range(1, 2)},
            "set_stream",
            {"stream_id": 1, "port": 1},
            1,
        )


def test_unknown_match_field_is_suggested(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(P4InfoLookupError, match=re.escape("did you mean 'hdr.ipv4.dst_addr'")):
        build_table_entry(
            mini_schema,
            "rx_stream",
            {"hdr.ipv4.dst": Exact(1)},
            "set_stream",
            {"stream_id": 1, "port": 1},
            1,
        )


def test_priority_rules(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(
        EncodingError,
        match=re.escape(
            "'Ingress.checker.rx_stream' has ternary, range or optional keys, "
            "so its entries need a priority"
        ),
    ):
        _rx_stream(mini_schema, Ternary(1, 1), priority=None)
    with pytest.raises(
        EncodingError,
        match=re.escape(
            "'Ingress.fwd.ipv4_lpm' has only exact and lpm keys; its entries take no priority"
        ),
    ):
        build_table_entry(
            mini_schema, "ipv4_lpm", {"hdr.ipv4.dst_addr": Lpm(0, 0)}, "set_egress", {"port": 1}, 5
        )
    with pytest.raises(EncodingError, match=r"priority 0 .* is outside 1\.\.2147483647"):
        _rx_stream(mini_schema, Ternary(1, 1), priority=0)


def test_action_must_belong_to_the_table(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(P4InfoLookupError) as info:
        build_table_entry(mini_schema, "ipv4_lpm", {}, "set_stream", {"stream_id": 1, "port": 1})
    assert str(info.value) == (
        "action 'Ingress.checker.set_stream' is not an action of table 'Ingress.fwd.ipv4_lpm'; "
        "its actions are: Ingress.fwd.set_egress, NoAction"
    )
    with pytest.raises(P4InfoLookupError) as info:
        build_table_entry(mini_schema, "ipv4_lpm", {}, "set_egres", {"port": 1})
    assert str(info.value) == (
        "no action named 'set_egres' in table 'Ingress.fwd.ipv4_lpm'; "
        "did you mean 'Ingress.fwd.set_egress'?"
    )


def test_default_only_action_cannot_be_an_entry_action(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(EncodingError, match="'NoAction' is @defaultonly in table"):
        build_table_entry(
            mini_schema, "rx_stream", {"hdr.ipv4.dst_addr": Exact(1)}, "NoAction", priority=1
        )


def test_params_are_checked(mini_schema: P4InfoSchema) -> None:
    match = {"hdr.ipv4.dst_addr": Exact(1)}
    with pytest.raises(
        EncodingError,
        match=re.escape("parameter 'port' of action 'Ingress.checker.set_stream' is missing"),
    ):
        build_table_entry(mini_schema, "rx_stream", match, "set_stream", {"stream_id": 1}, 1)
    with pytest.raises(
        P4InfoLookupError, match=r"no parameter named 'prot' .* did you mean 'port'\?"
    ):
        build_table_entry(
            mini_schema, "rx_stream", match, "set_stream", {"stream_id": 1, "prot": 1}, 1
        )
    with pytest.raises(EncodingError) as info:
        build_table_entry(
            mini_schema, "rx_stream", match, "set_stream", {"stream_id": 1, "port": 512}, 1
        )
    assert str(info.value) == (
        "value 512 does not fit in 9 bits of parameter 'port' of action "
        "'Ingress.checker.set_stream'"
    )


def test_default_action(mini_schema: P4InfoSchema) -> None:
    entry = build_default_action(mini_schema, "rx_stream", "NoAction")
    assert entry.is_default_action
    assert entry.table_id == RX_STREAM_ID
    assert entry.action.action.action_id == 16777217
    assert len(entry.match) == 0


def test_multicast_group(mini_schema: P4InfoSchema) -> None:
    entry = build_multicast_group(7, [(1, 0), (2, 0), (1, 1)])
    group = entry.multicast_group_entry
    assert group.multicast_group_id == 7
    assert [(r.egress_port, r.instance) for r in group.replicas] == [(1, 0), (2, 0), (1, 1)]
    with pytest.raises(EncodingError, match=r"replica \(port 1, instance 0\) appears twice"):
        build_multicast_group(7, [(1, 0), (1, 0)])
    with pytest.raises(EncodingError, match="multicast group id 0 is outside"):
        build_multicast_group(0, [])


def test_counter_entries(mini_schema: P4InfoSchema) -> None:
    wildcard = build_counter_entry(mini_schema, "rx_packets")
    assert wildcard.counter_id == 302000001
    assert not wildcard.HasField("index")
    assert not wildcard.HasField("data")
    cell = build_counter_entry(mini_schema, "rx_packets", 63, packets=0, bytes=0)
    assert cell.index.index == 63
    assert cell.HasField("data")
    with pytest.raises(
        EncodingError,
        match=re.escape("index 64 is outside counter 'Ingress.checker.rx_packets' (size 64)"),
    ):
        build_counter_entry(mini_schema, "rx_packets", 64)


def test_packet_out(mini_schema: P4InfoSchema) -> None:
    message = build_packet_out(mini_schema, b"\x01\x02", {"opcode": 3, "stream_id": 0x1234})
    assert message.payload == b"\x01\x02"
    assert [(m.metadata_id, m.value) for m in message.metadata] == [(1, b"\x03"), (2, b"\x12\x34")]


def test_packet_out_metadata_errors(mini_schema: P4InfoSchema) -> None:
    with pytest.raises(
        EncodingError,
        match="packet_out metadata field 'stream_id' is missing; give all of: opcode, stream_id",
    ):
        build_packet_out(mini_schema, b"", {"opcode": 3})
    with pytest.raises(
        P4InfoLookupError,
        match="no packet_out metadata field named 'stream'; did you mean 'stream_id'",
    ):
        build_packet_out(mini_schema, b"", {"opcode": 3, "stream": 1})
    with pytest.raises(
        EncodingError,
        match="value 256 does not fit in 8 bits of packet_out metadata field 'opcode'",
    ):
        build_packet_out(mini_schema, b"", {"opcode": 256, "stream_id": 1})


def test_decode_packet_in(mini_schema: P4InfoSchema) -> None:
    message = p4runtime_pb2.PacketIn(payload=b"abc")
    message.metadata.add(metadata_id=1, value=b"\x00\x05")  # padded forms decode too
    message.metadata.add(metadata_id=2, value=b"\x01")
    assert decode_packet_in(mini_schema, message) == ReceivedPacket(
        payload=b"abc", metadata={"ingress_port": 5, "reason": 1}
    )
    message.metadata.add(metadata_id=9, value=b"\x01")
    with pytest.raises(P4InfoLookupError, match="no packet_in metadata field with id 9"):
        decode_packet_in(mini_schema, message)
