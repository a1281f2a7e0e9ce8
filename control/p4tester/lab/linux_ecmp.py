"""ECMP on the `linux` DUT (lab.linux_dut): the router spreads the streams over several
egress ports, each frame out of one of them, chosen by a hash of its addresses and L4
ports (a multipath route, as a router with equal- or weighted-cost paths does). A
stream whose L4 source port varies frame by frame (`vary: {src_port: ...}`) spreads,
each flow on one path; the weights set the share of flows each path gets.

    dut: {kind: linux, ingress: 1, ecmp: "2:1,3:3"}    # DUT port:weight, ...
    dut: {kind: linux, ingress: 1, ecmp: "2,3", ecmp_hash: l3}   # addresses only

Each egress port is a link of its own (10.99.<port>.254/24), the tester's end of it a
static neighbour with the tester's RX MAC, and the streams' destination network is
routed over the paths. Static neighbours only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from p4tester.lab.ifaces import dut_iface

# A path's link: the router's address on it, and the tester's (its next hop).
PATH_NET: Final = "10.99.{port}.254/24"
PATH_NEXT_HOP: Final = "10.99.{port}.1"
# The kernel's fib_multipath_hash_policy (ip-sysctl) per `ecmp_hash`: l4 hashes source
# and destination address, protocol and L4 ports (1); l3 the addresses alone (0), so
# only a stream whose addresses vary spreads. A fixed seed makes the spread the same
# each time the lab comes up (fib_multipath_hash_seed, Linux 6.11+).
HASH_POLICIES: Final = {"l4": "1", "l3": "0"}
HASH_SEED: Final = "1"


def route_over_paths(ns: Callable[..., None], network: str, mac: str,
                     paths: tuple[tuple[int, int], ...], hash_kind: str = "l4") -> None:
    """Each path's link up with its address and the tester's end as a static neighbour
    (`mac`), then `network` routed over them by an L4 (or L3) hash."""
    hops = []
    for port, weight in paths:
        iface = dut_iface(port)
        ns("ip", "link", "set", iface, "up")
        ns("ip", "addr", "add", PATH_NET.format(port=port), "dev", iface)
        ns("ip", "neigh", "replace", PATH_NEXT_HOP.format(port=port), "lladdr", mac,
           "dev", iface, "nud", "permanent")
        hops += ["nexthop", "via", PATH_NEXT_HOP.format(port=port), "dev", iface,
                 "weight", str(weight)]
    ns("sysctl", "-qw", f"net.ipv4.fib_multipath_hash_policy={HASH_POLICIES[hash_kind]}")
    ns("sysctl", "-qw", f"net.ipv4.fib_multipath_hash_seed={HASH_SEED}")
    ns("ip", "route", "replace", network, *hops)
