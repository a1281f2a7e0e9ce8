"""Caps how many addresses a Linux bridge learns (IFLA_BR_FDB_MAX_LEARNED, Linux 6.8+):
a learning switch with an address cache of known size, for RFC 2889's address caching
capacity. A full bridge learns no new address and floods frames to the ones it did not
learn. Set over rtnetlink because Debian 12's iproute2 (6.1) does not know the option;
run inside the bridge's namespace (`ip netns exec NS python -m p4tester.lab.
bridge_fdb_limit BRIDGE LIMIT`: a netlink socket talks to its own namespace)."""

from __future__ import annotations

import errno
import socket
import struct
import sys
from typing import Final

RTM_NEWLINK: Final = 16
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLMSG_ERROR: Final = 2
IFLA_LINKINFO, IFLA_INFO_KIND, IFLA_INFO_DATA = 18, 1, 2
IFLA_BR_FDB_MAX_LEARNED: Final = 49  # include/uapi/linux/if_link.h
NLA_F_NESTED: Final = 0x8000


class FdbLimitError(RuntimeError):
    pass


def _attribute(kind: int, payload: bytes) -> bytes:
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def limit_request(ifindex: int, limit: int, sequence: int = 1) -> bytes:
    """RTM_NEWLINK for an existing bridge: linkinfo {kind bridge, data {max learned}}."""
    data = _attribute(IFLA_BR_FDB_MAX_LEARNED, struct.pack("=I", limit))
    info = _attribute(IFLA_INFO_KIND, b"bridge\0") + _attribute(IFLA_INFO_DATA | NLA_F_NESTED,
                                                                   data)
    body = (struct.pack("=BxHiII", socket.AF_UNSPEC, 0, ifindex, 0, 0)
            + _attribute(IFLA_LINKINFO | NLA_F_NESTED, info))
    return struct.pack("=IHHII", 16 + len(body), RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK,
                       sequence, 0) + body


def set_fdb_max_learned(bridge: str, limit: int) -> None:
    if not 0 <= limit < 1 << 32:
        raise FdbLimitError(f"fdb_max_learned {limit} must be in 0..{(1 << 32) - 1}")
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as sock:
        sock.settimeout(5.0)
        sock.send(limit_request(socket.if_nametoindex(bridge), limit))
        reply = sock.recv(4096)
    kind = struct.unpack_from("=H", reply, 4)[0]
    error = struct.unpack_from("=i", reply, 16)[0] if kind == NLMSG_ERROR else 0
    if error:
        raise FdbLimitError(f"{bridge}: setting fdb_max_learned {limit} failed: "
                            f"{-error} ({errno.errorcode.get(-error, '?')}); the "
                            "kernel needs Linux 6.8 or later for it")


if __name__ == "__main__":
    try:
        set_fdb_max_learned(sys.argv[1], int(sys.argv[2]))
    except (FdbLimitError, OSError, IndexError, ValueError) as exc:
        sys.exit(f"bridge_fdb_limit: {exc}")
