"""ARP (RFC 826) and IPv6 Neighbor Discovery (RFC 4861) frames, built and read as
bytes: an ARP request and a Neighbor Solicitation for a gateway, and the gateway's
MAC out of its ARP reply or Neighbor Advertisement. 802.1Q / 802.1AD tags are
written (one, the port's VLAN) and skipped when reading."""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass
from typing import Final

ETHERTYPE_IPV4: Final = 0x0800
ETHERTYPE_ARP: Final = 0x0806
ETHERTYPE_IPV6: Final = 0x86DD
ETHERTYPE_VLAN: Final = 0x8100
ETHERTYPE_QINQ: Final = 0x88A8
ARP_HTYPE_ETHERNET: Final = 1
ARP_OP_REQUEST: Final = 1
ARP_OP_REPLY: Final = 2
IPPROTO_ICMPV6: Final = 58
ICMPV6_NS: Final = 135
ICMPV6_NA: Final = 136
ND_OPT_SOURCE_LLADDR: Final = 1
ND_OPT_TARGET_LLADDR: Final = 2
ND_HOP_LIMIT: Final = 255  # RFC 4861 7.1.1: a receiver drops ND with any other
BROADCAST_MAC: Final = "ff:ff:ff:ff:ff:ff"
MIN_FRAME_BYTES: Final = 60  # Ethernet minimum without FCS; shorter frames are padded
ETH_HEADER_BYTES: Final = 14
VLAN_TAG_BYTES: Final = 4
ARP_BYTES: Final = 28
IPV6_HEADER_BYTES: Final = 40
NS_BYTES: Final = 24  # type, code, checksum, reserved, target
ND_OPTION_UNIT: Final = 8  # ND option lengths count 8-byte units
NA_FLAG_OVERRIDE: Final = 0x20000000  # R S O flags, then 29 reserved bits
ALL_NODES: Final = "ff02::1"


def mac_bytes(mac: str) -> bytes:
    return bytes.fromhex(mac.replace(":", ""))


def mac_text(raw: bytes) -> str:
    return ":".join(f"{b:02x}" for b in raw)


def solicited_node(address: str) -> ipaddress.IPv6Address:
    """ff02::1:ffXX:XXXX, the multicast group a solicitation for `address` goes to."""
    low = int(ipaddress.IPv6Address(address)) & 0xFFFFFF
    return ipaddress.IPv6Address(int(ipaddress.IPv6Address("ff02::1:ff00:0")) | low)


def multicast_mac(group: ipaddress.IPv6Address) -> str:
    """RFC 2464 7: 33:33 and the group's last 32 bits."""
    return mac_text(b"\x33\x33" + group.packed[-4:])


def _ethernet(dst: str, src: str, ethertype: int, vlan: int | None) -> bytes:
    tag = b"" if vlan is None else struct.pack("!HH", ETHERTYPE_VLAN, vlan)
    return mac_bytes(dst) + mac_bytes(src) + tag + struct.pack("!H", ethertype)


def _pad(frame: bytes) -> bytes:
    return frame + bytes(max(0, MIN_FRAME_BYTES - len(frame)))


def arp_request(src_mac: str, src_ip: str, target_ip: str, vlan: int | None = None) -> bytes:
    """Broadcast who-has target_ip, tell src_ip (src_mac)."""
    arp = struct.pack("!HHBBH6s4s6s4s", ARP_HTYPE_ETHERNET, ETHERTYPE_IPV4, 6, 4,
                      ARP_OP_REQUEST, mac_bytes(src_mac),
                      ipaddress.IPv4Address(src_ip).packed, bytes(6),
                      ipaddress.IPv4Address(target_ip).packed)
    return _pad(_ethernet(BROADCAST_MAC, src_mac, ETHERTYPE_ARP, vlan) + arp)


