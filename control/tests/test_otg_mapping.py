"""OTG config mapping onto tester streams: what is accepted (exact streams, rates,
budgets) and what is refused (errors naming the field)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from p4tester.config.topology import Topology, load_topology
from p4tester.dataplane.constants import TESTER_UDP_DST_PORT
from p4tester.otg.errors import OtgError
from p4tester.otg.mapping import MappedConfig, map_config
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.field_patterns import Steps
from p4tester.streams.tunnels import TUNNEL_UDP_SRC_PORT, GtpU, Vxlan
from p4tester.streams.variation import FieldVariation, mac_number

LOOPBACK = Path(__file__).resolve().parents[2] / "topologies" / "loopback.yaml"


@pytest.fixture
def topology() -> Topology:
    return load_topology(LOOPBACK)


def config(**flow: Any) -> dict[str, Any]:
    """What snappi serializes for the conformance suite's udp flow (dst port: the
    tester's own, which every build supports)."""
    base: dict[str, Any] = {
        "name": "f1",
        "tx_rx": {"choice": "port", "port": {"tx_name": "p1", "rx_names": ["p2"]}},
        "duration": {"choice": "fixed_packets", "fixed_packets": {"gap": 12, "packets": 100}},
        "rate": {"choice": "pps", "pps": "50"},
        "size": {"choice": "fixed", "fixed": 128},
        "metrics": {"enable": True, "loss": False, "timestamps": False},
        "packet": [
            {"choice": "ethernet", "ethernet": {
                "src": {"choice": "value", "value": "00:00:01:01:01:01"},
                "dst": {"choice": "value", "value": "00:00:01:01:01:02"}}},
            {"choice": "ipv4", "ipv4": {
                "src": {"choice": "value", "value": "1.1.1.1"},
                "dst": {"choice": "value", "value": "1.1.1.2"}}},
            {"choice": "udp", "udp": {
                "src_port": {"choice": "value", "value": 5000},
                "dst_port": {"choice": "value", "value": TESTER_UDP_DST_PORT}}},
        ],
    }
    base.update(flow)
    return {
        "ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
        "layer1": [{"name": "ly", "port_names": ["p1", "p2"], "speed": "speed_1_gbps",
                    "mtu": 1500, "promiscuous": True}],
        "flows": [base],
    }


def errors_of(document: dict[str, Any], topology: Topology) -> list[str]:
    with pytest.raises(OtgError) as caught:
        map_config(document, topology)
    assert caught.value.kind == "validation"
    assert caught.value.status == 400
    return list(caught.value.errors)


def test_ethernet_mac_increment_and_values_vary_the_frames(topology: Topology) -> None:
    """OTG's MAC patterns: frame i carries values[i mod len] (many addresses for a
    learning switch); the first is the template's."""
    document = config()
    document["flows"][0]["packet"][0]["ethernet"] = {
        "src": {"choice": "increment",
                "increment": {"start": "02:89:01:00:00:ff", "step": "00:00:00:00:01:00",
                              "count": 3}},
        "dst": {"choice": "values", "values": ["02:89:02:00:00:01", "02:89:02:00:00:02"]}}
    stream: Any = map_config(document, topology).flows[0].members[0].stream
    assert (stream.addresses.src_mac, stream.addresses.dst_mac) == (
        "02:89:01:00:00:ff", "02:89:02:00:00:01")
    assert stream.vary == (
        FieldVariation("src_mac", (0x02_89_01_00_00_FF, 0x02_89_01_00_01_FF,
                                   0x02_89_01_00_02_FF)),
        FieldVariation("dst_mac", (0x02_89_02_00_00_01, 0x02_89_02_00_00_02)))
    assert [(entry.src_mac, entry.dst_mac) for entry in stream.field_cycle] == [
        (0x02_89_01_00_00_FF, 0x02_89_02_00_00_01), (0x02_89_01_00_01_FF, 0x02_89_02_00_00_02),
        (0x02_89_01_00_02_FF, 0x02_89_02_00_00_01), (0x02_89_01_00_00_FF, 0x02_89_02_00_00_02),
        (0x02_89_01_00_01_FF, 0x02_89_02_00_00_01), (0x02_89_01_00_02_FF, 0x02_89_02_00_00_02)]


