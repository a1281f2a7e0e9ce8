"""A profile's `mesh` entry: one stream for every ordered pair of a set of ports, as
RFC 2889's fully and partially meshed tests, its congestion control test and a
learning switch need them.

    streams:
      - {mesh: [1, 2, 3, 4], id: 0}          # 12 streams, ids 0..11
      - {mesh: [1, 2, 3], id: 20, l4: tcp}   # other stream keys apply to each stream

Streams go in (TX port, RX port) order, ids from `id` up. A port's streams split its
load evenly (each has share 1/(N-1) of the entry's `share`, 1 by default), so every
port sends the same load spread evenly over all other ports. Each port sends from its
own MAC and IPv4 address and each stream goes to its RX port's, so a learning switch
learns every port from the frames it forwards and sends each stream to its RX port
only (RFC 2889 section 4: learning frames). The MACs are locally administered
02:89:00:00:00:NN and the addresses 192.0.2.NN and 198.51.100.NN (RFC 5737), with
NN the port. Each stream has its own L4 source port (from 0xC020 up), so a DUT that
spreads by flow sees as many flows as streams.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from p4tester.config.errors import ConfigError

MESH_MAC_PREFIX: Final = "02:89:00:00:00"
MESH_SRC_NET: Final = "192.0.2"
MESH_DST_NET: Final = "198.51.100"
FIRST_L4_SRC_PORT: Final = 0xC020
# Addresses end in the port number: .1 to .254 keep them plain host addresses.
MAX_MESH_PORT: Final = 254
# The keys a mesh entry sets on each stream itself.
_SET_BY_MESH: Final = ("tx_port", "rx_port", "src_mac", "dst_mac", "src_ip", "dst_ip",
                       "udp_src_port")


def port_mac(port: int) -> str:
    """The MAC a mesh stream sends from on TX port `port`, and goes to on RX port `port`."""
    return f"{MESH_MAC_PREFIX}:{port:02x}"


def mesh_stream_entries(entry: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
    """The plain stream entries (id, tx_port, rx_port, addresses, the entry's other
    keys) a `mesh` entry stands for; ConfigError naming the problem otherwise."""
    ports = entry["mesh"]
    if (not isinstance(ports, list) or len(ports) < 2
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in ports)):
        raise ConfigError(f"{where}: mesh: expected a list of at least two port numbers, "
                          f"e.g. mesh: [1, 2, 3, 4]")
    if len(set(ports)) != len(ports):
        raise ConfigError(f"{where}: mesh: ports {ports} name a port twice")
    outside = [p for p in ports if not 1 <= p <= MAX_MESH_PORT]
    if outside:
        raise ConfigError(f"{where}: mesh: port {outside[0]} is outside 1..{MAX_MESH_PORT}, "
                          "the ports a mesh gives addresses to")
    if "id" not in entry:
        raise ConfigError(f"{where}: mesh: give the first stream id, e.g. "
                          "{mesh: [1, 2, 3], id: 0}")
    clashing = sorted(key for key in entry if key in _SET_BY_MESH)
    if clashing:
        raise ConfigError(f"{where}: mesh: {', '.join(clashing)} are set by the mesh for each "
                          "pair of ports; drop them or list the streams one by one")
    if "imix" in entry:
        raise ConfigError(f"{where}: mesh: an imix entry cannot be meshed; give the mesh a "
                          "frame_size or none")
    common = {key: value for key, value in entry.items() if key not in ("mesh", "id", "share")}
    share = entry.get("share", 1.0)
    if not isinstance(share, int | float) or isinstance(share, bool) or not 0 < share <= 1:
        raise ConfigError(f"{where}: mesh: share {share!r} must be in (0, 1]: the part of "
                          "each port's load the mesh carries")
    first_id = entry["id"]
    if not isinstance(first_id, int) or isinstance(first_id, bool):
        raise ConfigError(f"{where}: mesh: id {first_id!r} must be a whole number")
    pairs = [(tx, rx) for tx in sorted(ports) for rx in sorted(ports) if tx != rx]
    return [
        {**common, "id": first_id + index, "share": share / (len(ports) - 1),
         "tx_port": tx, "rx_port": rx,
         "src_mac": port_mac(tx), "dst_mac": port_mac(rx),
         "src_ip": f"{MESH_SRC_NET}.{tx}", "dst_ip": f"{MESH_DST_NET}.{rx}",
         "udp_src_port": FIRST_L4_SRC_PORT + index}
        for index, (tx, rx) in enumerate(pairs)
    ]
