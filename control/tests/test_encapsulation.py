"""Encapsulations of test frames: the exact bytes of each header stack, the
smallest frame of each, valid checksums inner and outer, and the property the
switch relies on: its stamp (seq, tx_ts, varied ports, dut_qdelay) keeps every
checksum valid without recomputing any."""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from scapy.contrib.gtp import GTP_U_Header, GTPPDUSessionContainer
from scapy.contrib.mpls import MPLS
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import NoPayload, Packet, Raw

from p4tester.dataplane.constants import TESTER_UDP_DST_PORT
from p4tester.dataplane.headers import TesterHeader
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.frame_sizes import (
    Encapsulation,
    EncapsulationError,
    FrameSizeError,
)
from p4tester.streams.template import (
    FrameSpec,
    build_template,
    offset_of_tester_header,
    stamp_compensation,
)
from p4tester.streams.tunnels import GtpU, Srv6, TunnelError, Vxlan

# Header sizes in bytes, from the standards (not from the code under test).
ETH = 14
TAG = 4  # 802.1Q / 802.1ad
MPLS_ENTRY = 4
IPV4 = 20
IPV6 = 40
UDP_H = 8
TCP_H = 20
VXLAN_H = 8
GTPU_H = 8
GTPU_OPT = 4  # sequence number, N-PDU number, next extension header type
PDU_SESSION_CONTAINER = 4
SRH_FIXED = 8
SEGMENT = 16
TESTER = 18
FCS = 4

SEQ = 0x12345678
TX_TS = 0x9ABCDEF0

V4_SRC, V4_DST = "10.0.0.1", "10.0.0.2"
V6_SRC, V6_DST = "2001:db8::a", "2001:db8::b"
SEGMENTS = ("2001:db8:100::1", "2001:db8:200::2", "2001:db8:300::3", "2001:db8:400::4")


@dataclass(frozen=True)
class Case:
    name: str
    encapsulation: Encapsulation
    layers: tuple[type[Packet], ...]  # up to and including the innermost L4
    parts: tuple[int, ...]  # header sizes before the tester header
    minimum: int  # by hand: max(64, sum(parts) + TESTER + FCS)
    checksummed: tuple[str, ...]  # the IP/UDP/TCP layers whose checksums must verify


def _vxlan(outer6: bool) -> Vxlan:
    return Vxlan(vni=0xABCDEF, src_ip=V6_SRC if outer6 else V4_SRC,
                 dst_ip=V6_DST if outer6 else V4_DST)


def _gtpu(outer6: bool, qfi: int | None) -> GtpU:
    return GtpU(teid=0xDEADBEEF, src_ip=V6_SRC if outer6 else V4_SRC,
                dst_ip=V6_DST if outer6 else V4_DST, qfi=qfi)


def _srv6(count: int) -> Srv6:
    return Srv6(src_ip=V6_SRC, segments=SEGMENTS[:count])


