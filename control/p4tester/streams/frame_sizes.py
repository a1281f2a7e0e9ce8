"""Frame-size facts of test frames, without scapy: header sizes per encapsulation,
the smallest frame that holds the tester header, and the size checks.

Frame size counts as RFC 2544 does: the Ethernet frame including its 4-byte FCS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p4tester.dataplane.constants import TESTER_HEADER_BYTES

# RFC 2544 section 9.1: the frame sizes of Ethernet benchmarks.
RFC2544_FRAME_SIZES: Final = (64, 128, 256, 512, 1024, 1280, 1518)
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
