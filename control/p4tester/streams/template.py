"""Stream templates: the whole frame the data plane replicates, built with scapy.

Frame size counts as RFC 2544 does: the Ethernet frame including its 4-byte FCS.
The template handed to the switch is the frame without FCS (the NIC or veth adds
or omits it), so it is frame_size - 4 bytes long.

Every checksum of the template is valid, inner and outer, and stays valid in
each copy the switch stamps: the switch writes dut_qdelay so that the fields it
stamps and dut_qdelay sum, in ones' complement, to what they sum in the template
(p4src/common/constants.p4). The template carries seq and tx_ts 0 and
dut_qdelay = stamp_compensation(the ports a varying stream's first frame has).
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, field

from scapy.contrib.mpls import MPLS
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.packet import Packet, Raw

from p4tester.dataplane.constants import TESTER_HEADER_BYTES, TESTER_UDP_DST_PORT
from p4tester.dataplane.headers import TesterHeader, check_run_value, epoch_flags
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.frame_sizes import (
    FCS_BYTES,
    Encapsulation,
    check_frame_size,
)
from p4tester.streams.tunnels import (
    GTPU_UDP_PORT,
    VXLAN_UDP_PORT,
    GtpU,
    Srv6,
    Tunnel,
    Vxlan,
)

ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
ETHERTYPE_MPLS = 0x8847
IP_PROTO_IPV4 = 4
IP_PROTO_IPV6 = 41
IP_PROTO_ROUTING = 43
IP_PROTO_UDP = 17
IP_PROTO_TCP = 6


@dataclass(frozen=True, slots=True)
class FrameSpec:
    """Addresses and size of one stream's frames."""

    stream_id: int
    frame_size: int = 64
    addresses: StreamAddresses = field(default_factory=StreamAddresses)
    # Run value and generator epoch of the trial (dataplane.headers): templates
    # of another run or trial die in the data plane instead of joining, and their
    # frames are stale at the checker.
    epoch: int = 0
    run: int = 0
    encapsulation: Encapsulation = field(default_factory=Encapsulation)
    # The switch rewrites the L4 ports of each frame (streams.variation): the
    # template carries the first pair, and its stamp compensation counts them.
    varies_ports: bool = False

    @property
    def dst_port(self) -> int:
        port = self.addresses.l4_dst_port
        return TESTER_UDP_DST_PORT if port is None else port


def ones_complement_sum(words: list[int]) -> int:
    total = sum(words)
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def stamp_compensation(*values: int, widths: tuple[int, ...] | None = None) -> int:
    """dut_qdelay for stamped field values (16- or 32-bit): ~(their ones'-complement
    sum), as the switch's csum16 over the same fields computes it."""
    words: list[int] = []
    for index, value in enumerate(values):
        width = widths[index] if widths else 16
        for shift in range(width - 16, -1, -16):
            words.append((value >> shift) & 0xFFFF)
    return ~ones_complement_sum(words) & 0xFFFF


def build_template(spec: FrameSpec) -> bytes:
    """The frame (without FCS) whose innermost UDP or TCP payload starts with the
    tester header."""
    enc = spec.encapsulation
    check_frame_size(spec.frame_size, enc)
    padding = spec.frame_size - FCS_BYTES - enc.header_bytes - TESTER_HEADER_BYTES
    address = spec.addresses
    compensation = stamp_compensation(
        *((address.udp_src_port, spec.dst_port) if spec.varies_ports else ()))
    header = TesterHeader(stream_id=spec.stream_id, flags=epoch_flags(spec.epoch),
                          run=check_run_value(spec.run), dut_qdelay=compensation)
    payload = Raw(header.pack() + bytes(padding))

    if enc.l4 == "tcp":
        l4: Packet = TCP(sport=address.udp_src_port, dport=spec.dst_port,
                         flags=address.tcp_flags, seq=address.tcp_seq, ack=address.tcp_ack)
    else:
        l4 = UDP(sport=address.udp_src_port, dport=spec.dst_port)
    inner: Packet
    if enc.ipv6:
        inner = IPv6(src=address.src_ip6, dst=address.dst_ip6, hlim=address.ttl,
                     tc=address.dscp << 2, fl=address.flow_label)
    else:
        inner = IP(src=address.src_ip, dst=address.dst_ip, ttl=address.ttl,
                   tos=address.dscp << 2)
    # bytes(): scapy fills lengths and checksums now, over the final payload.
    ip_packet = bytes(inner / l4 / payload)
    ip_ethertype = ETHERTYPE_IPV6 if enc.ipv6 else ETHERTYPE_IPV4
    if enc.tunnel is not None:
        ip_packet, ip_ethertype = _in_tunnel(enc.tunnel, ip_packet, enc.ipv6, address)

    frame: Packet = Ether(src=address.src_mac, dst=address.dst_mac)
    if enc.outer_vlan_id is not None:
        frame = frame / Dot1AD(vlan=enc.outer_vlan_id, type=0x8100)
    if enc.vlan_id is not None:
        frame = frame / Dot1Q(vlan=enc.vlan_id)
    for index, label in enumerate(enc.mpls_labels):
        bottom = int(index == len(enc.mpls_labels) - 1)
        frame = frame / MPLS(label=label, s=bottom, ttl=address.ttl)
    _set_last_type(frame, ETHERTYPE_MPLS if enc.mpls_labels else ip_ethertype)
    data = bytes(frame) + ip_packet
    if len(data) != spec.frame_size - FCS_BYTES:
        raise AssertionError(f"template is {len(data)} B, expected {spec.frame_size - FCS_BYTES}")
    return data