CASES = [
    Case("ipv4-udp", Encapsulation(), (Ether, IP, UDP), (ETH, IPV4, UDP_H), 64,
         ("IP", "UDP")),
    Case("ipv6-udp", Encapsulation(ipv6=True), (Ether, IPv6, UDP), (ETH, IPV6, UDP_H), 84,
         ("UDP",)),
    Case("ipv4-tcp", Encapsulation(l4="tcp"), (Ether, IP, TCP), (ETH, IPV4, TCP_H), 76,
         ("IP", "TCP")),
    Case("ipv6-tcp", Encapsulation(ipv6=True, l4="tcp"), (Ether, IPv6, TCP),
         (ETH, IPV6, TCP_H), 96, ("TCP",)),
    Case("vlan-ipv4-udp", Encapsulation(vlan_id=10), (Ether, Dot1Q, IP, UDP),
         (ETH, TAG, IPV4, UDP_H), 68, ("IP", "UDP")),
    Case("vlan-ipv6-tcp", Encapsulation(vlan_id=4095, ipv6=True, l4="tcp"),
         (Ether, Dot1Q, IPv6, TCP), (ETH, TAG, IPV6, TCP_H), 100, ("TCP",)),
    Case("qinq-ipv4-udp", Encapsulation(outer_vlan_id=100, vlan_id=10),
         (Ether, Dot1AD, Dot1Q, IP, UDP), (ETH, TAG, TAG, IPV4, UDP_H), 72, ("IP", "UDP")),
    Case("qinq-ipv6-udp", Encapsulation(outer_vlan_id=0, vlan_id=4095, ipv6=True),
         (Ether, Dot1AD, Dot1Q, IPv6, UDP), (ETH, TAG, TAG, IPV6, UDP_H), 92, ("UDP",)),
    Case("mpls1-ipv4-udp", Encapsulation(mpls_labels=(16,)), (Ether, MPLS, IP, UDP),
         (ETH, MPLS_ENTRY, IPV4, UDP_H), 68, ("IP", "UDP")),
    Case("mpls4-ipv4-udp", Encapsulation(mpls_labels=(16, 17, 1000, 0xFFFFF)),
         (Ether, MPLS, MPLS, MPLS, MPLS, IP, UDP), (ETH, 4 * MPLS_ENTRY, IPV4, UDP_H), 80,
         ("IP", "UDP")),
    Case("mpls4-ipv6-tcp", Encapsulation(mpls_labels=(1, 2, 3, 4), ipv6=True, l4="tcp"),
         (Ether, MPLS, MPLS, MPLS, MPLS, IPv6, TCP), (ETH, 4 * MPLS_ENTRY, IPV6, TCP_H), 112,
         ("TCP",)),
    Case("qinq-mpls2-ipv4-tcp",
         Encapsulation(outer_vlan_id=7, vlan_id=8, mpls_labels=(20, 21), l4="tcp"),
         (Ether, Dot1AD, Dot1Q, MPLS, MPLS, IP, TCP),
         (ETH, TAG, TAG, 2 * MPLS_ENTRY, IPV4, TCP_H), 92, ("IP", "TCP")),
    Case("vxlan4-ipv4-udp", Encapsulation(tunnel=_vxlan(False)),
         (Ether, IP, UDP, VXLAN, Ether, IP, UDP),
         (ETH, IPV4, UDP_H, VXLAN_H, ETH, IPV4, UDP_H), 114, ("IP", "UDP", "IP", "UDP")),
    Case("vxlan4-ipv6-udp", Encapsulation(tunnel=_vxlan(False), ipv6=True),
         (Ether, IP, UDP, VXLAN, Ether, IPv6, UDP),
         (ETH, IPV4, UDP_H, VXLAN_H, ETH, IPV6, UDP_H), 134, ("IP", "UDP", "UDP")),
    Case("vxlan6-ipv4-udp", Encapsulation(tunnel=_vxlan(True)),
         (Ether, IPv6, UDP, VXLAN, Ether, IP, UDP),
         (ETH, IPV6, UDP_H, VXLAN_H, ETH, IPV4, UDP_H), 134, ("UDP", "IP", "UDP")),
    Case("vxlan6-ipv6-udp", Encapsulation(tunnel=_vxlan(True), ipv6=True),
         (Ether, IPv6, UDP, VXLAN, Ether, IPv6, UDP),
         (ETH, IPV6, UDP_H, VXLAN_H, ETH, IPV6, UDP_H), 154, ("UDP", "UDP")),
    Case("vxlan4-ipv4-tcp", Encapsulation(tunnel=_vxlan(False), l4="tcp"),
         (Ether, IP, UDP, VXLAN, Ether, IP, TCP),
         (ETH, IPV4, UDP_H, VXLAN_H, ETH, IPV4, TCP_H), 126, ("IP", "UDP", "IP", "TCP")),
    Case("vlan-vxlan4-ipv4-udp", Encapsulation(vlan_id=3, tunnel=_vxlan(False)),
         (Ether, Dot1Q, IP, UDP, VXLAN, Ether, IP, UDP),
         (ETH, TAG, IPV4, UDP_H, VXLAN_H, ETH, IPV4, UDP_H), 118, ("IP", "UDP", "IP", "UDP")),
    Case("gtpu4-ipv4-udp", Encapsulation(tunnel=_gtpu(False, None)),
         (Ether, IP, UDP, GTP_U_Header, IP, UDP),
         (ETH, IPV4, UDP_H, GTPU_H, IPV4, UDP_H), 100, ("IP", "UDP", "IP", "UDP")),
    Case("gtpu4-qfi-ipv4-udp", Encapsulation(tunnel=_gtpu(False, 9)),
         (Ether, IP, UDP, GTP_U_Header, GTPPDUSessionContainer, IP, UDP),
         (ETH, IPV4, UDP_H, GTPU_H, GTPU_OPT, PDU_SESSION_CONTAINER, IPV4, UDP_H), 108,
         ("IP", "UDP", "IP", "UDP")),
    Case("gtpu4-ipv6-udp", Encapsulation(tunnel=_gtpu(False, None), ipv6=True),
         (Ether, IP, UDP, GTP_U_Header, IPv6, UDP),
         (ETH, IPV4, UDP_H, GTPU_H, IPV6, UDP_H), 120, ("IP", "UDP", "UDP")),
    Case("gtpu4-qfi-ipv6-tcp", Encapsulation(tunnel=_gtpu(False, 63), ipv6=True, l4="tcp"),
         (Ether, IP, UDP, GTP_U_Header, GTPPDUSessionContainer, IPv6, TCP),
         (ETH, IPV4, UDP_H, GTPU_H, GTPU_OPT, PDU_SESSION_CONTAINER, IPV6, TCP_H), 140,
         ("IP", "UDP", "TCP")),
    Case("gtpu6-ipv4-udp", Encapsulation(tunnel=_gtpu(True, None)),
         (Ether, IPv6, UDP, GTP_U_Header, IP, UDP),
         (ETH, IPV6, UDP_H, GTPU_H, IPV4, UDP_H), 120, ("UDP", "IP", "UDP")),
    Case("gtpu6-qfi-ipv6-udp", Encapsulation(tunnel=_gtpu(True, 1), ipv6=True),
         (Ether, IPv6, UDP, GTP_U_Header, GTPPDUSessionContainer, IPv6, UDP),
         (ETH, IPV6, UDP_H, GTPU_H, GTPU_OPT, PDU_SESSION_CONTAINER, IPV6, UDP_H), 148,
         ("UDP", "UDP")),
    *[Case(f"srv6-{n}-ipv4-udp", Encapsulation(tunnel=_srv6(n)),
           (Ether, IPv6, IPv6ExtHdrSegmentRouting, IP, UDP),
           (ETH, IPV6, SRH_FIXED, n * SEGMENT, IPV4, UDP_H), minimum, ("IP", "UDP"))
      for n, minimum in ((1, 128), (2, 144), (3, 160), (4, 176))],
    *[Case(f"srv6-{n}-ipv6-udp", Encapsulation(tunnel=_srv6(n), ipv6=True),
           (Ether, IPv6, IPv6ExtHdrSegmentRouting, IPv6, UDP),
           (ETH, IPV6, SRH_FIXED, n * SEGMENT, IPV6, UDP_H), minimum, ("UDP",))
      for n, minimum in ((1, 148), (2, 164), (3, 180), (4, 196))],
    Case("srv6-2-ipv4-tcp", Encapsulation(tunnel=_srv6(2), l4="tcp"),
         (Ether, IPv6, IPv6ExtHdrSegmentRouting, IP, TCP),
         (ETH, IPV6, SRH_FIXED, 2 * SEGMENT, IPV4, TCP_H), 156, ("IP", "TCP")),
]
IDS = [case.name for case in CASES]


