"""ECMP on the `linux` DUT (lab.linux_dut): the router spreads the streams over several
egress ports, each frame out of one of them, chosen by a hash of its addresses and L4
ports (a multipath route, as a router with equal- or weighted-cost paths does). A
stream whose L4 source port varies frame by frame (`vary: {src_port: ...}`) spreads,
each flow on one path; the weights set the share of flows each path gets.

    dut: {kind: linux, ingress: 1, ecmp: "2:1,3:3"}    # DUT port:weight, ...

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
# Hash on source and destination address, protocol and L4 ports (kernel ip-sysctl:
# fib_multipath_hash_policy 1), with a fixed seed so the spread is the same each time
# the lab comes up (fib_multipath_hash_seed, Linux 6.11+).
L4_HASH_POLICY: Final = "1"
HASH_SEED: Final = "1"


def route_over_paths(ns: Callable[..., None], network: str, mac: str,
                     paths: tuple[tuple[int, int], ...]) -> None:
    """Each path's link up with its address and the tester's end as a static neighbour
    (`mac`), then `network` routed over them by an L4 hash."""
    hops = []
    for port, weight in paths:
        iface = dut_iface(port)
        ns("ip", "link", "set", iface, "up")
        ns("ip", "addr", "add", PATH_NET.format(port=port), "dev", iface)
        ns("ip", "neigh", "replace", PATH_NEXT_HOP.format(port=port), "lladdr", mac,
           "dev", iface, "nud", "permanent")
        hops += ["nexthop", "via", PATH_NEXT_HOP.format(port=port), "dev", iface,
                 "weight", str(weight)]
    ns("sysctl", "-qw", f"net.ipv4.fib_multipath_hash_policy={L4_HASH_POLICY}")
    ns("sysctl", "-qw", f"net.ipv4.fib_multipath_hash_seed={HASH_SEED}")
    ns("ip", "route", "replace", network, *hops)