def test_a_bad_mac_pattern_is_refused_naming_its_place(topology: Topology) -> None:
    document = config()
    document["flows"][0]["packet"][0]["ethernet"] = {
        "src": {"choice": "increment", "increment": {"start": "02:89", "count": 3}}}
    assert errors_of(document, topology) == [
        "flows[0].packet[0].ethernet.src.increment.start: '02:89' is not a MAC address"]


def test_udp_flow_maps_to_one_stream(topology: Topology) -> None:
    mapped = map_config(config(), topology)
    assert isinstance(mapped, MappedConfig)
    assert [(p.name, p.number) for p in mapped.ports] == [("p1", 1), ("p2", 2)]
    (flow,) = mapped.flows
    assert (flow.name, flow.tx_port, flow.rx_port) == ("f1", "p1", "p2")
    assert (flow.rate_pps, flow.budget, flow.latency) == (50, 100, False)
    (member,) = flow.members
    assert (member.rate_pps, member.budget, member.frame_size) == (50, 100, 128)
    stream = member.stream
    assert (stream.id, stream.tx_port, stream.rx_port, stream.frame_size) == (0, 1, 2, 128)
    assert stream.ipv6 is False and stream.vlan_id is None
    assert stream.addresses.src_mac == "00:00:01:01:01:01"
    assert stream.addresses.dst_mac == "00:00:01:01:01:02"
    assert (stream.addresses.src_ip, stream.addresses.dst_ip) == ("1.1.1.1", "1.1.1.2")
    assert stream.addresses.udp_src_port == 5000
    assert mapped.warnings == ("layer1[0].speed speed_1_gbps: port 'p1' runs at the "
                               "topology's line rate, 5e+06 bit/s",
                               "layer1[0].speed speed_1_gbps: port 'p2' runs at the "
                               "topology's line rate, 5e+06 bit/s")


def test_defaults_are_the_otg_models_and_the_testers(topology: Topology) -> None:
    document = config()
    flow = document["flows"][0]
    for key in ("duration", "rate", "size", "metrics"):
        del flow[key]
    flow["packet"] = [{"choice": "ethernet", "ethernet": {}}, {"choice": "ipv4", "ipv4": {}},
                      {"choice": "udp", "udp": {}}]
    del document["layer1"]
    mapped = map_config(document, topology).flows[0]
    # OTG: 1000 frames/s of 64 B, continuous; absent addresses are the tester's.
    (member,) = mapped.members
    assert (member.rate_pps, member.budget, member.frame_size) == (1000, None, 64)
    assert member.stream.addresses == StreamAddresses()


def test_ipv6_vlan_and_ttl(topology: Topology) -> None:
    document = config(packet=[
        {"choice": "ethernet", "ethernet": {}},
        {"choice": "vlan", "vlan": {"id": {"choice": "value", "value": 10}}},
        {"choice": "ipv6", "ipv6": {"src": {"choice": "value", "value": "2000::1"},
                                    "dst": {"choice": "value", "value": "2000::2"},
                                    "hop_limit": {"choice": "value", "value": 9}}},
        {"choice": "udp", "udp": {}},
    ])
    stream = map_config(document, topology).flows[0].members[0].stream
    assert (stream.ipv6, stream.vlan_id) == (True, 10)
    assert (stream.addresses.src_ip6, stream.addresses.dst_ip6, stream.addresses.ttl) == \
        ("2000::1", "2000::2", 9)


@pytest.mark.parametrize(("rate", "pps"), [
    ({"choice": "pps", "pps": "50"}, 50),
    # 128-B frames on a 5 Mbit/s port: 5e6 / ((128 + 20) x 8) = 4222.97 frames/s.
    ({"choice": "percentage", "percentage": 50}, 2111),
    # L1 bits: (128 + 20) x 8 = 1184 per frame.
    ({"choice": "kbps", "kbps": 1184}, 1000),
    ({"choice": "bps", "bps": "118400"}, 100),
])
def test_rates(topology: Topology, rate: dict[str, Any], pps: int) -> None:
    assert map_config(config(rate=rate), topology).flows[0].rate_pps == pps


def test_rounded_rate_is_a_warning(topology: Topology) -> None:
    mapped = map_config(config(rate={"choice": "percentage", "percentage": 50}), topology)
    assert mapped.warnings[-1] == ("flows[0].rate: 2111.486 frames/s is sent as 2111 "
                                   "frames/s (the tester paces whole frames per second)")


