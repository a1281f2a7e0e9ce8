"""OTG patterns of addresses, DSCP, VLAN ids and ports onto the tester's field
patterns: the exact pattern each makes, and what is refused, naming the field."""

from __future__ import annotations

import copy
import ipaddress
from pathlib import Path
from typing import Any

import pytest
from test_otg_mapping import config

from p4tester.config.profile import StreamConfig
from p4tester.config.topology import Topology, load_topology
from p4tester.otg.errors import OtgError
from p4tester.otg.mapping import map_config
from p4tester.streams.field_patterns import Draws, Listed, Steps, field_seed

LOOPBACK = Path(__file__).resolve().parents[2] / "topologies" / "loopback.yaml"


@pytest.fixture
def topology() -> Topology:
    return load_topology(LOOPBACK)


def ip4(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def ip6(text: str) -> int:
    return int(ipaddress.IPv6Address(text))


def stream_of(packet: list[dict[str, Any]], topology: Topology) -> StreamConfig:
    mapped = map_config(config(packet=packet, size={"choice": "fixed", "fixed": 128}),
                        topology)
    return mapped.flows[0].members[0].stream


def udp_packet() -> list[dict[str, Any]]:
    return copy.deepcopy(config()["flows"][0]["packet"])


def test_ipv4_increment_values_and_random(topology: Topology) -> None:
    packet = udp_packet()
    packet[1]["ipv4"]["src"] = {"choice": "increment", "increment": {
        "start": "10.1.0.0", "step": "0.0.0.1", "count": 65536}}
    packet[1]["ipv4"]["dst"] = {"choice": "random", "random": {
        "min": "10.2.0.0", "max": "10.2.255.255", "seed": 3, "count": 1000}}
    packet[1]["ipv4"]["priority"] = {"choice": "dscp", "dscp": {
        "phb": {"choice": "values", "values": [0, 10, 46]}}}
    packet[2]["udp"]["src_port"] = {"choice": "random", "random": {
        "min": 1024, "max": 65535, "seed": 9, "count": 50}}
    packet[2]["udp"]["dst_port"] = {"choice": "increment", "increment": {
        "start": 1, "step": 1, "count": 65535}}
    stream = stream_of(packet, topology)
    assert (stream.addresses.src_ip, stream.addresses.dst_ip, stream.addresses.dscp) == \
        ("10.1.0.0", "10.2.0.0", 0)
    assert stream.vary == (
        Steps("src_ip", ip4("10.1.0.0"), 1, 65536),
        Draws("dst_ip", ip4("10.2.0.0"), 65536, field_seed(3, "dst_ip"), 1000),
        Listed("dscp", (0, 10, 46)),
        Draws("src_port", 1024, 64512, field_seed(9, "src_port"), 50),
        Steps("dst_port", 1, 1, 65535))
    assert stream.field_cycle == ()


def test_ipv6_decrement_traffic_class_and_vlan_ids(topology: Topology) -> None:
    packet = [
        {"choice": "ethernet", "ethernet": {}},
        {"choice": "vlan", "vlan": {"id": {"choice": "increment", "increment": {
            "start": 100, "step": 2, "count": 5}}}},
        {"choice": "ipv6", "ipv6": {
            "src": {"choice": "value", "value": "2001:db8::1"},
            "dst": {"choice": "decrement", "decrement": {
                "start": "2001:db8:1::ff", "step": "::1", "count": 200}},
            "traffic_class": {"choice": "values", "values": [0, 184]}}},
        {"choice": "tcp", "tcp": {"dst_port": {"choice": "random", "random": {
            "min": 80, "max": 89, "seed": 1, "count": 1}}}},
    ]
    stream = stream_of(packet, topology)
    assert (stream.ipv6, stream.vlan_id, stream.l4, stream.addresses.dst_ip6) == \
        (True, 100, "tcp", "2001:db8:1::ff")
    assert stream.vary == (
        Steps("vlan", 100, 2, 5),
        Listed("dscp", (0, 46)),
        Steps("dst_ip6", ip6("2001:db8:1::ff"), -1, 200),
        Draws("dst_port", 80, 10, field_seed(1, "dst_port"), 1))


def test_raw_tos_increment_in_steps_of_four_is_dscp(topology: Topology) -> None:
    packet = udp_packet()
    packet[1]["ipv4"]["priority"] = {"choice": "raw", "raw": {
        "choice": "increment", "increment": {"start": 32, "step": 4, "count": 8}}}
    assert stream_of(packet, topology).vary == (Steps("dscp", 8, 1, 8),)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p: p[1]["ipv4"].update(priority={"choice": "raw", "raw": {
            "choice": "increment", "increment": {"start": 32, "step": 2, "count": 3}}}),
         "flows[0].packet[1].ipv4.priority.raw: the tester varies DSCP with ECN 0: give "
         "values, or an increment or decrement in steps of 4 (ipv4: priority.dscp.phb takes "
         "DSCP itself)"),
        (lambda p: p[2]["udp"].update(src_port={"choice": "increment", "increment": {
            "start": 65000, "step": 1, "count": 5000}}),
         "flows[0].packet[2].udp.src_port.increment: 5000 values from 65000 wrap past the "
         "field's 16 bits; the tester steps without wrapping (or lists up to 4096 values): "
         "choose a start and step that stay inside the field"),
        (lambda p: p[1]["ipv4"].update(src={"choice": "random", "random": {
            "min": "10.0.0.9", "max": "10.0.0.1"}}),
         "flows[0].packet[1].ipv4.src.random: max 10.0.0.1 is below min 10.0.0.9"),
        (lambda p: p[1]["ipv4"].update(dst={"choice": "values", "values": ["1.1.1.1", "x"]}),
         "flows[0].packet[1].ipv4.dst.values[1]: 'x' is not an IPv4 address"),
        (lambda p: p[1]["ipv4"].update(src={"choice": "random", "random": {
            "min": "10.0.0.0", "max": "10.0.0.9", "count": 0}}),
         "flows[0].packet[1].ipv4.src.random.count: 0 values; give at least 1"),
    ],
)
def test_refusals_name_the_field(topology: Topology, edit: Any, message: str) -> None:
    packet = udp_packet()
    edit(packet)
    with pytest.raises(OtgError) as caught:
        map_config(config(packet=packet), topology)
    assert list(caught.value.errors) == [message]