def _sizes(case: Case) -> list[int]:
    return sorted({case.minimum, *(s for s in (128, 256) if s >= case.minimum)})


SIZED = [pytest.param(case, size, id=f"{case.name}-{size}")
         for case in CASES for size in _sizes(case)]


def _layers(frame: Packet) -> list[Packet]:
    layers = []
    layer: Packet = frame
    while not isinstance(layer, NoPayload):
        layers.append(layer)
        layer = layer.payload
    return layers


def _verified_checksums(data: bytes) -> list[str]:
    """Checks every IP, UDP and TCP checksum of the frame, inner and outer: each in
    turn is deleted and recomputed by scapy (the others kept as they are), and the
    rebuilt frame must be the same bytes. Returns the checked layers' names."""
    frame = Ether(data)
    assert bytes(frame) == data  # scapy round-trips the whole stack
    checked = []
    for index, layer in enumerate(_layers(frame)):
        if not isinstance(layer, IP | UDP | TCP):
            continue
        copy = Ether(data)
        del _layers(copy)[index].chksum
        rebuilt = bytes(copy)
        recomputed = _layers(Ether(rebuilt))[index].chksum
        assert rebuilt == data, (f"{type(layer).__name__} (layer {index}) carries checksum "
                                 f"{layer.chksum:#06x}, recomputed {recomputed:#06x}")
        assert layer.chksum != 0
        checked.append(type(layer).__name__)
    return checked


def _l4_bytes(encapsulation: Encapsulation) -> int:
    return TCP_H if encapsulation.l4 == "tcp" else UDP_H


def _stamp(data: bytes, encapsulation: Encapsulation, seq: int, tx_ts: int,
           ports: tuple[int, int] | None = None, compensate: bool = True) -> bytes:
    """What the switch does to each copy of the template: seq and tx_ts into the
    tester header, a varying stream's ports into the innermost L4 header, and
    dut_qdelay = the compensation over the same values. No checksum is touched."""
    frame = bytearray(data)
    offset = offset_of_tester_header(encapsulation)
    struct.pack_into("!II", frame, offset + 6, seq, tx_ts)
    if ports is None:
        compensation = stamp_compensation(seq, tx_ts, widths=(32, 32))
    else:
        struct.pack_into("!HH", frame, offset - _l4_bytes(encapsulation), *ports)
        compensation = stamp_compensation(seq, tx_ts, *ports, widths=(32, 32, 16, 16))
    if compensate:
        struct.pack_into("!H", frame, offset + 16, compensation)
    return bytes(frame)


