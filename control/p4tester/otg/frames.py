"""OTG frames laid out as ixia-c lays them out, where that differs from the
tester's own templates.

VxLAN: ixia-c ends the inner Ethernet frame with 4 bytes where its FCS would be
(zeros here), so the inner IP packet is 4 bytes shorter than what follows the
inner Ethernet header, and the OTG conformance suite checks the inner IP lengths
that way. The tester's template fills the inner Ethernet frame with the IP packet
(RFC 7348 carries no inner FCS); `ixia_layout` takes its last 4 bytes (padding
behind the tester header) out of the inner IP packet: inner IP length fields 4
less, the inner IPv4 header checksum, the inner UDP length and the inner and
outer UDP / TCP checksums recomputed. Frame size and every offset stay; the
data plane's stamps are checksum-neutral and its VNI rewrite incremental, so
every copy stays valid.
"""

from __future__ import annotations

import struct
from typing import Final

from p4tester.dataplane.constants import TESTER_HEADER_BYTES
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.tunnels import Vxlan

INNER_FCS_BYTES: Final = 4
_IPV4: Final = 20
_IPV6: Final = 40
_UDP: Final = 8
_TCP: Final = 20
_PROTO_UDP: Final = 17
_PROTO_TCP: Final = 6


def _sum16(data: bytes) -> int:
    if len(data) % 2:
        data += b"\x00"
    total: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def _checksum(data: bytes) -> int:
    return ~_sum16(data) & 0xFFFF


def _l4_checksum(frame: bytearray, ip_at: int, ipv6: bool, l4_at: int, end: int,
                 proto: int) -> None:
    """The UDP or TCP checksum at l4_at over frame[l4_at:end] and the pseudo header
    of the IP header at ip_at (UDP: 0 is sent as 0xFFFF)."""
    field = l4_at + (6 if proto == _PROTO_UDP else 16)
    frame[field:field + 2] = b"\x00\x00"
    length = end - l4_at
    if ipv6:
        pseudo = bytes(frame[ip_at + 8:ip_at + 40]) + struct.pack("!IxxxB", length, proto)
    else:
        pseudo = bytes(frame[ip_at + 12:ip_at + 20]) + struct.pack("!xBH", proto, length)
    value = _checksum(pseudo + bytes(frame[l4_at:end]))
    if proto == _PROTO_UDP and value == 0:
        value = 0xFFFF
    frame[field:field + 2] = struct.pack("!H", value)


def ixia_layout(template: bytes, encapsulation: Encapsulation) -> bytes:
    """The template with ixia-c's inner FCS slot in a VxLAN frame; other frames,
    and VxLAN frames too small to spare 4 bytes of padding, unchanged."""
    tunnel = encapsulation.tunnel
    padding = len(template) - encapsulation.header_bytes - TESTER_HEADER_BYTES
    if not isinstance(tunnel, Vxlan) or padding < INNER_FCS_BYTES:
        return template
    frame = bytearray(template)
    end = len(frame) - INNER_FCS_BYTES
    if any(frame[end:]):
        raise AssertionError("the template's last 4 bytes are not padding")
    l4 = _TCP if encapsulation.l4 == "tcp" else _UDP
    inner_ip = encapsulation.header_bytes - l4 - (_IPV6 if encapsulation.ipv6 else _IPV4)
    inner_l4 = inner_ip + (_IPV6 if encapsulation.ipv6 else _IPV4)
    if encapsulation.ipv6:
        frame[inner_ip + 4:inner_ip + 6] = struct.pack("!H", end - inner_l4)
    else:
        frame[inner_ip + 2:inner_ip + 4] = struct.pack("!H", end - inner_ip)
        frame[inner_ip + 10:inner_ip + 12] = b"\x00\x00"
        frame[inner_ip + 10:inner_ip + 12] = struct.pack(
            "!H", _checksum(bytes(frame[inner_ip:inner_ip + _IPV4])))
    if encapsulation.l4 == "udp":
        frame[inner_l4 + 4:inner_l4 + 6] = struct.pack("!H", end - inner_l4)
    proto = _PROTO_TCP if encapsulation.l4 == "tcp" else _PROTO_UDP
    _l4_checksum(frame, inner_ip, encapsulation.ipv6, inner_l4, end, proto)
    outer_ip = inner_ip - tunnel.header_bytes
    outer_udp = outer_ip + (_IPV6 if tunnel.outer_ipv6 else _IPV4)
    _l4_checksum(frame, outer_ip, tunnel.outer_ipv6, outer_udp, len(frame), _PROTO_UDP)
    return bytes(frame)
