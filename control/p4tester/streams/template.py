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
from p4tester.streams.addresses import StreamAddresses
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
    addresses: StreamAddresses = field(default_factory=StreamAddresses)
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

    address = spec.addresses
    frame: Packet = Ether(src=address.src_mac, dst=address.dst_mac)
    if enc.vlan_id is not None:
        frame = frame / Dot1Q(vlan=enc.vlan_id)
    if enc.ipv6:
        # IPv6 forbids a zero UDP checksum: scapy fills it; the switch updates it
        # after stamping.
        frame = frame / IPv6(src=address.src_ip6, dst=address.dst_ip6, hlim=address.ttl)
        frame = frame / UDP(sport=address.udp_src_port, dport=TESTER_UDP_DST_PORT)
    else:
        # Zero UDP checksum (RFC 768): the switch rewrites seq and timestamp.
        frame = frame / IP(src=address.src_ip, dst=address.dst_ip, ttl=address.ttl)
        frame = frame / UDP(sport=address.udp_src_port, dport=TESTER_UDP_DST_PORT, chksum=0)
    data = bytes(frame / Raw(payload))
    if len(data) != spec.frame_size - FCS_BYTES:
        raise AssertionError(f"template is {len(data)} B, expected {spec.frame_size - FCS_BYTES}")
    return data


def offset_of_tester_header(encapsulation: Encapsulation) -> int:
    """Byte offset of the tester header in a frame."""
    return encapsulation.header_bytes