def test_durations(topology: Topology) -> None:
    seconds = {"choice": "fixed_seconds", "fixed_seconds": {"seconds": 2.5}}
    assert map_config(config(duration=seconds), topology).flows[0].budget == 125
    continuous = {"choice": "continuous", "continuous": {"gap": 12}}
    assert map_config(config(duration=continuous), topology).flows[0].budget is None
    odd = {"choice": "fixed_seconds", "fixed_seconds": {"seconds": 0.01}}
    assert errors_of(config(duration=odd), topology) == [
        "flows[0].duration.fixed_seconds.seconds: 0.01 s at 50 frames/s is not a whole "
        "number of frames (the tester sends an exact budget); choose seconds x rate whole"]


def test_location_must_be_a_tester_port(topology: Topology) -> None:
    document = config()
    document["ports"][0]["location"] = "localhost:5555"
    errors = errors_of(document, topology)
    assert errors[0] == ("ports[0].location 'localhost:5555': give a tester port number as in "
                         "the topology 'loopback' (\"1\", \"2\")")


def test_unsupported_features_are_named(topology: Topology) -> None:
    document = config(size={"choice": "random", "random": {"min": 200, "max": 100}})
    document["flows"][0]["metrics"]["timestamps"] = True
    document["captures"] = [{"name": "ca", "port_names": ["p1"],
                              "filters": [{"choice": "ethernet"}]}]
    document["devices"] = []
    assert errors_of(document, topology) == [
        "devices: not supported by the tester (it supports ports, layer1, captures, flows, "
        "options)",
        "captures[0].filters: capture filters are not supported; the tester captures every "
        "frame the port receives",
        "flows[0].size.random: min 200 is above max 100; give min <= max",
        "flows[0].metrics.timestamps: first/last frame timestamps are not measured by the "
        "tester yet; set it false",
    ]


def test_other_headers_are_refused(topology: Topology) -> None:
    packet = copy.deepcopy(config()["flows"][0]["packet"])
    packet.append({"choice": "vxlan", "vxlan": {}})
    assert errors_of(config(packet=packet), topology) == [
        "flows[0].packet: headers ['ethernet', 'ipv4', 'udp', 'vxlan']: the tester sends "
        "ethernet, up to 2 vlan (QinQ: 802.1ad outside 802.1Q), up to 4 mpls, optionally a "
        "tunnel (VxLAN: ipv4 or ipv6, udp, vxlan, ethernet; GTP-U: ipv4 or ipv6, udp, "
        "gtpv1), ipv4 or ipv6, then udp or tcp (its own header follows as payload); other "
        "headers are not supported yet"]


def test_unsupported_header_field_is_named(topology: Topology) -> None:
    packet = copy.deepcopy(config()["flows"][0]["packet"])
    packet[1]["ipv4"]["identification"] = {"choice": "value", "value": 4}
    packet[1]["ipv4"]["priority"] = {"choice": "dscp", "dscp": {
        "ecn": {"choice": "value", "value": 1}}}
    assert errors_of(config(packet=packet), topology) == [
        "flows[0].packet[1].ipv4.identification: not supported by the tester"]
    del packet[1]["ipv4"]["identification"]
    assert errors_of(config(packet=packet), topology) == [
        "flows[0].packet[1].ipv4.priority.dscp.ecn: the tester sends ECN 0"]


def test_frame_too_small_names_the_size(topology: Topology) -> None:
    errors = errors_of(config(size={"choice": "fixed", "fixed": 60}), topology)
    assert errors[0].startswith("flows[0].size.fixed: frame size 60 B is outside 64..9216 B")


def test_flows_above_line_rate(topology: Topology) -> None:
    errors = errors_of(config(rate={"choice": "pps", "pps": 5000}), topology)
    assert errors == ["flows: the flows from port 'p1' offer 118.4% of its line rate; lower "
                      "their rates"]


def test_two_receiving_ports_refused(topology: Topology) -> None:
    flow_ports = {"choice": "port", "port": {"tx_name": "p1", "rx_names": ["p2", "p1"]}}
    assert errors_of(config(tx_rx=flow_ports), topology) == [
        "flows[0].tx_rx.port.rx_names: ['p2', 'p1']: an OTG flow is checked on one "
        "receiving port (OTG does not say whether the DUT replicates or spreads it); give "
        "exactly one, or run a p4tester profile with rx_port: [..] and receive: replicate "
        "or spread"]