def icmpv6_checksum(src: ipaddress.IPv6Address, dst: ipaddress.IPv6Address,
                    message: bytes) -> int:
    """RFC 4443 2.3: ones' complement sum over the pseudo-header and the message."""
    data = src.packed + dst.packed + struct.pack("!I3xB", len(message), IPPROTO_ICMPV6) + message
    if len(data) % 2:
        data += b"\x00"
    total = sum(int(word) for word in struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def neighbor_solicitation(src_mac: str, src_ip6: str, target_ip6: str,
                          vlan: int | None = None) -> bytes:
    """A multicast NS for target_ip6 from src_ip6, with the source link-layer address
    option (so the target can answer without asking back)."""
    src = ipaddress.IPv6Address(src_ip6)
    group = solicited_node(target_ip6)
    option = struct.pack("!BB6s", ND_OPT_SOURCE_LLADDR, 1, mac_bytes(src_mac))
    body = struct.pack("!BBHI16s", ICMPV6_NS, 0, 0, 0,
                       ipaddress.IPv6Address(target_ip6).packed) + option
    checksum = icmpv6_checksum(src, group, body)
    body = body[:2] + struct.pack("!H", checksum) + body[4:]
    ipv6 = struct.pack("!IHBB16s16s", 6 << 28, len(body), IPPROTO_ICMPV6, ND_HOP_LIMIT,
                       src.packed, group.packed)
    return _pad(_ethernet(multicast_mac(group), src_mac, ETHERTYPE_IPV6, vlan) + ipv6 + body)


def gratuitous_arp(src_mac: str, src_ip: str, vlan: int | None = None) -> bytes:
    """An ARP announcement (RFC 5227 2.3): a broadcast request with sender and target
    both src_ip, so neighbours that know src_ip refresh it to src_mac."""
    return arp_request(src_mac, src_ip, src_ip, vlan)


def unsolicited_na(src_mac: str, src_ip6: str, vlan: int | None = None) -> bytes:
    """An unsolicited Neighbor Advertisement (RFC 4861 7.2.6) to all nodes (ff02::1):
    Override set, Solicited clear, the target link-layer address option."""
    src = ipaddress.IPv6Address(src_ip6)
    all_nodes = ipaddress.IPv6Address(ALL_NODES)
    option = struct.pack("!BB6s", ND_OPT_TARGET_LLADDR, 1, mac_bytes(src_mac))
    body = struct.pack("!BBHI16s", ICMPV6_NA, 0, 0, NA_FLAG_OVERRIDE, src.packed) + option
    checksum = icmpv6_checksum(src, all_nodes, body)
    body = body[:2] + struct.pack("!H", checksum) + body[4:]
    ipv6 = struct.pack("!IHBB16s16s", 6 << 28, len(body), IPPROTO_ICMPV6, ND_HOP_LIMIT,
                       src.packed, all_nodes.packed)
    return _pad(_ethernet(multicast_mac(all_nodes), src_mac, ETHERTYPE_IPV6, vlan) + ipv6
                + body)


@dataclass(frozen=True, slots=True)
class NeighborAnswer:
    """A neighbour's address and MAC, out of an ARP reply or a Neighbor Advertisement."""

    ip: str
    mac: str


def _payload(frame: bytes) -> tuple[int, bytes, bytes]:
    """(ethertype, source MAC, payload) past any VLAN tags."""
    if len(frame) < ETH_HEADER_BYTES:
        return 0, b"", b""
    offset = 12
    (ethertype,) = struct.unpack_from("!H", frame, offset)
    while ethertype in (ETHERTYPE_VLAN, ETHERTYPE_QINQ) and len(frame) >= offset + 6:
        offset += VLAN_TAG_BYTES
        (ethertype,) = struct.unpack_from("!H", frame, offset)
    return ethertype, frame[6:12], frame[offset + 2:]


def parse_answer(frame: bytes) -> NeighborAnswer | None:
    """The sender of an ARP reply or a Neighbor Advertisement; None for any other frame."""
    ethertype, eth_src, payload = _payload(frame)
    if ethertype == ETHERTYPE_ARP and len(payload) >= ARP_BYTES:
        htype, ptype, hlen, plen, op, sha, spa = struct.unpack_from("!HHBBH6s4s", payload)
        if (htype, ptype, hlen, plen, op) != (ARP_HTYPE_ETHERNET, ETHERTYPE_IPV4, 6, 4,
                                              ARP_OP_REPLY):
            return None
        return NeighborAnswer(str(ipaddress.IPv4Address(spa)), mac_text(sha))
    if ethertype != ETHERTYPE_IPV6 or len(payload) < IPV6_HEADER_BYTES + NS_BYTES:
        return None
    if payload[6] != IPPROTO_ICMPV6 or payload[IPV6_HEADER_BYTES] != ICMPV6_NA:
        return None
    icmp = payload[IPV6_HEADER_BYTES:]
    target = ipaddress.IPv6Address(icmp[8:24])
    mac = eth_src
    options = icmp[NS_BYTES:]
    while len(options) >= 2 and options[1]:
        size = options[1] * ND_OPTION_UNIT
        if options[0] == ND_OPT_TARGET_LLADDR and len(options) >= 8:
            mac = options[2:8]
            break
        options = options[size:]
    return NeighborAnswer(str(target), mac_text(mac))