# ---- sizes --------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_min_frame_size_is_the_headers_plus_tester_header_plus_fcs(case: Case) -> None:
    assert case.minimum == max(64, sum(case.parts) + TESTER + FCS)
    assert case.encapsulation.header_bytes == sum(case.parts)
    assert case.encapsulation.min_frame_size == case.minimum
    assert offset_of_tester_header(case.encapsulation) == sum(case.parts)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_byte_below_the_minimum_is_refused_naming_encapsulation_and_minimum(
        case: Case) -> None:
    size = case.minimum - 1
    with pytest.raises(FrameSizeError) as error:
        build_template(FrameSpec(stream_id=1, frame_size=size,
                                 encapsulation=case.encapsulation))
    message = str(error.value)
    assert f"frame size {size} B is outside {case.minimum}..9216 B" in message
    assert case.encapsulation.describe() in message


def test_too_small_vxlan_frame_message() -> None:
    encapsulation = Encapsulation(tunnel=_vxlan(False))
    with pytest.raises(FrameSizeError, match=(
            r"^frame size 113 B is outside 114\.\.9216 B for "
            r"Ethernet/IPv4/UDP/VxLAN 11259375/Ethernet/IPv4/UDP/tester \(headers 92 B \+ "
            r"tester header 18 B \+ FCS 4 B\)")):
        build_template(FrameSpec(stream_id=1, frame_size=113, encapsulation=encapsulation))


@pytest.mark.parametrize(
    ("encapsulation", "text"),
    [
        (Encapsulation(), "Ethernet/IPv4/UDP/tester"),
        (Encapsulation(ipv6=True, l4="tcp"), "Ethernet/IPv6/TCP/tester"),
        (Encapsulation(outer_vlan_id=100, vlan_id=10, mpls_labels=(16, 17)),
         "Ethernet/QinQ 100/VLAN 10/MPLS 16,17/IPv4/UDP/tester"),
        (Encapsulation(tunnel=_gtpu(False, 9)),
         "Ethernet/IPv4/UDP/GTP-U 0xdeadbeef QFI 9/IPv4/UDP/tester"),
        (Encapsulation(tunnel=_gtpu(True, None), ipv6=True),
         "Ethernet/IPv6/UDP/GTP-U 0xdeadbeef/IPv6/UDP/tester"),
        (Encapsulation(tunnel=_srv6(3)), "Ethernet/IPv6/SRH 3 segments/IPv4/UDP/tester"),
    ],
)
def test_describe(encapsulation: Encapsulation, text: str) -> None:
    assert encapsulation.describe() == text


# ---- the template of each encapsulation -------------------------------------------------


@pytest.mark.parametrize(("case", "size"), SIZED)
def test_template_layers_length_tester_header_and_checksums(case: Case, size: int) -> None:
    encapsulation = case.encapsulation
    data = build_template(FrameSpec(stream_id=7, frame_size=size, encapsulation=encapsulation,
                                    run=201, epoch=3))
    assert len(data) == size - FCS
    frame = Ether(data)
    layers = _layers(frame)
    assert tuple(type(layer) for layer in layers[:len(case.layers)]) == case.layers
    assert [type(layer) for layer in layers[len(case.layers):]] == [Raw]
    offset = offset_of_tester_header(encapsulation)
    assert data[offset:offset + 4] == b"P4" + bytes([201, 3 << 1])  # signature, run, flags
    assert bytes(layers[-1]) == data[offset:]  # the innermost L4 payload
    assert len(data[offset:]) == size - FCS - sum(case.parts)
    header = TesterHeader.unpack(data[offset:])
    assert header == TesterHeader(stream_id=7, seq=0, tx_ts=0, dut_qdelay=0xFFFF, run=201,
                                  flags=3 << 1)
    assert data[offset + TESTER:] == bytes(size - FCS - offset - TESTER)
    l4 = layers[len(case.layers) - 1]
    assert (l4.sport, l4.dport) == (0xC020, TESTER_UDP_DST_PORT)
    if isinstance(l4, TCP):
        assert (l4.flags, l4.dataofs) == ("A", 5)
    assert _verified_checksums(data) == list(case.checksummed)


@pytest.mark.parametrize(("case", "size"), SIZED)
def test_stamp_keeps_every_checksum_valid(case: Case, size: int) -> None:
    """The key property: the switch rewrites seq, tx_ts and dut_qdelay and no
    checksum, inner or outer, and every one still verifies."""
    encapsulation = case.encapsulation
    data = build_template(FrameSpec(stream_id=7, frame_size=size, encapsulation=encapsulation))
    for seq, tx_ts in ((SEQ, TX_TS), (1, 0), (0xFFFFFFFF, 0xFFFFFFFF), (0xFFFF0000, 0xFFFF)):
        stamped = _stamp(data, encapsulation, seq, tx_ts)
        header = TesterHeader.unpack(stamped[offset_of_tester_header(encapsulation):])
        assert (header.seq, header.tx_ts) == (seq, tx_ts)
        assert _verified_checksums(stamped) == list(case.checksummed)


