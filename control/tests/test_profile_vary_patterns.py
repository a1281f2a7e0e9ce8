"""A profile's `vary` for addresses, DSCP, VLAN ids and port ranges and draws: the
patterns it makes, what stays in the variation table, and bad input named with
its fix."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.streams.field_patterns import Draws, Listed, Steps, field_seed
from p4tester.streams.variation import FieldVariation

SOURCE = "profile.yaml"


def _stream(vary: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": "patterns", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2, "vary": vary,
                                              **extra}]}


def ip4(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def test_each_form_makes_its_pattern() -> None:
    profile = profile_from_dict(_stream({
        "src_ip": {"start": "10.0.0.1", "count": 65536},
        "dst_ip": {"random": "10.2.0.0/16", "seed": 7},
        "dscp": [0, 10, 46],
        "src_port": {"start": 5000, "step": -2, "count": 10},
        "dst_port": {"random": [1024, 2047], "repeat": 100},
        "vlan": {"start": 100, "count": 10},
        "outer_vlan": [10, 20],
    }, vlan_id=100, outer_vlan_id=10, frame_size=128), SOURCE)
    stream = profile.streams[0]
    assert stream.field_patterns == (
        Steps("src_ip", ip4("10.0.0.1"), 1, 65536),
        Draws("dst_ip", ip4("10.2.0.0"), 65536, field_seed(7, "dst_ip")),
        Listed("dscp", (0, 10, 46)),
        Steps("src_port", 5000, -2, 10),
        Draws("dst_port", 1024, 1024, field_seed(1, "dst_port"), repeat=100),
        Steps("vlan", 100, 1, 10),
        Listed("outer_vlan", (10, 20)),
    )
    # Nothing of these takes the whole-frame table.
    assert stream.field_cycle == ()


def test_port_lists_vnis_and_macs_stay_in_the_table() -> None:
    profile = profile_from_dict(_stream({"src_port": [5000, 5001],
                                         "src_ip": ["10.0.0.1", "10.0.0.9"]}), SOURCE)
    stream = profile.streams[0]
    assert stream.vary[0] == FieldVariation("src_port", (5000, 5001))
    assert stream.field_patterns == (Listed("src_ip", (ip4("10.0.0.1"), ip4("10.0.0.9"))),)
    assert [fields.src_port for fields in stream.field_cycle] == [5000, 5001]


def test_ipv6_addresses_vary_in_one_64() -> None:
    profile = profile_from_dict(_stream({
        "src_ip6": {"start": "2001:db8::1", "count": 1000},
        "dst_ip6": {"random": "2001:db8:1::/112"}}, ipv6=True, frame_size=128), SOURCE)
    src, dst = profile.streams[0].field_patterns
    assert src == Steps("src_ip6", int(ipaddress.IPv6Address("2001:db8::1")), 1, 1000)
    assert isinstance(dst, Draws) and dst.count == 1 << 16


@pytest.mark.parametrize(
    ("vary", "extra", "message"),
    [
        ({"src_ip": {"start": "10.0.0.1", "count": 4}}, {"ipv6": True},
         "streams[0]: vary: src_ip varies IPv4 addresses; this stream is IPv6: vary src_ip6"),
        ({"dst_ip6": ["2001:db8::1"]}, {},
         "streams[0]: vary: dst_ip6 varies IPv6 addresses; this stream is IPv4: vary dst_ip, "
         "or give it ipv6: true"),
        ({"src_ip": ["10.0.0.1"]},
         {"tunnel": {"vxlan": {"vni": 1, "src_ip": "10.9.0.1", "dst_ip": "10.9.0.2"}}},
         "streams[0]: vary: src_ip: the tester varies the addresses and DSCP of untunnelled "
         "streams; this stream has a tunnel"),
        ({"vlan": [1, 2]}, {},
         "streams[0]: vary: vlan varies the VLAN id: give the stream a vlan_id"),
        ({"outer_vlan": [1, 2]}, {"vlan_id": 5},
         "streams[0]: vary: outer_vlan varies the outer VLAN id: give the stream an "
         "outer_vlan_id"),
        ({"src_ip": {"start": "2001:db8::1", "count": 2}}, {},
         "streams[0]: vary: src_ip: start: '2001:db8::1' is not an IPv4 address; vary "
         "src_ip6/dst_ip6 for IPv6"),
        ({"src_ip": {"random": "10.0.0.1/16"}}, {},
         "streams[0]: vary: src_ip: random: '10.0.0.1/16' is not a prefix (10.0.0.1/16 has "
         "host bits set)"),
        ({"src_ip": {"random": "10.0.0.0/16", "seed": -1}}, {},
         "streams[0]: vary: src_ip: seed: expected a whole number 0..4294967295, got -1"),
        ({"dscp": {"random": [0, 7], "repeat": 0}}, {},
         "streams[0]: vary: dscp: repeat: expected a whole number of frames >= 1, got 0"),
        ({"dscp": {"random": "0/2"}}, {},
         "streams[0]: vary: dscp: random: expected [lowest, highest], got '0/2'"),
        ({"dscp": {"random": [10, 5]}}, {},
         "streams[0]: vary: dscp: random: [10, 5]: the first is the lowest"),
        ({"dscp": {"start": 60, "count": 5}}, {},
         "streams[0]: vary: dscp: start 60, step 1, count 5 reaches 64, outside 0..63"),
        ({"dscp": "high"}, {},
         "streams[0]: vary: dscp: expected a list of values, {start, step, count} or "
         "{random: ..., seed: N}"),
    ],
)
def test_bad_patterns_name_the_fix(vary: dict[str, Any], extra: dict[str, Any],
                                   message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        profile_from_dict(_stream(vary, **extra), SOURCE)
    assert str(caught.value).endswith(message)


def test_lists_of_a_field_share_its_table() -> None:
    many = {"src_ip": [f"10.0.{i // 256}.{i % 256}" for i in range(2049)]}
    data = {"name": "lists", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2, "vary": many},
                        {"id": 1, "tx_port": 1, "rx_port": 2, "vary": many}]}
    with pytest.raises(ConfigError) as caught:
        profile_from_dict(data, SOURCE)
    assert str(caught.value).endswith(
        "streams: vary: the streams list 4098 values of src_ip, more than the data plane's "
        "4096 for all streams together; give ranges ({start, step, count}) or random draws "
        "instead")


def test_tcp_streams_flags_and_numbers() -> None:
    profile = profile_from_dict(_stream({"tcp_seq": {"start": 4294967000, "step": 1000,
                                                     "count": 4294967296},
                                         "tcp_ack": [1, 2]},
                                        l4="tcp", tcp_flags="PA", tcp_seq=4294967000,
                                        tcp_ack=1, frame_size=128), SOURCE)
    stream = profile.streams[0]
    assert (stream.addresses.tcp_flags, stream.addresses.tcp_seq, stream.addresses.tcp_ack) \
        == ("PA", 4294967000, 1)
    seq, ack = stream.field_patterns
    assert seq == Steps("tcp_seq", 4294967000, 1000, 1 << 32)
    # TCP's numbers wrap at 2^32.
    assert [seq.value(i, 0) for i in range(3)] == [4294967000, 704, 1704]
    assert ack == Listed("tcp_ack", (1, 2))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"tcp_flags": "S"}, "streams[0]: tcp_flags: TCP header fields; give the stream l4: tcp"),
        ({"l4": "tcp", "tcp_flags": "SX"},
         "streams[0]: tcp_flags 'SX': give letters of FSRPAUECN (A: ACK, S: SYN, PA: PSH+ACK, "
         "...)"),
        ({"l4": "tcp", "tcp_seq": 1 << 32},
         "streams[0]: tcp_seq 4294967296: a whole number 0..4294967295"),
    ],
)
def test_bad_tcp_fields(extra: dict[str, Any], message: str) -> None:
    data = {"name": "tcp", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2, **extra}]}
    with pytest.raises(ConfigError) as caught:
        profile_from_dict(data, SOURCE)
    assert str(caught.value).endswith(message)


def test_tcp_numbers_vary_on_tcp_streams_only() -> None:
    with pytest.raises(ConfigError) as caught:
        profile_from_dict(_stream({"tcp_seq": [1, 2]}), SOURCE)
    assert str(caught.value).endswith(
        "streams[0]: vary: tcp_seq varies the TCP header of untunnelled TCP streams: give the "
        "stream l4: tcp (and no tunnel)")
