"""Stream templates: the whole frame the data plane replicates, built with scapy.

Frame size counts as RFC 2544 does: the Ethernet frame including its 4-byte FCS.
The template handed to the switch is the frame without FCS (the NIC or veth adds
or omits it), so it is frame_size - 4 bytes long.
"""

from __future__ import annotations

from dataclasses import dataclass

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Packet, Raw

from p4tester.dataplane.constants import TESTER_HEADER_BYTES, TESTER_UDP_DST_PORT
from p4tester.dataplane.headers import TesterHeader

FCS_BYTES = 4
ETHERNET_BYTES = 14
VLAN_BYTES = 4
IPV4_BYTES = 20
IPV6_BYTES = 40
UDP_BYTES = 8
MIN_ETHERNET_FRAME = 64
MAX_FRAME = 9216


@dataclass(frozen=True, slots=True)
class Encapsulation:
    """Which headers precede UDP: IPv4 or IPv6, with or without one VLAN tag."""

    ipv6: bool = False
    vlan_id: int | None = None

    @property
    def header_bytes(self) -> int:
        l3 = IPV6_BYTES if self.ipv6 else IPV4_BYTES
        tag = VLAN_BYTES if self.vlan_id is not None else 0
        return ETHERNET_BYTES + tag + l3 + UDP_BYTES

    @property
    def min_frame_size(self) -> int:
        """Smallest frame (incl. FCS) that holds all headers and the tester header."""
        return max(MIN_ETHERNET_FRAME, self.header_bytes + TESTER_HEADER_BYTES + FCS_BYTES)

    def describe(self) -> str:
        parts = ["Ethernet"]
        if self.vlan_id is not None:
            parts.append(f"VLAN {self.vlan_id}")
        parts += ["IPv6" if self.ipv6 else "IPv4", "UDP", "tester"]
        return "/".join(parts)


@dataclass(frozen=True, slots=True)
class FrameSpec:
    """Addresses and size of one stream's frames."""

    stream_id: int
    frame_size: int = 64
    src_mac: str = "02:00:00:00:00:01"
    dst_mac: str = "02:00:00:00:00:02"
    src_ip: str = "192.0.2.1"
    dst_ip: str = "198.51.100.1"
    src_ip6: str = "2001:db8::1"
    dst_ip6: str = "2001:db8:1::1"
    udp_src_port: int = 0xC020
    ttl: int = 64
    encapsulation: Encapsulation = Encapsulation()


class FrameSizeError(ValueError):
    """A frame size outside what the encapsulation and Ethernet allow."""


def check_frame_size(frame_size: int, encapsulation: Encapsulation) -> None:
    low = encapsulation.min_frame_size
    if not low <= frame_size <= MAX_FRAME:
        raise FrameSizeError(
            f"frame size {frame_size} B is outside {low}..{MAX_FRAME} B for "
            f"{encapsulation.describe()} (headers {encapsulation.header_bytes} B + tester "
            f"header {TESTER_HEADER_BYTES} B + FCS {FCS_BYTES} B); choose a size in that range"
        )


def build_template(spec: FrameSpec) -> bytes:
    """The frame (without FCS) whose UDP payload starts with the tester header."""
    enc = spec.encapsulation
    check_frame_size(spec.frame_size, enc)
    padding = spec.frame_size - FCS_BYTES - enc.header_bytes - TESTER_HEADER_BYTES
    payload = TesterHeader(stream_id=spec.stream_id).pack() + bytes(padding)

    frame: Packet = Ether(src=spec.src_mac, dst=spec.dst_mac)
    if enc.vlan_id is not None:
        frame = frame / Dot1Q(vlan=enc.vlan_id)
    if enc.ipv6:
        # IPv6 forbids a zero UDP checksum: scapy fills it; the switch updates it
        # after stamping.
        frame = frame / IPv6(src=spec.src_ip6, dst=spec.dst_ip6, hlim=spec.ttl)
        frame = frame / UDP(sport=spec.udp_src_port, dport=TESTER_UDP_DST_PORT)
    else:
        # Zero UDP checksum (RFC 768): the switch rewrites seq and timestamp.
        frame = frame / IP(src=spec.src_ip, dst=spec.dst_ip, ttl=spec.ttl)
        frame = frame / UDP(sport=spec.udp_src_port, dport=TESTER_UDP_DST_PORT, chksum=0)
    data = bytes(frame / Raw(payload))
    if len(data) != spec.frame_size - FCS_BYTES:
        raise AssertionError(f"template is {len(data)} B, expected {spec.frame_size - FCS_BYTES}")
    return data


def offset_of_tester_header(encapsulation: Encapsulation) -> int:
    """Byte offset of the tester header in a frame."""
    return encapsulation.header_bytes