@pytest.mark.parametrize(("case", "size"), SIZED)
def test_stamp_of_a_varying_stream_keeps_every_checksum_valid(case: Case, size: int) -> None:
    encapsulation = case.encapsulation
    first = (5000, 6000)
    spec = FrameSpec(stream_id=9, frame_size=size, encapsulation=encapsulation,
                     addresses=StreamAddresses(udp_src_port=first[0], l4_dst_port=first[1]),
                     varies_ports=True)
    data = build_template(spec)
    offset = offset_of_tester_header(encapsulation)
    # The template's compensation counts its ports, as frame 0's stamp will.
    assert TesterHeader.unpack(data[offset:]).dut_qdelay == stamp_compensation(*first)
    assert stamp_compensation(*first) == ~(5000 + 6000) & 0xFFFF
    assert _verified_checksums(data) == list(case.checksummed)
    for ports in (first, (5002, 5998), (0, 0), (0xFFFF, 1), (53, 0x5054)):
        stamped = _stamp(data, encapsulation, SEQ, TX_TS, ports)
        l4 = _layers(Ether(stamped))[len(case.layers) - 1]
        assert (l4.sport, l4.dport) == ports
        assert _verified_checksums(stamped) == list(case.checksummed)


@pytest.mark.parametrize("case", [c for c in CASES if c.encapsulation.tunnel is not None
                                  or c.name == "ipv4-udp"], ids=lambda c: c.name)
def test_stamp_without_compensation_breaks_a_checksum(case: Case) -> None:
    """The property above is not vacuous: seq and tx_ts alone change the sums."""
    encapsulation = case.encapsulation
    data = build_template(FrameSpec(stream_id=7, frame_size=case.minimum,
                                    encapsulation=encapsulation))
    stamped = _stamp(data, encapsulation, SEQ, TX_TS, compensate=False)
    with pytest.raises(AssertionError, match="recomputed"):
        _verified_checksums(stamped)


def test_stamp_compensation_values() -> None:
    assert stamp_compensation() == 0xFFFF
    assert stamp_compensation(0, 0, widths=(32, 32)) == 0xFFFF
    # 0x1234 + 0x5678 + 0x9abc + 0xdef0 = 0x1_e258 -> 0xe259, complement 0x1da6
    assert stamp_compensation(SEQ, TX_TS, widths=(32, 32)) == 0x1DA6
    # + 5000 (0x1388) + 6000 (0x1770) = 0xe259 + 0x2af8 = 0x1_0d51 -> 0x0d52 -> 0xf2ad
    assert stamp_compensation(SEQ, TX_TS, 5000, 6000, widths=(32, 32, 16, 16)) == 0xF2AD
    # A fixed-port stream: the switch's ports 0 add nothing.
    assert (stamp_compensation(SEQ, TX_TS, 0, 0, widths=(32, 32, 16, 16))
            == stamp_compensation(SEQ, TX_TS, widths=(32, 32)))
    assert stamp_compensation(0xFFFF) == 0


# ---- exact header bytes -------------------------------------------------------------------


def test_qinq_tags_and_ethertypes() -> None:
    encapsulation = Encapsulation(outer_vlan_id=100, vlan_id=10)
    data = build_template(FrameSpec(stream_id=1, frame_size=128, encapsulation=encapsulation))
    assert data[12:14] == b"\x88\xa8"  # 802.1ad service tag first
    assert data[14:16] == (100).to_bytes(2, "big")
    assert data[16:18] == b"\x81\x00"  # then the 802.1Q customer tag
    assert data[18:20] == (10).to_bytes(2, "big")
    assert data[20:22] == b"\x08\x00"
    frame = Ether(data)
    assert (frame[Dot1AD].vlan, frame[Dot1Q].vlan) == (100, 10)


def test_vlan_tag_ethertype() -> None:
    data = build_template(FrameSpec(stream_id=1, frame_size=128,
                                    encapsulation=Encapsulation(vlan_id=4095, ipv6=True)))
    assert data[12:18] == b"\x81\x00\x0f\xff\x86\xdd"


@pytest.mark.parametrize("labels", [(16,), (16, 17), (3, 1000, 0xFFFFF), (0, 1, 2, 3)])
@pytest.mark.parametrize("ipv6", [False, True])
def test_mpls_stack_bottom_of_stack_only_on_the_last(labels: tuple[int, ...],
                                                     ipv6: bool) -> None:
    encapsulation = Encapsulation(mpls_labels=labels, ipv6=ipv6)
    data = build_template(FrameSpec(stream_id=1, frame_size=256, encapsulation=encapsulation))
    assert data[12:14] == b"\x88\x47"
    entries = struct.unpack_from(f"!{len(labels)}I", data, ETH)
    expected = tuple((label << 12) | (int(i == len(labels) - 1) << 8) | 64
                     for i, label in enumerate(labels))
    assert entries == expected
    after = ETH + MPLS_ENTRY * len(labels)
    assert data[after] >> 4 == (6 if ipv6 else 4)
    stack = [layer for layer in _layers(Ether(data)) if isinstance(layer, MPLS)]
    assert [(m.label, m.s, m.ttl) for m in stack] == [
        (label, int(i == len(labels) - 1), 64) for i, label in enumerate(labels)]


