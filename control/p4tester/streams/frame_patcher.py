"""A stream's template with other field values written in: what a tester whose data
path cannot rewrite fields (the eBPF target: its sender writes whole frames) sends
for each flow of a varying stream. Checksums are updated as the data plane's would
be: the IPv4 header's recomputed, the L4 one updated for every changed word it
covers (RFC 1624, eqn. 3), so one template built by scapy serves every flow.

Untunnelled frames only (Ethernet, up to two VLAN tags, MPLS labels, IPv4 or IPv6,
UDP or TCP): the eBPF tester sends no tunnels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p4tester.streams.frame_sizes import Encapsulation

ETHERNET_BYTES: Final = 14
TAG_BYTES: Final = 4
IPV4_BYTES: Final = 20
IPV6_BYTES: Final = 40


def _fold(total: int) -> int:
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def _sum16(data: bytes) -> int:
    """Ones'-complement sum of 16-bit big-endian words (even length)."""
    return _fold(sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)))


@dataclass(frozen=True, slots=True)
class FrameLayout:
    """Where a template's fields are."""

    ip: int
    ipv6: bool
    l4: int
    tcp: bool
    tags: int  # VLAN tags: 2 is QinQ (the outer first)

    @classmethod
    def of(cls, encapsulation: Encapsulation) -> FrameLayout:
        if encapsulation.tunnel is not None:
            raise ValueError("the frame patcher writes untunnelled frames only")
        tags = (encapsulation.vlan_id is not None) + (encapsulation.outer_vlan_id is not None)
        ip = ETHERNET_BYTES + TAG_BYTES * tags + 4 * len(encapsulation.mpls_labels)
        l4 = ip + (IPV6_BYTES if encapsulation.ipv6 else IPV4_BYTES)
        return cls(ip, encapsulation.ipv6, l4, encapsulation.l4 == "tcp", tags)

    def spans(self, field: str) -> tuple[int, int, bool]:
        """(offset, bytes, in the L4 checksum) of a field of whole bytes."""
        ip, l4 = self.ip, self.l4
        places = {
            "src_mac": (6, 6, False), "dst_mac": (0, 6, False),
            "src_port": (l4, 2, True), "dst_port": (l4 + 2, 2, True),
            "tcp_seq": (l4 + 4, 4, True), "tcp_ack": (l4 + 8, 4, True),
            "src_ip": (ip + 12, 4, True), "dst_ip": (ip + 16, 4, True),
            # An IPv6 address's low 64 bits.
            "src_ip6": (ip + 16, 8, True), "dst_ip6": (ip + 32, 8, True),
        }
        return places[field]


def patched(template: bytes, layout: FrameLayout, values: dict[str, int]) -> bytes:
    """The template with `values` (field -> number) written in, checksums right."""
    frame = bytearray(template)
    old_words = new_words = 0
    ipv4_changed = False
    for field, value in values.items():
        if field == "dscp":
            at = layout.ip + (0 if layout.ipv6 else 1)
            if layout.ipv6:  # traffic class: bits 4..11 of the first 16
                word = int.from_bytes(frame[at:at + 2], "big")
                traffic_class = (word >> 4) & 0xFF
                word = (word & 0xF00F) | (((value << 2) | (traffic_class & 3)) << 4)
                frame[at:at + 2] = word.to_bytes(2, "big")
            else:
                frame[at] = (value << 2) | (frame[at] & 3)
                ipv4_changed = True
            continue
        if field in ("vlan", "outer_vlan"):
            # The outer tag (QinQ) comes first; a single tag is `vlan`.
            index = 0 if field == "outer_vlan" or layout.tags == 1 else 1
            at = ETHERNET_BYTES + TAG_BYTES * index  # the tag's TCI: PCP, DEI, id
            word = int.from_bytes(frame[at:at + 2], "big")
            frame[at:at + 2] = ((word & 0xF000) | value).to_bytes(2, "big")
            continue
        at, size, in_l4 = layout.spans(field)
        new = value.to_bytes(size, "big")
        if in_l4:
            old_words += _sum16(bytes(frame[at:at + size]))
            new_words += _sum16(new)
        frame[at:at + size] = new
        ipv4_changed |= field in ("src_ip", "dst_ip")
    if ipv4_changed:
        header = layout.ip
        frame[header + 10:header + 12] = b"\0\0"
        frame[header + 10:header + 12] = (
            ~_sum16(bytes(frame[header:header + IPV4_BYTES])) & 0xFFFF).to_bytes(2, "big")
    if new_words or old_words:
        at = layout.l4 + (16 if layout.tcp else 6)
        checksum = int.from_bytes(frame[at:at + 2], "big")
        if layout.tcp or checksum:  # a UDP checksum of 0 (none) stays none
            total = _fold((~checksum & 0xFFFF) + (~_fold(old_words) & 0xFFFF)
                          + _fold(new_words))
            updated = ~total & 0xFFFF
            frame[at:at + 2] = (0xFFFF if updated == 0 and not layout.tcp else updated
                                ).to_bytes(2, "big")
    return bytes(frame)
