"""The `linux` DUT: a router in a network namespace, impairments by tc.

Topology settings (dut: {kind: linux, ...}), defaults matching the stream
defaults of profiles (192.0.2.1 -> 198.51.100.1, dst MAC 02:00:00:00:00:02):

    ingress: 1            DUT port the test traffic enters (cabled to a tester TX port)
    egress: 2             DUT port it leaves by (cabled to a tester RX port)
    qdisc: "netem delay 5ms loss 1%"   tc qdisc on the egress port (optional)

The router answers for the streams' gateway MAC on its ingress port, has static
neighbour entries for the tester (no ARP on the test wires), and decrements TTL,
so a TTL-1 stream makes ICMP time-exceeded replies (seed 002's exception path).
"""

from __future__ import annotations

import shlex

from p4tester.config.topology import Topology
from p4tester.lab import netdev
from p4tester.lab.ifaces import dut_iface
from p4tester.streams.addresses import (
    DEFAULT_DST_IP,
    DEFAULT_DST_MAC,
    DEFAULT_SRC_IP,
    DEFAULT_SRC_MAC,
)

NAMESPACE = f"{netdev.NETNS_PREFIX}dut"
INGRESS_MAC = DEFAULT_DST_MAC  # the router is the streams' next hop
TESTER_TX_MAC = DEFAULT_SRC_MAC
TESTER_RX_MAC = "02:00:00:00:00:03"
INGRESS_NET = ("192.0.2.254/24", DEFAULT_SRC_IP)
EGRESS_NET = ("198.51.100.254/24", DEFAULT_DST_IP)


def start_linux_dut(topology: Topology) -> str:
    settings = dict(topology.dut.settings)
    ingress = dut_iface(int(settings.get("ingress", "1")))
    egress = dut_iface(int(settings.get("egress", "2")))
    netdev.add_netns(NAMESPACE)
    for iface in (ingress, egress):
        netdev.run(["ip", "link", "set", iface, "netns", NAMESPACE])

    def ns(*args: str) -> None:
        netdev.run(list(args), netns=NAMESPACE)

    # IPv6 off: its link-local chatter (DAD, router solicitations, MLD) would reach
    # the tester as foreign frames that no stream sent.
    ns("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
    ns("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
    for iface in (ingress, egress):
        ns("sysctl", "-qw", f"net.ipv6.conf.{iface}.disable_ipv6=1")
    ns("ip", "link", "set", ingress, "address", INGRESS_MAC)
    for iface, (address, _peer) in ((ingress, INGRESS_NET), (egress, EGRESS_NET)):
        ns("ip", "link", "set", iface, "up")
        ns("ip", "addr", "add", address, "dev", iface)
    ns("ip", "neigh", "replace", INGRESS_NET[1], "lladdr", TESTER_TX_MAC, "dev", ingress,
       "nud", "permanent")
    ns("ip", "neigh", "replace", EGRESS_NET[1], "lladdr", TESTER_RX_MAC, "dev", egress,
       "nud", "permanent")
    ns("sysctl", "-qw", "net.ipv4.ip_forward=1")
    # Replies and forwarded frames must not be held back by reverse-path checks or
    # rate-limited ICMP (seed 002 measures the slow path, not the kernel's limiter).
    ns("sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0")
    ns("sysctl", "-qw", "net.ipv4.icmp_ratelimit=0")
    if "qdisc" in settings:
        ns("tc", "qdisc", "replace", "dev", egress, "root", *shlex.split(settings["qdisc"]))
    return NAMESPACE
