"""OTG VxLAN frames in ixia-c's layout: the inner Ethernet frame ends with a
4-byte FCS slot, so the inner IP lengths are what the OTG conformance suite's
capture checks expect; every checksum stays valid."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Packet

from p4tester.otg.frames import ixia_layout
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template
from p4tester.streams.tunnels import GtpU, Vxlan

SIZE = 256


def _ones(data: bytes) -> int:
    total = sum(struct.unpack(f"!{len(data) // 2}H", data + b"\x00" * (len(data) % 2)))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def _l4_sum_ok(ip: bytes, ipv6: bool, l4: bytes, proto: int) -> bool:
    """The pseudo header, segment and checksum sum to 0xFFFF."""
    if ipv6:
        pseudo = ip[8:40] + struct.pack("!IxxxB", len(l4), proto)
    else:
        pseudo = ip[12:20] + struct.pack("!xBH", proto, len(l4))
    return _ones(pseudo + l4) == 0xFFFF


def _template(outer_ipv6: bool, ipv6: bool, l4: str) -> tuple[bytes, Encapsulation]:
    tunnel = Vxlan(vni=1000, src_ip="::1" if outer_ipv6 else "10.0.0.1",
                   dst_ip="::2" if outer_ipv6 else "10.0.0.2", udp_src_port=4789)
    encapsulation = Encapsulation(ipv6=ipv6, l4=l4, tunnel=tunnel)
    spec = FrameSpec(stream_id=3, frame_size=SIZE, encapsulation=encapsulation,
                     addresses=StreamAddresses(udp_src_port=80, l4_dst_port=80))
    return build_template(spec), encapsulation


@pytest.mark.parametrize(("outer_ipv6", "ipv6", "l4", "lengths"), [
    # The suite's vxlan_inner_ipv4: outer IPv6 payload 198 (its UDP length too),
    # inner IPv4 total length 256 - 14 - 4 - 40 - 8 - 8 - 14 - 4 = 164.
    (True, False, "tcp", {(18, 2): 198, (58, 2): 198, (86, 2): 164}),
    # vxlan_inner_ipv6: outer IPv4 total 238, UDP 218, inner IPv6 payload 144.
    (False, True, "tcp", {(16, 2): 238, (38, 2): 218, (68, 2): 144}),
    # IPv4 in IPv4, UDP: inner total length 252 - 64 - 4 = 184, its UDP length 164.
    (False, False, "udp", {(16, 2): 238, (38, 2): 218, (66, 2): 184, (88, 2): 164}),
])
def test_vxlan_inner_fcs_slot(outer_ipv6: bool, ipv6: bool, l4: str,
                              lengths: dict[tuple[int, int], int]) -> None:
    template, encapsulation = _template(outer_ipv6, ipv6, l4)
    frame = ixia_layout(template, encapsulation)
    assert len(frame) == len(template) == SIZE - 4
    assert frame[-4:] == b"\x00" * 4
    for (offset, width), value in lengths.items():
        assert int.from_bytes(frame[offset:offset + width]) == value, offset
    outer_ip = 14
    outer_udp = outer_ip + (40 if outer_ipv6 else 20)
    inner_ip = outer_udp + 8 + 8 + 14
    inner_l4 = inner_ip + (40 if ipv6 else 20)
    end = len(frame) - 4
    # Only the lengths and checksums changed; the tester header stays where it was.
    assert frame[inner_l4 + (20 if l4 == "tcp" else 8):end] == \
        template[inner_l4 + (20 if l4 == "tcp" else 8):end]
    assert _l4_sum_ok(frame[outer_ip:], outer_ipv6, frame[outer_udp:], 17)
    assert _l4_sum_ok(frame[inner_ip:], ipv6, frame[inner_l4:end], 6 if l4 == "tcp" else 17)
    if not ipv6:
        assert _ones(frame[inner_ip:inner_ip + 20]) == 0xFFFF
    if not outer_ipv6:
        assert _ones(frame[outer_ip:outer_ip + 20]) == 0xFFFF
    # scapy reads the inner packet's checksums as valid too.
    packet: Packet = (IPv6 if ipv6 else IP)(frame[inner_ip:end])
    rebuilt: Any = packet.copy()
    if not ipv6:
        del rebuilt.chksum
    del rebuilt[TCP if l4 == "tcp" else UDP].chksum
    assert bytes(rebuilt) == bytes(packet)


def test_other_frames_unchanged() -> None:
    _, encapsulation = _template(True, False, "tcp")
    smallest = build_template(FrameSpec(stream_id=3, frame_size=encapsulation.min_frame_size,
                                        encapsulation=encapsulation))
    assert ixia_layout(smallest, encapsulation) == smallest
    gtpu = Encapsulation(tunnel=GtpU(teid=1, src_ip="10.0.0.1", dst_ip="10.0.0.2"))
    plain = build_template(FrameSpec(stream_id=3, frame_size=SIZE, encapsulation=gtpu))
    assert ixia_layout(plain, gtpu) == plain