def test_port_lists_and_tcp(topology: Topology) -> None:
    packet = copy.deepcopy(config()["flows"][0]["packet"])
    packet[2] = {"choice": "tcp", "tcp": {
        "src_port": {"choice": "decrement", "decrement": {"start": 5000, "step": 2, "count": 3}},
        "dst_port": {"choice": "values", "values": [6000, 6010]}}}
    stream = map_config(config(packet=packet), topology).flows[0].members[0].stream
    assert (stream.l4, stream.addresses.udp_src_port, stream.addresses.l4_dst_port) == \
        ("tcp", 5000, 6000)
    # A counter is a field pattern of its own; values take the whole-frame table.
    assert stream.vary == (Steps("src_port", 5000, -2, 3),
                           FieldVariation("dst_port", (6000, 6010)))
    # Frame i carries pair i mod lcm(3, 2).
    assert stream.port_pairs == ((5000, 6000), (4998, 6010), (4996, 6000), (5000, 6010),
                                 (4998, 6000), (4996, 6010))


def test_increment_wraps_in_the_field(topology: Topology) -> None:
    packet = copy.deepcopy(config()["flows"][0]["packet"])
    packet[2]["udp"]["src_port"] = {"choice": "increment",
                                    "increment": {"start": 65535, "step": 1, "count": 2}}
    stream = map_config(config(packet=packet), topology).flows[0].members[0].stream
    assert stream.vary[0].values == (65535, 0)


def test_unset_dst_port_is_the_testers(topology: Topology) -> None:
    packet = copy.deepcopy(config()["flows"][0]["packet"])
    del packet[2]["udp"]["dst_port"]
    stream = map_config(config(packet=packet), topology).flows[0].members[0].stream
    assert (stream.l4, stream.addresses.l4_dst_port, stream.vary) == ("udp", None, ())


def test_qinq_mpls_dscp(topology: Topology) -> None:
    """What snappi serializes for ethernet/vlan/vlan/mpls/mpls/ipv4/udp."""
    packet = [
        {"choice": "ethernet", "ethernet": {}},
        {"choice": "vlan", "vlan": {"id": {"choice": "value", "value": 100},
                                    "tpid": {"choice": "value", "value": 34984}}},
        {"choice": "vlan", "vlan": {"id": {"choice": "value", "value": 10}}},
        {"choice": "mpls", "mpls": {"label": {"choice": "value", "value": 16}}},
        {"choice": "mpls", "mpls": {"label": {"choice": "value", "value": 17}}},
        {"choice": "ipv4", "ipv4": {"priority": {"choice": "dscp", "dscp": {
            "phb": {"choice": "value", "value": 46}}}}},
        {"choice": "udp", "udp": {}},
    ]
    stream = map_config(config(packet=packet), topology).flows[0].members[0].stream
    assert (stream.outer_vlan_id, stream.vlan_id, stream.mpls_labels) == (100, 10, (16, 17))
    assert stream.addresses.dscp == 46
    # Headers 14 + 2 x 4 + 2 x 4 + 20 + 8, tester header 18, FCS 4.
    assert stream.encapsulation.min_frame_size == 80
    packet[1]["vlan"]["tpid"]["value"] = 33024
    assert errors_of(config(packet=packet), topology) == [
        "flows[0].packet[1].vlan.tpid: 33024: the tester sends 0x88a8 in this tag"]


def test_ipv6_traffic_class_and_flow_label(topology: Topology) -> None:
    packet = [
        {"choice": "ethernet", "ethernet": {}},
        {"choice": "ipv6", "ipv6": {"flow_label": {"choice": "value", "value": 5},
                                    "traffic_class": {"choice": "value", "value": 184}}},
        {"choice": "tcp", "tcp": {}},
    ]
    stream = map_config(config(packet=packet), topology).flows[0].members[0].stream
    assert (stream.addresses.dscp, stream.addresses.flow_label, stream.l4) == (46, 5, "tcp")
    packet[1]["ipv6"]["traffic_class"]["value"] = 185
    assert errors_of(config(packet=packet), topology) == [
        "flows[0].packet[1].ipv6.traffic_class: 185: the tester sets DSCP (the upper 6 bits) "
        "and ECN 0"]


