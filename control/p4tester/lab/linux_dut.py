"""The `linux` DUT: a router in a network namespace, impairments by tc.

Topology settings (dut: {kind: linux, ...}), defaults matching the stream
defaults of profiles (192.0.2.1 -> 198.51.100.1, dst MAC 02:00:00:00:00:02):

    ingress: 1            DUT port the test traffic enters (cabled to a tester TX port)
    egress: 2             DUT port it leaves by (cabled to a tester RX port)
    qdisc: "netem delay 5ms loss 1%"   tc qdisc on the egress port (optional)
    neighbours: static    static (default) | dynamic
    ecmp: "2:1,3:3"       (static only) instead of egress: the streams' destination
                          routed over several egress ports by an L4 hash, with
                          these weights (lab.linux_ecmp)
    vxlan_vni: 42         (static only) also a VxLAN end point on the ingress port:
                          frames of that VNI to its address (UDP 4789) are taken out
                          of the tunnel and routed like the rest

neighbours: static: the router answers for the streams' gateway MAC on its ingress
port, has static neighbour entries for the tester (no ARP on the test wires), and
IPv4 only. neighbours: dynamic: a router as a real network has it: no static
entries, its ports' own (kernel-made) MACs, IPv4 and IPv6 forwarding, and addresses
from the topology (each DUT port gets the gateway4 / gateway6 of the tester port
cabled to it, with that port's prefix; defaults: .254 / ::254 of the streams'
default subnets). It resolves the tester's addresses by ARP and ND (and takes a
gratuitous ARP / unsolicited NA from an on-link address as a new entry), and the
tester resolves its MACs (`dst_mac: resolve`, docs/neighbors.md).

Both decrement TTL, so a TTL-1 stream makes ICMP time-exceeded replies (seed 002's
exception path).
"""

from __future__ import annotations

import ipaddress
import shlex
import time
from collections.abc import Callable
from typing import Final

from p4tester.config.dut_ecmp import ecmp_paths
from p4tester.config.topology import NEIGHBOURS_MODES, PortAddresses, Topology
from p4tester.lab import netdev
from p4tester.lab.ifaces import dut_iface
from p4tester.lab.linux_ecmp import route_over_paths
from p4tester.streams.addresses import (
    DEFAULT_DST_IP,
    DEFAULT_DST_MAC,
    DEFAULT_SRC_IP,
    DEFAULT_SRC_MAC,
)
from p4tester.streams.tunnels import VXLAN_INNER_DST_MAC, VXLAN_UDP_PORT

NAMESPACE = netdev.DUT_NETNS
# vxlan_vni: the end point's device, the MAC the inner frames go to, and an address
# on it (the router routes only what arrives on a configured interface).
VXLAN_DEVICE: Final = "vx0"
VXLAN_INNER_NET: Final = "10.255.0.254/24"
INGRESS_MAC = DEFAULT_DST_MAC  # the router is the streams' next hop
# The egress port's MAC with static neighbours: the next hop of streams sent the other
# way (tester port 2 back to port 1), which give it as their dst_mac.
EGRESS_MAC = "02:00:00:00:00:04"
TESTER_TX_MAC = DEFAULT_SRC_MAC
TESTER_RX_MAC = "02:00:00:00:00:03"
INGRESS_NET = ("192.0.2.254/24", DEFAULT_SRC_IP)
EGRESS_NET = ("198.51.100.254/24", DEFAULT_DST_IP)
# neighbours: dynamic, a DUT port whose tester port names no gateway6.
INGRESS_NET6: Final = "2001:db8::254/64"
EGRESS_NET6: Final = "2001:db8:1::254/64"
NEIGHBOURS_STATIC, NEIGHBOURS_DYNAMIC = NEIGHBOURS_MODES
# The dynamic router's MLD reports (RFC 3810: unsolicited, repeated at random within
# this interval) are all sent within MLD_SETTLE_S of its links coming up, so before
# the tester listens: no querier is on these links and the tester would count them
# as foreign frames.
MLD_REPORT_INTERVAL_MS: Final = 1
MLD_SETTLE_S: Final = 0.3
# arp_accept / accept_untracked_na: 2 = new entries from announcements whose source
# is in one of the port's subnets (kernel ip-sysctl documentation).
ACCEPT_ON_LINK: Final = 2


def neighbours_mode(topology: Topology) -> str:
    """The dut's `neighbours` setting (checked again: a Topology may be built in code)."""
    mode = dict(topology.dut.settings).get("neighbours", NEIGHBOURS_STATIC)
    if mode not in NEIGHBOURS_MODES:
        raise netdev.LabError(f"{topology.source or topology.name}: dut: neighbours {mode!r} "
                              f"unknown; use one of {NEIGHBOURS_MODES}")
    return mode


def router_addresses(topology: Topology, dut_port: int, default4: str,
                     default6: str) -> tuple[str, str]:
    """(IPv4, IPv6) interface addresses of a dynamic router's port: the gateways of
    the tester port cabled to it, with its prefix lengths; else the defaults."""
    own: PortAddresses | None = None
    for port in topology.ports:
        if port.peer == f"dut:{dut_port}":
            own = port.addresses
    if own is None:
        return default4, default6
    ipv4 = (f"{own.gateway4}/{ipaddress.IPv4Interface(own.ipv4).network.prefixlen}"
            if own.gateway4 else default4)
    ipv6 = (f"{own.gateway6}/{ipaddress.IPv6Interface(own.ipv6).network.prefixlen}"
            if own.gateway6 else default6)
    return ipv4, ipv6


