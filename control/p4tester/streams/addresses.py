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
    # TCP streams (l4: tcp) only: the flags (scapy's letters: A an established flow's
    # segment, S a SYN, PA data ...) and the sequence and acknowledgment numbers every
    # frame carries unless they vary (vary: tcp_seq, tcp_ack).
    tcp_flags: str = "A"
    tcp_seq: int = 0
    tcp_ack: int = 0


ADDRESS_FIELDS: Final = tuple(StreamAddresses.__slots__)


# The TCP flags scapy's letters name (FIN, SYN, RST, PSH, ACK, URG, ECE, CWR, NS).
TCP_FLAG_LETTERS: Final = "FSRPAUECN"


class TcpHeaderError(ValueError):
    """TCP header fields a stream cannot carry."""


def check_tcp_header(addresses: StreamAddresses, l4: str) -> None:
    """The TCP fields: valid, and set only on a TCP stream."""
    default = StreamAddresses()
    given = [name for name in ("tcp_flags", "tcp_seq", "tcp_ack")
             if getattr(addresses, name) != getattr(default, name)]
    if given and l4 != "tcp":
        raise TcpHeaderError(f"{', '.join(given)}: TCP header fields; give the stream "
                             "l4: tcp")
    flags = addresses.tcp_flags
    if not isinstance(flags, str) or not flags or any(c not in TCP_FLAG_LETTERS for c in flags):
        raise TcpHeaderError(f"tcp_flags {flags!r}: give letters of {TCP_FLAG_LETTERS} "
                             "(A: ACK, S: SYN, PA: PSH+ACK, ...)")
    for name in ("tcp_seq", "tcp_ack"):
        value = getattr(addresses, name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 32:
            raise TcpHeaderError(f"{name} {value!r}: a whole number 0..4294967295")