def test_three_tags_refused(topology: Topology) -> None:
    vlan = {"choice": "vlan", "vlan": {}}
    packet = [{"choice": "ethernet", "ethernet": {}}, vlan, vlan, vlan,
              {"choice": "ipv4", "ipv4": {}}, {"choice": "udp", "udp": {}}]
    assert errors_of(config(packet=packet), topology)[0].startswith(
        "flows[0].packet: headers ['ethernet', 'vlan', 'vlan', 'vlan', 'ipv4', 'udp']")


def vxlan_packet(vni: dict[str, Any]) -> list[dict[str, Any]]:
    """What snappi serializes for the conformance suite's vxlan_inner_ipv4 flow."""
    def value(v: object) -> dict[str, Any]:
        return {"choice": "value", "value": v}
    return [
        {"choice": "ethernet", "ethernet": {"src": value("00:00:01:01:01:01"),
                                            "dst": value("00:00:01:01:01:02")}},
        {"choice": "ipv6", "ipv6": {"src": value("::1"), "dst": value("::2")}},
        {"choice": "udp", "udp": {"dst_port": value(4789)}},
        {"choice": "vxlan", "vxlan": {"vni": vni}},
        {"choice": "ethernet", "ethernet": {"src": value("00:00:01:01:01:03"),
                                            "dst": value("00:00:01:01:01:04")}},
        {"choice": "ipv4", "ipv4": {"src": value("1.1.1.3"), "dst": value("1.1.1.4")}},
        {"choice": "tcp", "tcp": {"src_port": value(80), "dst_port": value(80)}},
    ]


def test_vxlan_tunnel(topology: Topology) -> None:
    document = config(packet=vxlan_packet({"choice": "value", "value": 1000}),
                      size={"choice": "fixed", "fixed": 256})
    stream: Any = map_config(document, topology).flows[0].members[0].stream
    tunnel = stream.tunnel
    assert (tunnel.vni, tunnel.src_ip, tunnel.dst_ip, tunnel.inner_src_mac,
            tunnel.inner_dst_mac) == (1000, "::1", "::2", "00:00:01:01:01:03",
                                      "00:00:01:01:01:04")
    assert (stream.addresses.src_mac, stream.addresses.src_ip, stream.addresses.dst_ip) == \
        ("00:00:01:01:01:01", "1.1.1.3", "1.1.1.4")
    assert (stream.ipv6, stream.l4, stream.addresses.udp_src_port) == (False, "tcp", 80)
    # Outer IPv6 40 + UDP 8 + VxLAN 8 + Ethernet 14 before IPv4 TCP: 146 B at least.
    assert stream.encapsulation.min_frame_size == 146


def test_vxlan_vni_values_and_outer_source_port(topology: Topology) -> None:
    """The conformance suite's vxlan flows: VNI values 1000..1004, outer UDP 4789
    to 4789; frame i carries VNI values[i mod 5] with the inner TCP ports."""
    packet = vxlan_packet({"choice": "values", "values": [1000, 1001, 1002, 1003, 1004]})
    packet[2]["udp"]["src_port"] = {"choice": "value", "value": 4789}
    stream: Any = map_config(config(packet=packet, size={"choice": "fixed", "fixed": 256}),
                             topology).flows[0].members[0].stream
    assert stream.tunnel == Vxlan(vni=1000, src_ip="::1", dst_ip="::2",
                                  inner_src_mac="00:00:01:01:01:03",
                                  inner_dst_mac="00:00:01:01:01:04", udp_src_port=4789)
    assert stream.vary == (FieldVariation("vni", (1000, 1001, 1002, 1003, 1004)),)
    assert tuple(entry[:3] for entry in stream.field_cycle) == (
        (80, 80, 1000), (80, 80, 1001), (80, 80, 1002), (80, 80, 1003), (80, 80, 1004))
    assert {entry[3:] for entry in stream.field_cycle} == {
        (mac_number(stream.addresses.src_mac), mac_number(stream.addresses.dst_mac))}