@pytest.mark.parametrize("outer6", [False, True])
@pytest.mark.parametrize("inner6", [False, True])
def test_vxlan_outer_headers(outer6: bool, inner6: bool) -> None:
    tunnel = _vxlan(outer6)
    encapsulation = Encapsulation(tunnel=tunnel, ipv6=inner6)
    size = 256
    data = build_template(FrameSpec(stream_id=1, frame_size=size, encapsulation=encapsulation))
    outer_ip = IPV6 if outer6 else IPV4
    assert data[12:14] == (b"\x86\xdd" if outer6 else b"\x08\x00")
    frame = Ether(data)
    if outer6:
        assert (frame[IPv6].src, frame[IPv6].dst, frame[IPv6].nh) == (V6_SRC, V6_DST, 17)
        assert frame[IPv6].plen == size - FCS - ETH - IPV6
    else:
        assert (frame[IP].src, frame[IP].dst, frame[IP].proto) == (V4_SRC, V4_DST, 17)
        assert frame[IP].len == size - FCS - ETH
    udp = ETH + outer_ip
    sport, dport, length = struct.unpack_from("!HHH", data, udp)
    assert (sport, dport, length) == (49152, 4789, size - FCS - udp)
    vxlan = udp + UDP_H
    assert data[vxlan:vxlan + 8] == bytes.fromhex("08000000abcdef00")
    inner = vxlan + VXLAN_H
    assert data[inner:inner + ETH] == (bytes.fromhex("020000000102" "020000000101")
                                       + (b"\x86\xdd" if inner6 else b"\x08\x00"))
    inner_ip = Ether(data[inner:])
    if inner6:
        assert (inner_ip[IPv6].src, inner_ip[IPv6].dst) == ("2001:db8::1", "2001:db8:1::1")
    else:
        assert (inner_ip[IP].src, inner_ip[IP].dst) == ("192.0.2.1", "198.51.100.1")
    assert frame[VXLAN].vni == 0xABCDEF


@pytest.mark.parametrize("qfi", [None, 0, 9, 63])
@pytest.mark.parametrize("inner6", [False, True])
def test_gtpu_header_bytes(qfi: int | None, inner6: bool) -> None:
    encapsulation = Encapsulation(tunnel=_gtpu(False, qfi), ipv6=inner6)
    size = 256
    data = build_template(FrameSpec(stream_id=1, frame_size=size, encapsulation=encapsulation))
    udp = ETH + IPV4
    sport, dport, length = struct.unpack_from("!HHH", data, udp)
    assert (sport, dport, length) == (49152, 2152, size - FCS - udp)
    gtpu = udp + UDP_H
    extension = GTPU_OPT + PDU_SESSION_CONTAINER if qfi is not None else 0
    inner_ip = gtpu + GTPU_H + extension
    inner_length = size - FCS - inner_ip
    flags, message, gtp_length, teid = struct.unpack_from("!BBHI", data, gtpu)
    # Version 1, PT 1; E (extension header) only with a QFI. G-PDU 0xff.
    assert (flags, message, teid) == (0x34 if qfi is not None else 0x30, 0xFF, 0xDEADBEEF)
    # The length counts everything after the first 8 bytes.
    assert gtp_length == extension + inner_length
    if qfi is not None:
        # Sequence number 0, N-PDU 0, next extension: PDU Session Container (0x85);
        # the container: length 1 (x 4 B), UL PDU Session Information (type 1), the
        # QFI, no further extension.
        assert data[gtpu + 8:gtpu + 16] == bytes([0, 0, 0, 0x85, 1, 0x10, qfi, 0])
    assert data[inner_ip] >> 4 == (6 if inner6 else 4)
    frame = Ether(data)
    assert frame[GTP_U_Header].teid == 0xDEADBEEF
    assert frame[GTP_U_Header].length == gtp_length
    if qfi is not None:
        container = frame[GTPPDUSessionContainer]
        assert (container.type, container.QFI) == (1, qfi)
    else:
        assert GTPPDUSessionContainer not in frame
    layers = _layers(frame)
    inner = layers[layers.index(frame[GTP_U_Header]) + (2 if qfi is not None else 1)]
    assert isinstance(inner, IPv6 if inner6 else IP)
    assert bytes(inner) == data[inner_ip:]
    assert len(bytes(inner)) == inner_length


