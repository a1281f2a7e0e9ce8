"""Stream templates: the whole frame the data plane replicates, built with scapy.

Frame size counts as RFC 2544 does: the Ethernet frame including its 4-byte FCS.
The template handed to the switch is the frame without FCS (the NIC or veth adds
or omits it), so it is frame_size - 4 bytes long.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Packet, Raw

from p4tester.dataplane.constants import TESTER_HEADER_BYTES, TESTER_UDP_DST_PORT
from p4tester.dataplane.headers import TesterHeader, epoch_flags
from p4tester.streams.frame_sizes import (
    FCS_BYTES,
    Encapsulation,
    check_frame_size,
)


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
    # Generator epoch of the trial (dataplane.program.epoch_flags): stale
    # templates of another trial die in the data plane instead of joining.
    epoch: int = 0
    encapsulation: Encapsulation = field(default_factory=Encapsulation)


def build_template(spec: FrameSpec) -> bytes:
    """The frame (without FCS) whose UDP payload starts with the tester header."""
    enc = spec.encapsulation
    check_frame_size(spec.frame_size, enc)
    padding = spec.frame_size - FCS_BYTES - enc.header_bytes - TESTER_HEADER_BYTES
    header = TesterHeader(stream_id=spec.stream_id, flags=epoch_flags(spec.epoch))
    payload = header.pack() + bytes(padding)

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
