"""Counters of a lab DUT that shares the host with the tester, for the per-trial DUT
check (issue 10): a BMv2 or Linux DUT keeps its configured behaviour (a known
bottleneck, a known buffer) only while it gets the CPU it needs. After each trial the
tester compares the DUT's interfaces with what the DUT itself handled:

- `bmv2` DUT (p4src/dut): the kernel counters of its interfaces p4ld<M> against the
  program's dut_rx_port / dut_tx_port. Frames the interface delivered that the DUT
  program never saw were lost to the host, not to the DUT's queue.
- `linux` DUT (a router in a namespace) and `bridge` DUT (a Linux bridge in one): the
  kernel's own drop counters of the DUT's interfaces (`ip -s link`). Drops by the
  configured qdisc (tbf, netem) are the DUT's behaviour and are not counted here.

A trial where the DUT did not hold its behaviour is "dut-limited": invalid, and the
searches and the queue sweep leave it out instead of fitting it.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping

from p4tester.config.dut_limits import port_queue_rates
from p4tester.config.topology import Topology
from p4tester.dataplane import names
from p4tester.lab import netdev
from p4tester.lab.bmv2_dut import DUT_P4INFO, dut_settings, forwarding
from p4tester.lab.dut_impairments import parse_port_impairments
from p4tester.lab.ifaces import dut_iface
from p4tester.lab.receive_steering import tester_apart
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.tester.dut_source import DUT_TIMEOUT_S, DutCounterSource
from p4tester.tester.port_counters import InterfaceCounters, KernelInterfaceCounters
from p4tester.tester.selfcheck import ProgramPortCounts


class Bmv2DutCounters:
    """The reference DUT of a `bmv2` lab: interfaces p4ld<M> in the root namespace, its
    program's per-port counters over P4Runtime."""

    __slots__ = ("_grpc", "_ports", "_schema", "_steady_rate_pps")

    def __init__(self, topology: Topology) -> None:
        settings = dut_settings(topology)
        where = topology.source or topology.name
        forward = forwarding(settings, where)
        self._ports = tuple(sorted({p for pair in forward.items() for p in pair}))
        self._grpc = settings.get("grpc", "127.0.0.1:9560")
        self._schema = P4InfoSchema.from_text_file(DUT_P4INFO)
        self._steady_rate_pps = _steady_rate(settings, forward, where)

    def fed_ports(self) -> frozenset[int]:
        return frozenset()  # its input shares the CPU of the tester's own receive

    def steady_rate_pps(self) -> float | None:
        return self._steady_rate_pps

    def interfaces(self) -> Mapping[int, str]:
        return {port: dut_iface(port) for port in self._ports}

    def running(self) -> bool:
        """Something listens on the DUT's P4Runtime address (a dead switch refuses at once;
        a busy one still accepts)."""
        host, port = self._grpc.rsplit(":", 1)
        with socket.socket() as probe:
            probe.settimeout(DUT_TIMEOUT_S)
            return probe.connect_ex((host, int(port))) == 0

    def read_interfaces(self) -> Mapping[int, InterfaceCounters] | None:
        return KernelInterfaceCounters(dut_iface).read(self._ports)

    def read_program(self) -> ProgramPortCounts | None:
        # Asked again every trial: one slow read on a busy host must not switch the
        # check off for the rest of the run.
        if not self.running():
            return None
        try:
            with P4RuntimeClient(self._grpc, timeout_s=DUT_TIMEOUT_S) as client:
                rx = client.read_counter(self._schema, names.DUT_RX_PORT)
                tx = client.read_counter(self._schema, names.DUT_TX_PORT)
        except Exception:
            return None
        return ProgramPortCounts(rx={p: c.packets for p, c in rx.items()},
                                 tx={p: c.packets for p, c in tx.items()})