@pytest.mark.parametrize("count", [1, 2, 3, 4])
@pytest.mark.parametrize("inner6", [False, True])
def test_srv6_header_bytes(count: int, inner6: bool) -> None:
    tunnel = _srv6(count)
    encapsulation = Encapsulation(tunnel=tunnel, ipv6=inner6)
    size = 256
    data = build_template(FrameSpec(stream_id=1, frame_size=size, encapsulation=encapsulation))
    assert data[12:14] == b"\x86\xdd"
    frame = Ether(data)
    outer = frame[IPv6]
    # H.Encaps: the outer destination is the first segment to visit.
    assert (outer.src, outer.dst, outer.nh, outer.hlim) == (V6_SRC, SEGMENTS[0], 43, 64)
    assert outer.plen == size - FCS - ETH - IPV6
    srh = ETH + IPV6
    assert data[srh:srh + 8] == bytes([41 if inner6 else 4, 2 * count, 4, count - 1,
                                       count - 1, 0, 0, 0])
    listed = [str(ipaddress.IPv6Address(data[srh + 8 + 16 * i:srh + 24 + 16 * i]))
              for i in range(count)]
    # The SRH lists the segments last first.
    assert listed == list(reversed(SEGMENTS[:count]))
    header = frame[IPv6ExtHdrSegmentRouting]
    assert (header.type, header.segleft, header.lastentry) == (4, count - 1, count - 1)
    assert header.addresses == list(reversed(SEGMENTS[:count]))
    inner = srh + SRH_FIXED + SEGMENT * count
    assert data[inner] >> 4 == (6 if inner6 else 4)


def test_addresses_dscp_flow_label_and_destination_port() -> None:
    addresses = StreamAddresses(dscp=46, flow_label=0xABCDE, l4_dst_port=4791, ttl=9)
    v4 = Ether(build_template(FrameSpec(stream_id=1, frame_size=128, addresses=addresses)))
    assert (v4[IP].tos, v4[IP].ttl, v4[UDP].dport) == (46 << 2, 9, 4791)
    v6 = Ether(build_template(FrameSpec(stream_id=1, frame_size=128, addresses=addresses,
                                        encapsulation=Encapsulation(ipv6=True, l4="tcp"))))
    assert (v6[IPv6].tc, v6[IPv6].fl, v6[IPv6].hlim, v6[TCP].dport) == (46 << 2, 0xABCDE,
                                                                       9, 4791)


# ---- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: Encapsulation(vlan_id=4096), EncapsulationError,
         r"^vlan_id 4096 is outside 0\.\.4095$"),
        (lambda: Encapsulation(vlan_id=-1), EncapsulationError,
         r"^vlan_id -1 is outside 0\.\.4095$"),
        (lambda: Encapsulation(vlan_id=1, outer_vlan_id=4096), EncapsulationError,
         r"^outer_vlan_id 4096 is outside 0\.\.4095$"),
        (lambda: Encapsulation(outer_vlan_id=100), EncapsulationError,
         r"^outer_vlan_id \(QinQ\) needs vlan_id, the inner tag$"),
        (lambda: Encapsulation(mpls_labels=(1, 2, 3, 4, 5)), EncapsulationError,
         r"^5 MPLS labels; the tester parses at most 4$"),
        (lambda: Encapsulation(mpls_labels=(1 << 20,)), EncapsulationError,
         r"^MPLS label 1048576 is outside 0\.\.1048575$"),
        (lambda: Encapsulation(l4="sctp"), EncapsulationError,
         r"^l4 'sctp' must be 'udp' or 'tcp'$"),
        (lambda: Srv6(src_ip=V6_SRC, segments=()), TunnelError,
         r"^srv6: 0 segments; the tester parses 1\.\.4$"),
        (lambda: Srv6(src_ip=V6_SRC, segments=(*SEGMENTS, "2001:db8:500::5")), TunnelError,
         r"^srv6: 5 segments; the tester parses 1\.\.4$"),
        (lambda: Srv6(src_ip=V4_SRC, segments=SEGMENTS[:1]), TunnelError,
         r"^srv6: src_ip 10\.0\.0\.1 must be IPv6$"),
        (lambda: Srv6(src_ip=V6_SRC, segments=(V4_DST,)), TunnelError,
         r"^srv6: segment 10\.0\.0\.2 must be IPv6$"),
        (lambda: Vxlan(vni=1, src_ip=V4_SRC, dst_ip=V6_DST), TunnelError,
         r"^vxlan: src_ip 10\.0\.0\.1 and dst_ip 2001:db8::b are not the same IP version$"),
        (lambda: Vxlan(vni=1, src_ip=V6_SRC, dst_ip=V4_DST), TunnelError,
         r"^vxlan: src_ip 2001:db8::a and dst_ip 10\.0\.0\.2 are not the same IP version$"),
        (lambda: Vxlan(vni=1 << 24, src_ip=V4_SRC, dst_ip=V4_DST), TunnelError,
         r"^vxlan: vni 16777216 is outside 0\.\.16777215$"),
        (lambda: Vxlan(vni=1, src_ip="10.0.0", dst_ip=V4_DST), TunnelError,
         r"^vxlan: src_ip '10\.0\.0' is not an IPv4 or IPv6 address$"),
        (lambda: GtpU(teid=1 << 32, src_ip=V4_SRC, dst_ip=V4_DST), TunnelError,
         r"^gtpu: teid 4294967296 is outside 0\.\.4294967295$"),
        (lambda: GtpU(teid=1, src_ip=V4_SRC, dst_ip=V4_DST, qfi=64), TunnelError,
         r"^gtpu: qfi 64 is outside 0\.\.63$"),
        (lambda: GtpU(teid=1, src_ip=V4_SRC, dst_ip=V6_DST), TunnelError,
         r"^gtpu: src_ip 10\.0\.0\.1 and dst_ip 2001:db8::b are not the same IP version$"),
    ],
    ids=["vlan-4096", "vlan-negative", "outer-vlan-4096", "outer-without-vlan", "mpls-5",
         "mpls-label-range", "l4-sctp", "srv6-0", "srv6-5", "srv6-src-v4", "srv6-segment-v4",
         "vxlan-v4-v6", "vxlan-v6-v4", "vxlan-vni", "vxlan-bad-address", "gtpu-teid",
         "gtpu-qfi", "gtpu-v4-v6"],
)
def test_invalid_encapsulations_are_refused(make: object, error: type[Exception],
                                            message: str) -> None:
    with pytest.raises(error, match=message):
        make()  # type: ignore[operator]