@pytest.mark.parametrize(("vni", "values"), [
    ({"choice": "value", "value": 7}, None),
    ({"choice": "increment", "increment": {"start": 100, "step": 3, "count": 3}},
     (100, 103, 106)),
    ({"choice": "decrement", "decrement": {"start": 1, "step": 1, "count": 3}},
     (1, 0, 0xFFFFFF)),
])
def test_vxlan_vni_patterns(topology: Topology, vni: dict[str, Any],
                            values: tuple[int, ...] | None) -> None:
    stream: Any = map_config(config(packet=vxlan_packet(vni),
                                    size={"choice": "fixed", "fixed": 256}),
                             topology).flows[0].members[0].stream
    assert stream.tunnel.vni == (7 if values is None else values[0])
    assert stream.tunnel.udp_src_port == TUNNEL_UDP_SRC_PORT
    assert stream.vary == (() if values is None else (FieldVariation("vni", values),))


def test_vxlan_vni_with_inner_ports_cycle(topology: Topology) -> None:
    packet = vxlan_packet({"choice": "values", "values": [5, 6]})
    packet[6]["tcp"]["src_port"] = {"choice": "values", "values": [1, 2, 3, 4]}
    stream: Any = map_config(config(packet=packet, size={"choice": "fixed", "fixed": 256}),
                             topology).flows[0].members[0].stream
    assert stream.vary == (FieldVariation("vni", (5, 6)),
                           FieldVariation("src_port", (1, 2, 3, 4)))
    assert tuple(entry[:3] for entry in stream.field_cycle) == (
        (1, 80, 5), (2, 80, 6), (3, 80, 5), (4, 80, 6))


def test_vxlan_refusals(topology: Topology) -> None:
    packet = vxlan_packet({"choice": "values", "values": [1, 1 << 24]})
    packet[2]["udp"]["src_port"] = {"choice": "values", "values": [4789, 4790]}
    packet[2]["udp"]["dst_port"] = {"choice": "value", "value": 4790}
    assert errors_of(config(packet=packet, size={"choice": "fixed", "fixed": 256}),
                     topology) == [
        "flows[0].packet[2].udp.src_port: [4789, 4790]: the tester sends one outer source "
        "port in every frame of a stream; give one value",
        "flows[0].packet[3].vxlan.vni: value 16777216 (position 1) is outside 0..16777215"]
    packet[2]["udp"]["src_port"] = {"choice": "value", "value": 4789}
    assert errors_of(config(packet=packet, size={"choice": "fixed", "fixed": 256}),
                     topology) == [
        "flows[0].packet[2].udp.dst_port: 4790: the tester's vxlan frames carry 4789; leave "
        "it unset",
        "flows[0].packet[3].vxlan.vni: value 16777216 (position 1) is outside 0..16777215"]
    packet = vxlan_packet({"choice": "values", "values": list(range(4097))})
    assert errors_of(config(packet=packet, size={"choice": "fixed", "fixed": 256}),
                     topology) == [
        "flows[0].packet: vary: 4097 VNIs repeat every 4097 frames, more than the data "
        "plane's 4096 entries; choose counts where one divides the others"]


def test_gtpu_tunnel(topology: Topology) -> None:
    """What snappi serializes for ethernet/ipv4/udp/gtpv1/ipv6/udp."""
    def value(v: object) -> dict[str, Any]:
        return {"choice": "value", "value": v}
    packet = [
        {"choice": "ethernet", "ethernet": {}},
        {"choice": "ipv4", "ipv4": {"src": value("10.0.0.1"), "dst": value("10.0.0.2")}},
        {"choice": "udp", "udp": {"dst_port": value(2152)}},
        {"choice": "gtpv1", "gtpv1": {"teid": value(0x1234)}},
        {"choice": "ipv6", "ipv6": {}},
        {"choice": "udp", "udp": {}},
    ]
    stream: Any = map_config(config(packet=packet), topology).flows[0].members[0].stream
    assert stream.tunnel == GtpU(teid=0x1234, src_ip="10.0.0.1", dst_ip="10.0.0.2")
    packet[2]["udp"]["src_port"] = value(2152)
    stream = map_config(config(packet=packet), topology).flows[0].members[0].stream
    assert stream.tunnel == GtpU(teid=0x1234, src_ip="10.0.0.1", dst_ip="10.0.0.2",
                                 udp_src_port=2152)
    assert (stream.ipv6, stream.l4) == (True, "udp")
    packet[3]["gtpv1"]["e_flag"] = value(1)
    packet[2]["udp"]["dst_port"] = value(4789)
    assert errors_of(config(packet=packet), topology) == [
        "flows[0].packet[2].udp.dst_port: 4789: the tester's gtpv1 frames carry 2152; leave "
        "it unset",
        "flows[0].packet[3].gtpv1.e_flag: the tester sets it; leave it unset"]


