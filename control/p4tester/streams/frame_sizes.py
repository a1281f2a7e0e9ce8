"""Frame-size facts of test frames, without scapy: the encapsulation, its header sizes,
the smallest frame that holds the tester header, and the size checks.

Frame size counts as RFC 2544 does: the Ethernet frame including its 4-byte FCS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p4tester.dataplane.constants import TESTER_HEADER_BYTES
from p4tester.streams.tunnels import Tunnel
from p4tester.streams.tunnels import describe as describe_tunnel

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


MPLS_BYTES = 4
TCP_BYTES = 20
MPLS_MAX_LABELS = 4  # p4src/common/constants.p4


class EncapsulationError(ValueError):
    """Headers the tester cannot send or find its header behind."""


@dataclass(frozen=True, slots=True)
class Encapsulation:
    """The headers in front of the tester header, outermost first: Ethernet, an
    optional QinQ service tag and VLAN tag, an MPLS label stack, a tunnel (whose
    outer IP replaces the stream's at the top), the stream's IPv4 or IPv6, UDP or TCP."""

    ipv6: bool = False
    vlan_id: int | None = None
    outer_vlan_id: int | None = None  # 802.1ad service tag (QinQ), outside vlan_id
    mpls_labels: tuple[int, ...] = ()
    l4: str = "udp"
    tunnel: Tunnel | None = None

    def __post_init__(self) -> None:
        for name, vid in (("vlan_id", self.vlan_id), ("outer_vlan_id", self.outer_vlan_id)):
            if vid is not None and not 0 <= vid < 4096:
                raise EncapsulationError(f"{name} {vid} is outside 0..4095")
        if self.outer_vlan_id is not None and self.vlan_id is None:
            raise EncapsulationError("outer_vlan_id (QinQ) needs vlan_id, the inner tag")
        if len(self.mpls_labels) > MPLS_MAX_LABELS:
            raise EncapsulationError(f"{len(self.mpls_labels)} MPLS labels; the tester "
                                     f"parses at most {MPLS_MAX_LABELS}")
        for label in self.mpls_labels:
            if not 0 <= label < 1 << 20:
                raise EncapsulationError(f"MPLS label {label} is outside 0..1048575")
        if self.l4 not in ("udp", "tcp"):
            raise EncapsulationError(f"l4 {self.l4!r} must be 'udp' or 'tcp'")

    @property
    def header_bytes(self) -> int:
        """Bytes before the tester header."""
        tags = VLAN_BYTES * ((self.vlan_id is not None) + (self.outer_vlan_id is not None))
        tunnel = self.tunnel.header_bytes if self.tunnel is not None else 0
        l3 = IPV6_BYTES if self.ipv6 else IPV4_BYTES
        l4 = TCP_BYTES if self.l4 == "tcp" else UDP_BYTES
        return ETHERNET_BYTES + tags + MPLS_BYTES * len(self.mpls_labels) + tunnel + l3 + l4

    @property
    def min_frame_size(self) -> int:
        """Smallest frame (incl. FCS) that holds all headers and the tester header."""
        return max(MIN_ETHERNET_FRAME, self.header_bytes + TESTER_HEADER_BYTES + FCS_BYTES)

    def describe(self) -> str:
        parts = ["Ethernet"]
        if self.outer_vlan_id is not None:
            parts.append(f"QinQ {self.outer_vlan_id}")
        if self.vlan_id is not None:
            parts.append(f"VLAN {self.vlan_id}")
        if self.mpls_labels:
            parts.append("MPLS " + ",".join(str(label) for label in self.mpls_labels))
        if self.tunnel is not None:
            parts.append(describe_tunnel(self.tunnel))
        parts += ["IPv6" if self.ipv6 else "IPv4", self.l4.upper(), "tester"]
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