@pytest.mark.parametrize("outer6", [False, True])
@pytest.mark.parametrize("tunnel", ["vxlan", "gtpu"])
def test_the_checksum_check_sees_the_outer_udp_checksum(outer6: bool, tunnel: str) -> None:
    encapsulation = Encapsulation(tunnel=_vxlan(outer6) if tunnel == "vxlan"
                                  else _gtpu(outer6, 5))
    data = bytearray(build_template(FrameSpec(stream_id=1, frame_size=256,
                                              encapsulation=encapsulation)))
    outer_udp_checksum = ETH + (IPV6 if outer6 else IPV4) + 6
    data[outer_udp_checksum] ^= 0x40
    with pytest.raises(AssertionError, match=r"^UDP \(layer 2\) carries checksum"):
        _verified_checksums(bytes(data))


# ---- the minimum table of docs/encapsulations.md ------------------------------------------

DOC = Path(__file__).resolve().parents[2] / "docs" / "encapsulations.md"
_DOC_ROWS: dict[str, tuple[dict[str, Any], int]] = {  # row: Encapsulation keys, header bytes
    "plain": ({}, 0),
    "VLAN": ({"vlan_id": 1}, TAG),
    "QinQ": ({"vlan_id": 1, "outer_vlan_id": 2}, 2 * TAG),
    **{f"MPLS, {n} label{'s' if n > 1 else ''}": ({"mpls_labels": tuple(range(n))},
                                                  n * MPLS_ENTRY) for n in (1, 2, 3, 4)},
    "VxLAN over IPv4": ({"tunnel": _vxlan(False)}, IPV4 + UDP_H + VXLAN_H + ETH),
    "VxLAN over IPv6": ({"tunnel": _vxlan(True)}, IPV6 + UDP_H + VXLAN_H + ETH),
    "GTP-U over IPv4": ({"tunnel": _gtpu(False, None)}, IPV4 + UDP_H + GTPU_H),
    "GTP-U over IPv4, with `qfi`": ({"tunnel": _gtpu(False, 1)},
                                    IPV4 + UDP_H + GTPU_H + GTPU_OPT + PDU_SESSION_CONTAINER),
    "GTP-U over IPv6": ({"tunnel": _gtpu(True, None)}, IPV6 + UDP_H + GTPU_H),
    "GTP-U over IPv6, with `qfi`": ({"tunnel": _gtpu(True, 1)},
                                    IPV6 + UDP_H + GTPU_H + GTPU_OPT + PDU_SESSION_CONTAINER),
    **{f"SRv6, {n} segment{'s' if n > 1 else ''}": ({"tunnel": _srv6(n)},
                                                    IPV6 + SRH_FIXED + n * SEGMENT)
       for n in (1, 2, 3, 4)},
}


def test_the_docs_minimum_table_matches_the_code_and_the_header_sizes() -> None:
    rows = {}
    for line in DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in _DOC_ROWS:
            rows[cells[0]] = tuple(int(cell) for cell in cells[1:])
    assert set(rows) == set(_DOC_ROWS)
    for name, (keys, extra) in _DOC_ROWS.items():
        columns = [(False, "udp"), (False, "tcp"), (True, "udp"), (True, "tcp")]
        by_hand = tuple(max(64, ETH + extra + (IPV6 if ipv6 else IPV4)
                            + (TCP_H if l4 == "tcp" else UDP_H) + TESTER + FCS)
                        for ipv6, l4 in columns)
        by_code = tuple(Encapsulation(ipv6=ipv6, l4=l4, **keys).min_frame_size
                        for ipv6, l4 in columns)
        assert rows[name] == by_hand == by_code, name