def test_a_burst_duration_is_bursts_at_line_rate_paced_by_their_gap(topology: Topology) -> None:
    # 128 B on a 5-Mbit/s port: 236.8 us a frame with its 12-B gap (19.2 us). Ten back
    # to back and a gap of 7651.2 us instead of the last 19.2: a burst every 10 ms.
    burst = {"choice": "burst", "burst": {"bursts": 3, "packets": 10, "gap": 12,
             "inter_burst_gap": {"choice": "microseconds", "microseconds": 7651.2}}}
    document = config(duration=burst)
    del document["flows"][0]["rate"]
    mapped = map_config(document, topology)
    ((flow,),) = [f.members for f in mapped.flows]
    assert (flow.burst_frames, flow.rate_pps, flow.budget) == (10, 1000, 30)
    assert [w for w in mapped.warnings if w.startswith("flows")] == []  # nothing rounded
    # OTG's defaults: continuous bursts, 12 bytes between them (back to back at line
    # rate: 4222.97 frames/s, sent as 422 bursts of 10 a second), and the flow's rate,
    # which does not apply, is said so.
    mapped = map_config(config(duration={"choice": "burst", "burst": {"packets": 10}}),
                        topology)
    ((flow,),) = [f.members for f in mapped.flows]
    assert (flow.burst_frames, flow.rate_pps, flow.budget) == (10, 4220, None)
    assert mapped.warnings[-2:] == (
        "flows[0].rate: not used by a burst duration: a burst's frames leave back to back "
        "at line rate, and inter_burst_gap sets how often",
        "flows[0].duration.burst: a burst every 2368.000 us is 422.297 bursts/s, sent as 422 "
        "bursts/s (4220 frames/s: the tester paces whole bursts per second)")


def test_a_burst_gap_spaces_its_frames(topology: Topology) -> None:
    # 128 B frames 100 bytes apart on 5 Mbit/s: (128 + 8 + 100) x 8 bits = 377.6 us each;
    # ten, the last one's gap replaced by 6384 us: a burst every 10 ms.
    burst = {"choice": "burst", "burst": {"bursts": 2, "packets": 10, "gap": 100,
             "inter_burst_gap": {"choice": "microseconds", "microseconds": 6384}}}
    document = config(duration=burst)
    del document["flows"][0]["rate"]
    mapped = map_config(document, topology)
    ((flow,),) = [f.members for f in mapped.flows]
    assert (flow.burst_frames, flow.burst_gap_bytes, flow.rate_pps, flow.budget) == \
        (10, 100, 1000, 20)
    assert [w for w in mapped.warnings if w.startswith("flows")] == []


@pytest.mark.parametrize(("burst", "message"), [
    ({"packets": 64}, "flows[0].duration.burst.packets: 64 must be a whole number from 1 to 63 "
                      "(the most copies one generator pass or template makes)"),
    ({"packets": 10, "gap": 8}, "flows[0].duration.burst.gap: 8 must be a whole number from 12 "
                                "to 1000000 (bytes between a burst's frames: 12 sends them back "
                                "to back, and no frame leaves sooner)"),
    ({"packets": 10, "inter_burst_gap": {"choice": "nanoseconds", "nanoseconds": 100}},
     "flows[0].duration.burst.inter_burst_gap: 100.000 ns is shorter than the standard "
     "inter-frame gap (12 bytes, 19200.000 ns at this port's line rate); give at least that"),
    ({"packets": 10, "bursts": -1}, "flows[0].duration.burst.bursts: -1 must be a whole number "
                                    "from 1 to 429496729 (0 runs until stopped)"),
])
def test_a_burst_the_tester_cannot_send_is_refused_with_the_fix(
        topology: Topology, burst: dict[str, Any], message: str) -> None:
    assert errors_of(config(duration={"choice": "burst", "burst": burst}), topology) == [message]