def test_tcp_numbers_and_flags(topology: Topology) -> None:
    packet = udp_packet()
    packet[2] = {"choice": "tcp", "tcp": {
        "src_port": {"choice": "value", "value": 5000},
        "dst_port": {"choice": "value", "value": 80},
        "seq_num": {"choice": "increment", "increment": {
            "start": 4294967000, "step": 1000, "count": 100000}},
        "ack_num": {"choice": "value", "value": 77},
        "ctl_syn": {"choice": "value", "value": 1},
        "ctl_ack": {"choice": "value", "value": 1}}}
    stream = stream_of(packet, topology)
    assert (stream.l4, stream.addresses.tcp_flags, stream.addresses.tcp_seq,
            stream.addresses.tcp_ack) == ("tcp", "SA", 4294967000, 77)
    # An OTG counter wraps in its field; TCP's numbers do too: still one pattern.
    assert stream.vary == (Steps("tcp_seq", 4294967000, 1000, 100000),)


def test_tcp_flags_refused(topology: Topology) -> None:
    packet = udp_packet()
    packet[2] = {"choice": "tcp", "tcp": {"ctl_fin": {"choice": "value", "value": 0}}}
    with pytest.raises(OtgError) as caught:
        map_config(config(packet=packet), topology)
    assert list(caught.value.errors) == [
        "flows[0].packet[2].tcp: every TCP flag 0: the tester sends at least one (ctl_ack "
        "for an established flow's segments)"]
    packet[2] = {"choice": "udp", "udp": {"seq_num": {"choice": "value", "value": 1}}}
    with pytest.raises(OtgError) as caught:
        map_config(config(packet=packet), topology)
    assert list(caught.value.errors) == [
        "flows[0].packet[2].udp.seq_num: not supported by the tester"]
