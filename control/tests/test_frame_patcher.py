"""The frame patcher against scapy: a template with each field written in equals the
frame scapy builds with that field, every length and checksum recomputed by scapy."""

from __future__ import annotations

import ipaddress

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.packet import Packet

from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.frame_patcher import FrameLayout, patched
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template


def scapy_frame(template: bytes, values: dict[str, int]) -> bytes:
    packet = Ether(template)
    ip: Packet = packet[IPv6] if IPv6 in packet else packet[IP]
    l4: Packet = packet[TCP] if TCP in packet else packet[UDP]
    for name, value in values.items():
        if name in ("src_ip", "dst_ip"):
            setattr(ip, name[:3], str(ipaddress.IPv4Address(value)))
        elif name in ("src_ip6", "dst_ip6"):
            high = int(ipaddress.IPv6Address(getattr(ip, name[:3]))) >> 64 << 64
            setattr(ip, name[:3], str(ipaddress.IPv6Address(high | value)))
        elif name == "dscp" and IPv6 in packet:
            ip.tc = (value << 2) | (ip.tc & 3)
        elif name == "dscp":
            ip.tos = (value << 2) | (ip.tos & 3)
        elif name == "vlan":
            packet[Dot1Q].vlan = value
        elif name == "outer_vlan":
            packet[Dot1AD].vlan = value
        elif name in ("src_port", "dst_port"):
            setattr(l4, "sport" if name == "src_port" else "dport", value)
        elif name in ("tcp_seq", "tcp_ack"):
            setattr(l4, "seq" if name == "tcp_seq" else "ack", value)
        elif name in ("src_mac", "dst_mac"):
            setattr(packet, name[:3], ":".join(f"{value:012x}"[i:i + 2] for i in range(0, 12, 2)))
    if IP in packet:
        del packet[IP].chksum
    del l4.chksum
    return bytes(packet)


CASES = [
    (Encapsulation(), {"src_ip": 0x0A000001, "dst_ip": 0xC6336464, "dscp": 46,
                       "src_port": 7, "dst_port": 65535}),
    (Encapsulation(l4="tcp"), {"src_ip": 0xFFFFFFFF, "tcp_seq": 0xFFFF0000, "tcp_ack": 3,
                               "dscp": 1}),
    (Encapsulation(ipv6=True), {"src_ip6": 0xFFFF_FFFF_FFFF_FFFF, "dst_ip6": 1, "dscp": 63}),
    (Encapsulation(ipv6=True, l4="tcp"), {"dst_ip6": 0xABCD, "tcp_seq": 1, "dst_port": 80}),
    (Encapsulation(vlan_id=10, outer_vlan_id=100), {"vlan": 4095, "outer_vlan": 1,
                                                   "dst_ip": 1}),
    (Encapsulation(mpls_labels=(16, 17)), {"src_ip": 0x0A000002, "src_port": 1}),
    (Encapsulation(vlan_id=10), {"vlan": 20, "src_mac": 0x0289_0100_0001,
                                 "dst_mac": 0x0289_0200_00FF}),
]


@pytest.mark.parametrize(("encapsulation", "values"), CASES)
def test_patched_equals_scapy(encapsulation: Encapsulation, values: dict[str, int]) -> None:
    addresses = StreamAddresses(tcp_flags="PA", tcp_seq=5, tcp_ack=9, dscp=3)
    template = build_template(FrameSpec(stream_id=1, frame_size=128, addresses=addresses,
                                        encapsulation=encapsulation))
    frame = patched(template, FrameLayout.of(encapsulation), values)
    assert frame.hex() == scapy_frame(template, values).hex()


def test_nothing_written_is_the_template() -> None:
    template = build_template(FrameSpec(stream_id=1, frame_size=64))
    assert patched(template, FrameLayout.of(Encapsulation()), {}) == template
