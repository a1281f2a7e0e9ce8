"""The tag the sender puts into a template before writing it into the generator
interface (p4src/psa/platform.p4, generator_tag_h): after the MAC addresses,
EtherType IPv4, then signature, stream, where the tester header is and the
template's own EtherType. Egress removes it."""

from __future__ import annotations

import struct

from p4tester.dataplane.constants import TESTER_SIGNATURE

GENERATOR_TAG_SIGNATURE = 0x5047
GENERATOR_TAG_BYTES = 8
_TAG = struct.Struct("!HHBBH")
_ETHERTYPE_IPV4 = 0x0800
_ETHERTYPE_IPV6 = 0x86DD
_VLAN_ETHERTYPES = (0x8100, 0x88A8)
_ETHERTYPE_MPLS = 0x8847
_IP_PROTO_UDP = 17
_IP_PROTO_TCP = 6
_MAX_TESTER_OFFSET = 127  # what the egress parser's chunks can carry after the tag


class TemplateError(ValueError):
    """A template the eBPF generator cannot send."""


def find_tester_header(frame: bytes) -> int:
    """Where the tester header starts: after Ethernet, VLAN tags, MPLS labels,
    IPv4 (no options) or IPv6, and UDP or TCP (no options), as the checker's
    parser walks them (no tunnels on this target)."""
    offset = 12
    ether_type = int.from_bytes(frame[offset:offset + 2], "big")
    offset += 2
    while ether_type in _VLAN_ETHERTYPES:
        ether_type = int.from_bytes(frame[offset + 2:offset + 4], "big")
        offset += 4
    if ether_type == _ETHERTYPE_MPLS:
        while offset + 4 <= len(frame):
            bottom = frame[offset + 2] & 1
            offset += 4
            if bottom:
                break
        ether_type = _ETHERTYPE_IPV4 if frame[offset] >> 4 == 4 else _ETHERTYPE_IPV6
    if ether_type == _ETHERTYPE_IPV4:
        if frame[offset] != 0x45:
            raise TemplateError("the eBPF generator sends IPv4 templates without options only")
        protocol = frame[offset + 9]
        offset += 20
    elif ether_type == _ETHERTYPE_IPV6:
        protocol = frame[offset + 6]
        offset += 40
    else:
        raise TemplateError(f"EtherType {ether_type:#06x}: a template is IPv4 or IPv6")
    if protocol == _IP_PROTO_UDP:
        offset += 8
    elif protocol == _IP_PROTO_TCP:
        offset += 20
    else:
        raise TemplateError(f"IP protocol {protocol}: the tester header rides on UDP or TCP "
                            "(tunnels are not walked on the eBPF target)")
    if int.from_bytes(frame[offset:offset + 2], "big") != TESTER_SIGNATURE:
        raise TemplateError(f"no tester header at byte {offset} of the template")
    return offset


def tag_template(frame: bytes, stream_id: int) -> bytes:
    """The template as the sender writes it into the generator interface."""
    offset = find_tester_header(frame)
    after_tag = offset - 14
    if after_tag > _MAX_TESTER_OFFSET or after_tag % 4:
        raise TemplateError(f"tester header at byte {offset}: the eBPF generator carries "
                            f"up to {_MAX_TESTER_OFFSET} bytes of headers, in 4-byte units")
    ether_type = int.from_bytes(frame[12:14], "big")
    tag = _TAG.pack(GENERATOR_TAG_SIGNATURE, stream_id, after_tag, 0, ether_type)
    return frame[:12] + _ETHERTYPE_IPV4.to_bytes(2, "big") + tag + frame[14:]