def _set_last_type(frame: Packet, ethertype: int) -> None:
    """The EtherType in the last Ethernet/VLAN layer (what follows is raw bytes)."""
    last = frame
    while last.payload and not isinstance(last.payload, MPLS):
        last = last.payload
    if isinstance(last, (Ether, Dot1Q, Dot1AD)):
        last.type = ethertype


def _in_tunnel(tunnel: Tunnel, ip_packet: bytes, inner_ipv6: bool,
               address: StreamAddresses) -> tuple[bytes, int]:
    """The IP packet wrapped in the tunnel; returns it and its outer EtherType."""
    if isinstance(tunnel, Srv6):
        # H.Encaps: outer IPv6 to the first segment; the SRH lists them last first.
        segments = tunnel.segments
        srh = struct.pack("!BBBBBBH", IP_PROTO_IPV6 if inner_ipv6 else IP_PROTO_IPV4,
                          2 * len(segments), 4, len(segments) - 1, len(segments) - 1, 0, 0)
        srh += b"".join(_ipv6_bytes(s) for s in reversed(segments))
        srv6_outer = IPv6(src=tunnel.src_ip, dst=segments[0], nh=IP_PROTO_ROUTING,
                          hlim=address.ttl)
        return bytes(srv6_outer / Raw(srh + ip_packet)), ETHERTYPE_IPV6
    if isinstance(tunnel, Vxlan):
        inner_frame = Ether(src=tunnel.inner_src_mac, dst=tunnel.inner_dst_mac,
                            type=ETHERTYPE_IPV6 if inner_ipv6 else ETHERTYPE_IPV4)
        vxlan = struct.pack("!B3xI", 0x08, tunnel.vni << 8)
        carried = vxlan + bytes(inner_frame) + ip_packet
        dport = VXLAN_UDP_PORT
    else:
        carried = _gtpu_header(tunnel, len(ip_packet)) + ip_packet
        dport = GTPU_UDP_PORT
    udp = UDP(sport=tunnel.udp_src_port, dport=dport)
    outer: Packet
    if tunnel.outer_ipv6:
        outer = IPv6(src=tunnel.src_ip, dst=tunnel.dst_ip, hlim=address.ttl)
        return bytes(outer / udp / Raw(carried)), ETHERTYPE_IPV6
    outer = IP(src=tunnel.src_ip, dst=tunnel.dst_ip, ttl=address.ttl)
    return bytes(outer / udp / Raw(carried)), ETHERTYPE_IPV4


def _gtpu_header(tunnel: GtpU, payload_bytes: int) -> bytes:
    """GTPv1-U G-PDU header; with a QFI, the optional fields and a PDU Session
    Container (type 0x85, one 4-byte unit, UL PDU type 1)."""
    if tunnel.qfi is None:
        return struct.pack("!BBHI", 0x30, 0xFF, payload_bytes, tunnel.teid)
    extension = struct.pack("!BBBB", 1, 0x10, tunnel.qfi, 0)
    optional = struct.pack("!HBB", 0, 0, 0x85)
    length = len(optional) + len(extension) + payload_bytes
    return struct.pack("!BBHI", 0x34, 0xFF, length, tunnel.teid) + optional + extension


def _ipv6_bytes(address: str) -> bytes:
    return ipaddress.IPv6Address(address).packed


def offset_of_tester_header(encapsulation: Encapsulation) -> int:
    """Byte offset of the tester header in a frame."""
    return encapsulation.header_bytes
