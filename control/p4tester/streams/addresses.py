"""Header fields of a stream's frames other than its size, with the lab defaults
(documentation ranges: RFC 5737 IPv4, RFC 3849 IPv6, locally administered MACs).
The Linux-router lab DUT is set up to route exactly these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

DEFAULT_SRC_MAC: Final = "02:00:00:00:00:01"
DEFAULT_DST_MAC: Final = "02:00:00:00:00:02"
DEFAULT_SRC_IP: Final = "192.0.2.1"
DEFAULT_DST_IP: Final = "198.51.100.1"


@dataclass(frozen=True, slots=True)
class StreamAddresses:
    src_mac: str = DEFAULT_SRC_MAC
    dst_mac: str = DEFAULT_DST_MAC
    src_ip: str = DEFAULT_SRC_IP
    dst_ip: str = DEFAULT_DST_IP
    src_ip6: str = "2001:db8::1"
    dst_ip6: str = "2001:db8:1::1"
    udp_src_port: int = 0xC020  # L4 (UDP or TCP) source port; RFC 2544 appendix C uses 0xC020
    l4_dst_port: int | None = None  # None: the tester's own port (TESTER_UDP_DST_PORT)
    ttl: int = 64
    dscp: int = 0        # IPv4 TOS / IPv6 traffic class, upper 6 bits
    flow_label: int = 0  # IPv6 only


ADDRESS_FIELDS: Final = tuple(StreamAddresses.__slots__)
