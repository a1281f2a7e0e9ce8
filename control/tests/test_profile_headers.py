"""Profile keys of a stream's headers (outer_vlan_id, mpls_labels, l4, tunnel,
vary): what they parse into, and errors that name the stream and the field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig, profile_from_dict
from p4tester.dataplane.constants import TESTER_UDP_DST_PORT
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.field_patterns import Steps
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.tunnels import GtpU, Srv6, Vxlan
from p4tester.streams.variation import FieldVariation

SOURCE = "p.yaml"
DOC = Path(__file__).resolve().parents[2] / "docs" / "encapsulations.md"


def _profile(*streams: dict[str, Any], frame_sizes: list[int] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"name": "p", "streams": list(streams)}
    if frame_sizes is not None:
        data["frame_sizes"] = frame_sizes
    return data


def _stream(**keys: Any) -> dict[str, Any]:
    return {"id": 0, "tx_port": 1, "rx_port": 2, **keys}


def _one(yaml_stream: str, frame_sizes: str = "[256]") -> StreamConfig:
    """The stream of a profile written as in a profile file."""
    text = f"name: p\nframe_sizes: {frame_sizes}\nstreams:\n  - {yaml_stream}\n"
    profile = profile_from_dict(yaml.safe_load(text), SOURCE)
    assert len(profile.streams) == 1
    return profile.streams[0]


# ---- what the keys parse into ---------------------------------------------------------------


def test_defaults_are_plain_ipv4_udp_with_fixed_ports() -> None:
    stream = _one("{id: 0, tx_port: 1, rx_port: 2}", "[64]")
    assert (stream.outer_vlan_id, stream.mpls_labels, stream.l4, stream.tunnel,
            stream.vary) == (None, (), "udp", None, ())
    assert stream.encapsulation == Encapsulation()
    assert stream.port_pairs == ()


def test_qinq_mpls_tcp_keys() -> None:
    stream = _one("{id: 0, tx_port: 1, rx_port: 2, outer_vlan_id: 100, vlan_id: 10, "
                  "mpls_labels: [16, 17], l4: tcp, ipv6: true}")
    assert stream.encapsulation == Encapsulation(ipv6=True, vlan_id=10, outer_vlan_id=100,
                                                 mpls_labels=(16, 17), l4="tcp")
    assert stream.mpls_labels == (16, 17)
    assert stream.encapsulation.min_frame_size == 14 + 4 + 4 + 8 + 40 + 20 + 18 + 4


def test_address_keys() -> None:
    stream = _one("{id: 0, tx_port: 1, rx_port: 2, udp_src_port: 1234, l4_dst_port: 53, "
                  "dscp: 46, flow_label: 7, ttl: 9}")
    assert stream.addresses == StreamAddresses(udp_src_port=1234, l4_dst_port=53, dscp=46,
                                               flow_label=7, ttl=9)


def test_vxlan_tunnel_key() -> None:
    stream = _one("{id: 0, tx_port: 1, rx_port: 2, tunnel: {vxlan: {vni: 42, "
                  "src_ip: 10.0.0.1, dst_ip: 10.0.0.2}}}")
    assert stream.tunnel == Vxlan(vni=42, src_ip="10.0.0.1", dst_ip="10.0.0.2")
    assert stream.encapsulation == Encapsulation(tunnel=Vxlan(42, "10.0.0.1", "10.0.0.2"))
    assert stream.encapsulation.min_frame_size == 114


def test_vxlan_tunnel_inner_macs_over_ipv6() -> None:
    stream = _one('{id: 0, tx_port: 1, rx_port: 2, ipv6: true, tunnel: {vxlan: {vni: 7, '
                  'src_ip: "2001:db8::a", dst_ip: "2001:db8::b", '
                  'inner_src_mac: "02:00:00:00:09:01", inner_dst_mac: "02:00:00:00:09:02"}}}')
    assert stream.tunnel == Vxlan(vni=7, src_ip="2001:db8::a", dst_ip="2001:db8::b",
                                  inner_src_mac="02:00:00:00:09:01",
                                  inner_dst_mac="02:00:00:00:09:02")
    assert stream.encapsulation.min_frame_size == 154


def test_gtpu_tunnel_key_hex_teid_and_qfi() -> None:
    stream = _one("{id: 0, tx_port: 1, rx_port: 2, tunnel: {gtpu: {teid: 0x1234, "
                  "src_ip: 10.0.0.1, dst_ip: 10.0.0.2, qfi: 9}}}")
    assert stream.tunnel == GtpU(teid=0x1234, src_ip="10.0.0.1", dst_ip="10.0.0.2", qfi=9)
    without = _one("{id: 0, tx_port: 1, rx_port: 2, tunnel: {gtpu: {teid: 1, "
                   "src_ip: 10.0.0.1, dst_ip: 10.0.0.2}}}")
    assert without.tunnel == GtpU(teid=1, src_ip="10.0.0.1", dst_ip="10.0.0.2")
    assert (stream.encapsulation.min_frame_size, without.encapsulation.min_frame_size) == (
        108, 100)


def test_srv6_tunnel_key() -> None:
    stream = _one('{id: 0, tx_port: 1, rx_port: 2, tunnel: {srv6: {src_ip: "2001:db8::a", '
                  'segments: ["2001:db8::b", "2001:db8::c"]}}}')
    assert stream.tunnel == Srv6(src_ip="2001:db8::a", segments=("2001:db8::b", "2001:db8::c"))
    assert stream.encapsulation.min_frame_size == 144


def test_vary_list_and_stepped() -> None:
    stream = _one("{id: 0, tx_port: 1, rx_port: 2, vary: {src_port: [5000, 5050, 5100], "
                  "dst_port: {start: 6000, step: -2, count: 6}}}")
    # A list takes the whole-frame table; a range is a field pattern of its own.
    assert stream.vary == (FieldVariation("src_port", (5000, 5050, 5100)),
                           Steps("dst_port", 6000, -2, 6))
    assert stream.port_pairs == (
        (5000, 6000), (5050, 5998), (5100, 5996), (5000, 5994), (5050, 5992), (5100, 5990))


def test_vary_step_defaults_to_one() -> None:
    stream = _one("{id: 0, tx_port: 1, rx_port: 2, vary: {src_port: {start: 7, count: 3}}}")
    assert stream.vary == (Steps("src_port", 7, 1, 3),)
    # The destination keeps the tester's port.
    assert stream.port_pairs == ((7, TESTER_UDP_DST_PORT), (8, TESTER_UDP_DST_PORT),
                                 (9, TESTER_UDP_DST_PORT))


def test_vary_keeps_the_given_destination_port() -> None:
    stream = _one("{id: 0, tx_port: 1, rx_port: 2, l4_dst_port: 4791, "
                  "vary: {src_port: [1, 2]}}")
    assert stream.port_pairs == ((1, 4791), (2, 4791))
    source = _one("{id: 0, tx_port: 1, rx_port: 2, udp_src_port: 40000, "
                  "vary: {dst_port: [1, 2]}}")
    assert source.port_pairs == ((40000, 1), (40000, 2))


def test_vary_macs_stepped_and_listed() -> None:
    stream = _one('{id: 0, tx_port: 1, rx_port: 2, src_mac: "02:00:00:00:00:01", '
                  'vary: {src_mac: {start: "02:89:01:00:00:fe", count: 3}, '
                  'dst_mac: ["02:89:02:00:00:01", "02:89:02:00:00:02", "02:89:02:00:00:03"]}}')
    assert stream.vary == (
        FieldVariation("src_mac", (0x02_89_01_00_00_FE, 0x02_89_01_00_00_FF,
                                   0x02_89_01_00_01_00)),
        FieldVariation("dst_mac", (0x02_89_02_00_00_01, 0x02_89_02_00_00_02,
                                   0x02_89_02_00_00_03)))
    assert [(entry.src_mac, entry.dst_mac, entry.src_port) for entry in stream.field_cycle] == [
        (0x02_89_01_00_00_FE, 0x02_89_02_00_00_01, 0xC020),
        (0x02_89_01_00_00_FF, 0x02_89_02_00_00_02, 0xC020),
        (0x02_89_01_00_01_00, 0x02_89_02_00_00_03, 0xC020)]


@pytest.mark.parametrize(("vary", "message"), [
    ('{src_mac: ["02:89:01"]}', "streams[0]: vary: '02:89:01' is not a MAC address"),
    ('{dst_mac: {start: "ff:ff:ff:ff:ff:ff", count: 2}}',
     "streams[0]: vary: start 281474976710655, step 1, count 2 reaches 281474976710656"),
    ('{src_mac: {start: "02:00:00:00:00:01", step: "00:01", count: 2}}',
     "streams[0]: vary: src_mac: step and count are whole numbers"),
    ('{src_mac: "02:00:00:00:00:01"}',
     "streams[0]: vary: src_mac: expected a list of MACs or {start, step, count}"),
])
def test_bad_mac_variations_name_the_problem(vary: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        _one(f"{{id: 0, tx_port: 1, rx_port: 2, vary: {vary}}}")
    assert message in str(error.value)


def test_the_profile_docstring_example_stream() -> None:
    stream = _one("{id: 2, tx_port: 1, rx_port: 2, share: 0.1, l4: tcp, outer_vlan_id: 100, "
                  "vlan_id: 10, mpls_labels: [16, 17], tunnel: {vxlan: {vni: 42, "
                  "src_ip: 10.0.0.1, dst_ip: 10.0.0.2}}, "
                  "vary: {src_port: {start: 5000, step: 2, count: 10}}}")
    assert stream.encapsulation.describe() == (
        "Ethernet/QinQ 100/VLAN 10/MPLS 16,17/IPv4/UDP/VxLAN 42/Ethernet/IPv4/TCP/tester")
    # Ethernet, two tags, two labels, VxLAN (outer IPv4 20 + UDP 8 + VxLAN 8 + inner
    # Ethernet 14), IPv4, TCP, tester header, FCS.
    assert stream.encapsulation.min_frame_size == 14 + 4 + 4 + 8 + 50 + 20 + 20 + 18 + 4 == 142
    assert stream.port_pairs == tuple((5000 + 2 * i, TESTER_UDP_DST_PORT) for i in range(10))


def test_imix_members_share_the_headers() -> None:
    profile = profile_from_dict(_profile(_stream(
        imix={128: 1, 256: 1}, l4="tcp", vlan_id=5,
        tunnel={"gtpu": {"teid": 3, "src_ip": "10.0.0.1", "dst_ip": "10.0.0.2"}},
        vary={"src_port": [1, 2]})), SOURCE)
    assert [s.frame_size for s in profile.streams] == [128, 256]
    for stream in profile.streams:
        assert stream.encapsulation == Encapsulation(
            vlan_id=5, l4="tcp", tunnel=GtpU(teid=3, src_ip="10.0.0.1", dst_ip="10.0.0.2"))
        assert stream.port_pairs == ((1, TESTER_UDP_DST_PORT), (2, TESTER_UDP_DST_PORT))


# ---- errors: each names the stream and the field ---------------------------------------------


@pytest.mark.parametrize(
    ("keys", "fragments"),
    [
        ({"vlan_id": 4096}, ("vlan_id 4096 is outside 0..4095",)),
        ({"vlan_id": 1, "outer_vlan_id": 5000}, ("outer_vlan_id 5000 is outside 0..4095",)),
        ({"outer_vlan_id": 5}, ("outer_vlan_id (QinQ) needs vlan_id",)),
        ({"mpls_labels": [1, 2, 3, 4, 5]}, ("5 MPLS labels", "at most 4")),
        ({"mpls_labels": 16}, ("mpls_labels: expected a list of labels",)),
        ({"mpls_labels": ["a"]}, ("mpls_labels: expected a list of labels",)),
        ({"mpls_labels": [1 << 20]}, ("MPLS label 1048576 is outside 0..1048575",)),
        ({"l4": "sctp"}, ("l4 'sctp' must be 'udp' or 'tcp'",)),
        ({"tunnel": {"gre": {}}}, ("tunnel: expected one of", "vxlan", "gtpu", "srv6")),
        ({"tunnel": {"vxlan": [1]}}, ("tunnel: vxlan: expected a mapping",)),
        ({"tunnel": {"vxlan": {"vni": 1, "src_ip": "10.0.0.1"}}},
         ("tunnel: vxlan: missing 'dst_ip'",)),
        ({"tunnel": {"vxlan": {"vni": 1, "src_ip": "10.0.0.1", "dst_ip": "10.0.0.2",
                               "vnid": 3}}},
         ("tunnel: vxlan: unknown key 'vnid'",)),
        ({"tunnel": {"vxlan": {"vni": 1, "src_ip": "10.0.0.1", "dst_ip": "2001:db8::1"}}},
         ("tunnel: vxlan: src_ip 10.0.0.1 and dst_ip 2001:db8::1 are not the same IP version",)),
        ({"tunnel": {"vxlan": {"vni": 1 << 24, "src_ip": "10.0.0.1", "dst_ip": "10.0.0.2"}}},
         ("tunnel: vxlan: vni 16777216 is outside 0..16777215",)),
        ({"tunnel": {"gtpu": {"teid": 1, "src_ip": "10.0.0.1", "dst_ip": "10.0.0.2",
                              "qfi": 64}}},
         ("tunnel: gtpu: qfi 64 is outside 0..63",)),
        ({"tunnel": {"gtpu": {"teid": "abc", "src_ip": "10.0.0.1", "dst_ip": "10.0.0.2"}}},
         ("tunnel: gtpu", "teid")),
        ({"tunnel": {"srv6": {"src_ip": "2001:db8::1", "segments": "2001:db8::2"}}},
         ("tunnel: srv6: segments: expected a list of IPv6 addresses",)),
        ({"tunnel": {"srv6": {"src_ip": "2001:db8::1", "segments": []}}},
         ("tunnel: srv6: 0 segments; the tester parses 1..4",)),
        ({"tunnel": {"srv6": {"src_ip": "2001:db8::1",
                              "segments": ["2001:db8::2"] * 5}}},
         ("tunnel: srv6: 5 segments; the tester parses 1..4",)),
        ({"tunnel": {"srv6": {"src_ip": "10.0.0.1", "segments": ["2001:db8::2"]}}},
         ("tunnel: srv6: src_ip 10.0.0.1 must be IPv6",)),
        ({"vary": {"ttl": [1, 2]}}, ("vary: field 'ttl' cannot vary; the tester varies "
                                     "src_port, dst_port, src_ip, dst_ip, src_ip6, dst_ip6, "
                                     "dscp, vlan, outer_vlan, tcp_seq, tcp_ack, vni, "
                                     "src_mac, dst_mac",)),
        ({"vary": {"src_port": [1, 70000]}}, ("vary: src_port: 70000 is not a port",)),
        ({"vary": {"src_port": {"start": 65535, "step": 1, "count": 2}}},
         ("vary", "reaches 65536, outside 0..65535")),
        ({"vary": {"src_port": list(range(64)), "dst_port": list(range(65))}},
         ("vary: 64 source ports x 65 destination ports repeat every 4160 frames",)),
        ({"vary": {}}, ("vary", "expected {src_port")),
        ({"vary": {"src_port": {"start": 1}}}, ("vary", "src_port", "missing 'count'")),
        ({"vary": {"src_port": {"start": 1, "count": 2, "stop": 3}}},
         ("vary", "src_port", "unknown key 'stop'")),
        ({"vary": {"src_port": "5000"}},
         ("vary", "src_port", "expected a list of values, {start, step, count} or "
                              "{random: ..., seed: N}")),
        ({"vary": {"src_port": ["a"]}}, ("vary", "src_port")),
    ],
    ids=["vlan-range", "outer-vlan-range", "outer-without-vlan", "mpls-5-labels",
         "mpls-not-a-list", "mpls-not-ints", "mpls-label-range", "l4-sctp", "tunnel-kind",
         "tunnel-not-mapping", "vxlan-missing-dst", "vxlan-unknown-key", "vxlan-mixed-ip",
         "vxlan-vni", "gtpu-qfi", "gtpu-teid-text", "srv6-segments-text", "srv6-0",
         "srv6-5", "srv6-src-v4", "vary-field", "vary-port-range", "vary-stepped-range",
         "vary-cycle", "vary-empty", "vary-missing-count", "vary-unknown-key",
         "vary-not-list", "vary-not-int"],
)
def test_bad_header_keys_name_the_stream_and_the_field(keys: dict[str, Any],
                                                       fragments: tuple[str, ...]) -> None:
    second = _stream(id=1, **keys)
    with pytest.raises(ConfigError) as error:
        profile_from_dict(_profile(_stream(), second, frame_sizes=[256]), SOURCE)
    message = str(error.value)
    assert message.startswith(f"{SOURCE}: streams[1]: "), message
    assert message.count(SOURCE) == 1, message  # the path once, not repeated
    for fragment in fragments:
        assert fragment in message, message


@pytest.mark.parametrize(
    ("keys", "minimum", "describe"),
    [
        ({"l4": "tcp"}, 76, "Ethernet/IPv4/TCP/tester"),
        ({"tunnel": {"vxlan": {"vni": 42, "src_ip": "10.0.0.1", "dst_ip": "10.0.0.2"}}}, 114,
         "Ethernet/IPv4/UDP/VxLAN 42/Ethernet/IPv4/UDP/tester"),
        ({"mpls_labels": [1, 2, 3, 4], "ipv6": True}, 100, "Ethernet/MPLS 1,2,3,4/IPv6/UDP/tester"),
    ],
)
def test_frame_size_below_the_encapsulations_minimum(keys: dict[str, Any], minimum: int,
                                                     describe: str) -> None:
    with pytest.raises(ConfigError) as error:
        profile_from_dict(_profile(_stream(**keys), frame_sizes=[64, 1518]), SOURCE)
    message = str(error.value)
    assert message.startswith(f"{SOURCE}: stream 0: frame size 64 B is outside "
                              f"{minimum}..9216 B for {describe}"), message
    assert profile_from_dict(_profile(_stream(**keys), frame_sizes=[minimum]),
                             SOURCE).min_frame_size() == minimum


def test_imix_member_below_the_tunnels_minimum() -> None:
    with pytest.raises(ConfigError) as error:
        profile_from_dict(_profile(_stream(imix="simple", tunnel={
            "srv6": {"src_ip": "2001:db8::1", "segments": ["2001:db8::2"]}})), SOURCE)
    message = str(error.value)
    assert message.startswith(f"{SOURCE}: streams[0]: stream 0: frame size 64 B is outside "
                              "128..9216 B"), message


def test_port_pairs_of_all_streams_fit_the_data_planes_table() -> None:
    """tx_vary_ports holds 4096 entries for all streams together: two streams listing
    4096 pairs each cannot both be stamped, and the profile says so when loaded.
    Ranges take no entry: 65 536 ports each in two streams load."""
    listed = {"src_port": list(range(1, 4097))}
    one = _stream(id=0, vary=listed)
    assert len(profile_from_dict(_profile(one), SOURCE).streams[0].port_pairs) == 4096
    with pytest.raises(ConfigError, match="4096"):
        profile_from_dict(_profile(one, _stream(id=1, vary=listed)), SOURCE)
    ranged = {"src_port": {"start": 0, "count": 65536}}
    both = profile_from_dict(_profile(_stream(id=0, vary=ranged), _stream(id=1, vary=ranged)),
                             SOURCE)
    assert [len(s.port_pairs) for s in both.streams] == [65536, 65536]
    assert [s.field_cycle for s in both.streams] == [(), ()]


def _doc_examples() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_docs_examples_load_at_their_smallest_frame_size() -> None:
    """Each profile example of docs/encapsulations.md loads, and its first frame
    size is its encapsulation's minimum."""
    examples = _doc_examples()
    assert len(examples) == 9
    names = []
    for text in examples:
        data = yaml.safe_load(text)
        profile = profile_from_dict(data, str(DOC))
        names.append(profile.name)
        assert profile.frame_sizes[0] == profile.min_frame_size(), profile.name
    assert names == ["ipv6-tcp", "vlan", "qinq", "mpls", "vxlan", "gtpu", "srv6", "combined",
                     "vary"]