def start_linux_dut(topology: Topology) -> str:
    settings = dict(topology.dut.settings)
    dynamic = neighbours_mode(topology) == NEIGHBOURS_DYNAMIC
    ingress_port = int(settings.get("ingress", "1"))
    egress_port = int(settings.get("egress", "2"))
    ingress = dut_iface(ingress_port)
    egress = dut_iface(egress_port)
    paths = ecmp_paths(settings["ecmp"], "dut") if "ecmp" in settings else ()
    netdev.add_netns(NAMESPACE)
    moved = (ingress, *(dut_iface(port) for port, _ in paths)) if paths else (ingress, egress)
    for iface in moved:
        netdev.run(["ip", "link", "set", iface, "netns", NAMESPACE])

    def ns(*args: str) -> None:
        netdev.run(list(args), netns=NAMESPACE)

    if dynamic:
        _dynamic_router(topology, ns, (ingress, ingress_port, INGRESS_NET[0], INGRESS_NET6),
                        (egress, egress_port, EGRESS_NET[0], EGRESS_NET6))
        _forwarding(ns)
        if "qdisc" in settings:
            ns("tc", "qdisc", "replace", "dev", egress, "root",
               *shlex.split(settings["qdisc"]))
        return NAMESPACE
    # IPv6 off: its link-local chatter (DAD, router solicitations, MLD) would reach
    # the tester as foreign frames that no stream sent.
    ns("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
    ns("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
    for iface in moved:
        ns("sysctl", "-qw", f"net.ipv6.conf.{iface}.disable_ipv6=1")
    ns("ip", "link", "set", ingress, "address", INGRESS_MAC)
    ns("ip", "link", "set", ingress, "up")
    ns("ip", "addr", "add", INGRESS_NET[0], "dev", ingress)
    ns("ip", "neigh", "replace", INGRESS_NET[1], "lladdr", TESTER_TX_MAC, "dev", ingress,
       "nud", "permanent")
    if paths:
        network = str(ipaddress.IPv4Interface(EGRESS_NET[0]).network)
        route_over_paths(ns, network, TESTER_RX_MAC, paths, settings.get("ecmp_hash", "l4"))
    else:
        ns("ip", "link", "set", egress, "address", EGRESS_MAC)
        ns("ip", "link", "set", egress, "up")
        ns("ip", "addr", "add", EGRESS_NET[0], "dev", egress)
        ns("ip", "neigh", "replace", EGRESS_NET[1], "lladdr", TESTER_RX_MAC, "dev", egress,
           "nud", "permanent")
    _forwarding(ns)
    if "vxlan_vni" in settings:
        _vxlan_end_point(ns, int(settings["vxlan_vni"]), ingress)
    if "qdisc" in settings:
        ns("tc", "qdisc", "replace", "dev", egress, "root", *shlex.split(settings["qdisc"]))
    return NAMESPACE


def _vxlan_end_point(ns: Callable[..., None], vni: int, ingress: str) -> None:
    """A VxLAN device on the ingress address: the inner frames are addressed to its
    MAC (streams.tunnels.Vxlan's default inner destination), so the router takes
    their IP packets and routes them, decapsulated, out of its egress port."""
    local = INGRESS_NET[0].split("/", 1)[0]
    ns("ip", "link", "add", VXLAN_DEVICE, "type", "vxlan", "id", str(vni), "local", local,
       "dstport", str(VXLAN_UDP_PORT), "dev", ingress, "nolearning")
    ns("ip", "link", "set", VXLAN_DEVICE, "address", VXLAN_INNER_DST_MAC)
    ns("sysctl", "-qw", f"net.ipv6.conf.{VXLAN_DEVICE}.disable_ipv6=1")
    ns("ip", "link", "set", VXLAN_DEVICE, "up")
    ns("ip", "addr", "add", VXLAN_INNER_NET, "dev", VXLAN_DEVICE)


def _forwarding(ns: Callable[..., None]) -> None:
    ns("sysctl", "-qw", "net.ipv4.ip_forward=1")
    # Replies and forwarded frames must not be held back by reverse-path checks or
    # rate-limited ICMP (seed 002 measures the slow path, not the kernel's limiter).
    ns("sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0")
    ns("sysctl", "-qw", "net.ipv4.icmp_ratelimit=0")


def _dynamic_router(topology: Topology, ns: Callable[..., None],
                    *ports: tuple[str, int, str, str]) -> None:
    """IPv4 and IPv6 on each (iface, DUT port, default IPv4, default IPv6), no static
    neighbours. DAD off (addresses usable at once, fewer frames into the tester);
    forwarding on, so the kernel sends no Router Solicitations; MLD reports over
    before this returns (MLD_SETTLE_S)."""
    ns("sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
    for key in ("all", "default", *(iface for iface, *_rest in ports)):
        # A gratuitous ARP / unsolicited NA from an on-link address makes a neighbour
        # entry (ports with announce: true), as a host's announcement does on many routers.
        ns("sysctl", "-qw", f"net.ipv4.conf.{key}.arp_accept={ACCEPT_ON_LINK}")
        ns("sysctl", "-qw", f"net.ipv6.conf.{key}.accept_untracked_na={ACCEPT_ON_LINK}")
        ns("sysctl", "-qw", f"net.ipv6.conf.{key}.accept_dad=0")
        ns("sysctl", "-qw",
           f"net.ipv6.conf.{key}.mldv2_unsolicited_report_interval={MLD_REPORT_INTERVAL_MS}")
        ns("sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=0")
    for iface, number, default4, default6 in ports:
        ipv4, ipv6 = router_addresses(topology, number, default4, default6)
        ns("ip", "addr", "add", ipv4, "dev", iface)
        ns("ip", "-6", "addr", "add", ipv6, "dev", iface, "nodad")
        ns("ip", "link", "set", iface, "up")
    time.sleep(MLD_SETTLE_S)
