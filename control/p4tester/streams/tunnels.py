"""Tunnels a stream's frames can ride in: VxLAN, GTP-U and SRv6.

The tester's own IP, UDP/TCP and tester header travel inside; the data plane
finds them there (p4src/common/frame_parser.p4), so a DUT may add or remove the
tunnel on the way (a VxLAN gateway, a UPF, an SRv6 end point).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Final

VXLAN_UDP_PORT: Final = 4789
GTPU_UDP_PORT: Final = 2152
# Outer UDP source port of VxLAN and GTP-U frames (RFC 7348 suggests a hash of
# the inner flow; one fixed value keeps a stream on one path).
TUNNEL_UDP_SRC_PORT: Final = 49152
SRV6_MAX_SEGMENTS: Final = 4  # p4src/common/constants.p4 SRH_MAX_SEGMENTS
# Inner Ethernet addresses of VxLAN frames unless a stream names its own; the lab's
# VxLAN end point (lab.linux_dut, vxlan_vni) answers to the destination.
VXLAN_INNER_SRC_MAC: Final = "02:00:00:00:01:01"
VXLAN_INNER_DST_MAC: Final = "02:00:00:00:01:02"


class TunnelError(ValueError):
    """A tunnel the tester cannot send or parse."""


def _is_ipv6(address: str, what: str) -> bool:
    try:
        return ipaddress.ip_address(address).version == 6
    except ValueError:
        raise TunnelError(f"{what} {address!r} is not an IPv4 or IPv6 address") from None


@dataclass(frozen=True, slots=True)
class Vxlan:
    """RFC 7348: outer IP/UDP to port 4789, VxLAN header, inner Ethernet."""

    vni: int
    src_ip: str
    dst_ip: str
    inner_src_mac: str = VXLAN_INNER_SRC_MAC
    inner_dst_mac: str = VXLAN_INNER_DST_MAC
    udp_src_port: int = TUNNEL_UDP_SRC_PORT

    def __post_init__(self) -> None:
        if not 0 <= self.vni < 1 << 24:
            raise TunnelError(f"vxlan: vni {self.vni} is outside 0..16777215")
        if not 0 <= self.udp_src_port <= 0xFFFF:
            raise TunnelError(f"vxlan: udp_src_port {self.udp_src_port} is not a port")
        _check_pair(self.src_ip, self.dst_ip, "vxlan")

    @property
    def outer_ipv6(self) -> bool:
        return _is_ipv6(self.src_ip, "vxlan: src_ip")

    @property
    def header_bytes(self) -> int:
        """Outer IP + UDP + VxLAN + inner Ethernet."""
        return (40 if self.outer_ipv6 else 20) + 8 + 8 + 14


@dataclass(frozen=True, slots=True)
class GtpU:
    """3GPP TS 29.281 G-PDU: outer IP/UDP to port 2152, GTP-U header, inner IP.
    With `qfi` set, a PDU Session Container extension header carries it (5G N3)."""

    teid: int
    src_ip: str
    dst_ip: str
    qfi: int | None = None
    udp_src_port: int = TUNNEL_UDP_SRC_PORT

    def __post_init__(self) -> None:
        if not 0 <= self.teid < 1 << 32:
            raise TunnelError(f"gtpu: teid {self.teid} is outside 0..4294967295")
        if not 0 <= self.udp_src_port <= 0xFFFF:
            raise TunnelError(f"gtpu: udp_src_port {self.udp_src_port} is not a port")
        if self.qfi is not None and not 0 <= self.qfi < 64:
            raise TunnelError(f"gtpu: qfi {self.qfi} is outside 0..63")
        _check_pair(self.src_ip, self.dst_ip, "gtpu")

    @property
    def outer_ipv6(self) -> bool:
        return _is_ipv6(self.src_ip, "gtpu: src_ip")

    @property
    def header_bytes(self) -> int:
        extension = 8 if self.qfi is not None else 0  # optional fields + one extension
        return (40 if self.outer_ipv6 else 20) + 8 + 8 + extension


@dataclass(frozen=True, slots=True)
class Srv6:
    """RFC 8754 encapsulation: outer IPv6 to the first segment, an SRH listing
    `segments` (in the order they are visited), the inner IP packet."""

    src_ip: str
    segments: tuple[str, ...]

    def __post_init__(self) -> None:
        if not 1 <= len(self.segments) <= SRV6_MAX_SEGMENTS:
            raise TunnelError(f"srv6: {len(self.segments)} segments; the tester parses "
                              f"1..{SRV6_MAX_SEGMENTS}")
        if not _is_ipv6(self.src_ip, "srv6: src_ip"):
            raise TunnelError(f"srv6: src_ip {self.src_ip} must be IPv6")
        for segment in self.segments:
            if not _is_ipv6(segment, "srv6: segment"):
                raise TunnelError(f"srv6: segment {segment} must be IPv6")

    @property
    def outer_ipv6(self) -> bool:
        return True

    @property
    def header_bytes(self) -> int:
        return 40 + 8 + 16 * len(self.segments)


Tunnel = Vxlan | GtpU | Srv6


def _check_pair(src: str, dst: str, what: str) -> None:
    if _is_ipv6(src, f"{what}: src_ip") != _is_ipv6(dst, f"{what}: dst_ip"):
        raise TunnelError(f"{what}: src_ip {src} and dst_ip {dst} are not the same IP version")


def describe(tunnel: Tunnel) -> str:
    outer = "IPv6" if tunnel.outer_ipv6 else "IPv4"
    if isinstance(tunnel, Vxlan):
        return f"{outer}/UDP/VxLAN {tunnel.vni}/Ethernet"
    if isinstance(tunnel, GtpU):
        extension = f" QFI {tunnel.qfi}" if tunnel.qfi is not None else ""
        return f"{outer}/UDP/GTP-U {tunnel.teid:#x}{extension}"
    return f"IPv6/SRH {len(tunnel.segments)} segments"