class LinuxDutCounters:
    """The router of a `linux` lab or the bridge of a `bridge` lab: its interfaces'
    kernel counters inside its namespace. The kernel's forwarding is the 'program': it
    handled every frame the interface counted, and handed it tx_packets + tx_dropped
    frames; so a PortCheck built from these shows exactly the interface's own drops."""

    __slots__ = ("_fed", "_ports")

    def __init__(self, topology: Topology) -> None:
        # The tester ports cabled into the DUT, where the lab steers the DUT's receive
        # apart from the tester's (lab.receive_steering).
        apart = tester_apart(topology.switch.target, topology.dut.kind, topology.lab,
                             len(topology.testers))
        self._fed = (frozenset(p.number for p in topology.ports if p.peer.startswith("dut:"))
                     if apart else frozenset())
        if topology.dut.kind == "bridge":
            self._ports = topology.cabled_dut_ports  # the bridge's ports
            return
        settings = dict(topology.dut.settings)
        self._ports = tuple(sorted({int(settings.get("ingress", "1")),
                                    int(settings.get("egress", "2"))}))

    def fed_ports(self) -> frozenset[int]:
        return self._fed

    def interfaces(self) -> Mapping[int, str]:
        return {port: dut_iface(port) for port in self._ports}

    def steady_rate_pps(self) -> None:
        return None  # its qdisc shapes by bytes and bursts: drops are its own behaviour

    def running(self) -> bool:
        return netdev.DUT_NETNS in netdev.run(["ip", "netns", "list"]).split()

    def read_interfaces(self) -> Mapping[int, InterfaceCounters] | None:
        try:
            links = json.loads(netdev.run(["ip", "-s", "-j", "link", "show"],
                                          netns=netdev.DUT_NETNS))
        except (netdev.LabError, ValueError):
            return None
        return parse_ip_link_stats(links, self.interfaces())

    def read_program(self) -> ProgramPortCounts | None:
        counters = self.read_interfaces()
        if counters is None:
            return None
        return ProgramPortCounts(
            rx={p: c.rx_packets for p, c in counters.items()},
            tx={p: c.tx_packets + c.tx_dropped for p, c in counters.items()},
        )


def _steady_rate(settings: Mapping[str, str], forward: Mapping[int, int],
                 where: str) -> float | None:
    """A plain BMv2 DUT's slowest egress queue rate (lab.bmv2_dut's queue_rate_pps and
    queue_rates_pps); None when a port is unpaced or the DUT drops, holds or copies
    frames by design (impairments), since then a frame missing is no sign of a starved
    queue."""
    if any(port.any for port in parse_port_impairments(settings, where, forward).values()):
        return None
    per_port = port_queue_rates(dict(settings), where)
    rates = [per_port.get(port, settings.get("queue_rate_pps")) for port in set(forward.values())]
    if any(rate is None for rate in rates):
        return None
    return float(min(float(rate) for rate in rates if rate is not None))


def parse_ip_link_stats(links: object, interfaces: Mapping[int, str],
                        ) -> Mapping[int, InterfaceCounters] | None:
    """Counters of `interfaces` (port -> name) from `ip -s -j link show` output; None
    when one is missing."""
    by_name = {}
    for link in links if isinstance(links, list) else []:
        stats = link.get("stats64") if isinstance(link, dict) else None
        if isinstance(stats, dict):
            by_name[str(link.get("ifname"))] = stats
    readings = {}
    for port, name in interfaces.items():
        stats = by_name.get(name)
        if stats is None:
            return None
        readings[port] = InterfaceCounters(
            rx_packets=int(stats["rx"]["packets"]), tx_packets=int(stats["tx"]["packets"]),
            rx_dropped=int(stats["rx"]["dropped"]), tx_dropped=int(stats["tx"]["dropped"]))
    return readings


def dut_counters_for(topology: Topology) -> DutCounterSource | None:
    """The DUT check a lab topology supports (None: loopback, external)."""
    if topology.dut.kind == "bmv2":
        return Bmv2DutCounters(topology)
    if topology.dut.kind in ("linux", "bridge") and topology.lab == "veth":
        return LinuxDutCounters(topology)
    # A Mininet lab's router lives in a namespace of Mininet's, not the veth lab's: its
    # check is not built yet, so those trials carry no DUT check (dut_check null).
    return None
