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
    udp_src_port: int = 0xC020  # RFC 2544 appendix C test frames use 0xC020
    ttl: int = 64


ADDRESS_FIELDS: Final = tuple(StreamAddresses.__slots__)
