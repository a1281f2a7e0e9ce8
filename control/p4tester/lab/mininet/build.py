"""A `lab: mininet` topology as a Mininet network: the tester's switch, the DUT (the
reference bmv2 or linux DUT as node "dut", or none), the network's nodes and links, and
the tester cables. Interface names: tester port N is p4lt<N>; the reference bmv2 DUT's
port N is p4ld<N> (as in the veth labs); other root-namespace switches' port N is
<node>-eth<N>; a host's or router's port N is eth<N> inside its namespace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from mininet.link import Link
from mininet.net import Mininet
from mininet.nodelib import LinuxBridge

from p4tester.config.network import Endpoint, NodeSpec
from p4tester.config.topology import Topology
from p4tester.lab import netdev
from p4tester.lab.ifaces import dut_iface, tester_iface
from p4tester.lab.mininet.lab import links_present
from p4tester.lab.mininet.nodes import LabHost, LabIntf, LabTCIntf, ProcessSwitch
from p4tester.lab.mininet.program import program_starter, start_reference_dut
from p4tester.lab.mininet.router import configure_linux_dut, configure_node
from p4tester.lab.netdev import LabError
from p4tester.lab.processes import start_switch, stop_process

TESTER: Final = "tester"
DUT: Final = "dut"
# gRPC and thrift ports of the network's own bmv2 nodes that do not name theirs.
GRPC_BASE: Final = 59600
THRIFT_BASE: Final = 59700


class LabNetwork:
    """The Mininet network of one lab: planned (names known), then built, then started."""

    def __init__(self, topology: Topology, rundir: Path, *, log: bool = False) -> None:
        if topology.network is None:
            raise LabError(f"{topology.source}: not a lab: mininet topology")
        self.topology = topology
        self.network = topology.network
        self.rundir = rundir
        self.log = log
        self.net = Mininet(topo=None, build=False, controller=None, autoSetMacs=False,
                           waitConnected=False)
        # Node kinds by name, known before anything exists: the state file names the
        # interfaces before they are made.
        self._kinds: dict[str, str] = {TESTER: "tester"}
        if topology.dut.kind in ("bmv2", "linux"):
            self._kinds[DUT] = f"dut-{topology.dut.kind}"
        self._kinds.update((node.name, node.kind) for node in self.network.nodes)

    def build(self) -> None:
        """Nodes and links; on failure what was made is stopped."""
        try:
            self._add_nodes()
            for port, end in self.topology.cables:
                self._link(Endpoint(TESTER, port), end, 0.0)
            for link in self.network.links:
                self._link(link.a, link.b, link.bw_mbps)
        except BaseException:
            self.stop()
            raise

    # --- nodes -------------------------------------------------------------------------

    def _add_nodes(self) -> None:
        topology = self.topology
        grpc = int(topology.switch.grpc.rsplit(":", 1)[1])
        thrift = topology.switch.thrift_port

        def tester(switch: ProcessSwitch) -> int:
            return start_switch(TESTER, switch.data_ports(), grpc, thrift, self.rundir,
                                log=self.log)

        self._switch(TESTER, tester, favoured=False)
        if topology.dut.kind == "bmv2":
            self._switch(DUT, lambda _switch: start_reference_dut(topology, self.rundir,
                                                                  self.log))
        elif topology.dut.kind == "linux":
            self.net.addHost(DUT, cls=LabHost)
        for index, node in enumerate(self.network.nodes):
            self._node(index, node)

    def _dpid(self) -> int:
        return len(self.net.switches) + 1

    def _switch(self, name: str, starter: Callable[[ProcessSwitch], int],
                favoured: bool = True) -> None:
        """A BMv2 switch; every one but the tester is the DUT's, favoured (run_ahead)."""
        self.net.addSwitch(name, cls=ProcessSwitch, starter=starter, dpid=self._dpid(),
                           favoured=favoured)

    def _node(self, index: int, node: NodeSpec) -> None:
        if node.kind in ("host", "router"):
            self.net.addHost(node.name, cls=LabHost)
        elif node.kind == "bridge":
            self.net.addSwitch(node.name, cls=LinuxBridge, dpid=f"{self._dpid():x}")
        else:
            grpc = node.grpc_port or GRPC_BASE + index
            thrift = node.thrift_port or THRIFT_BASE + index
            self._switch(node.name, program_starter(node, grpc, thrift, self.rundir, self.log))

    # --- links -------------------------------------------------------------------------

    def iface(self, end: Endpoint) -> str:
        kind = self._kinds.get(end.node)
        if kind is None:
            raise LabError(f"{self.topology.source}: {end} names no node of the lab")
        if kind == "tester":
            return tester_iface(end.port)
        if kind == "dut-bmv2":
            return dut_iface(end.port)
        if kind in ("host", "router", "dut-linux"):
            return f"eth{end.port}"
        return f"{end.node}-eth{end.port}"

    def in_root_namespace(self, end: Endpoint) -> bool:
        return self._kinds[end.node] not in ("host", "router", "dut-linux")

    def _link(self, a: Endpoint, b: Endpoint, bw_mbps: float) -> None:
        params: dict[str, Any] = {"intf": LabTCIntf, "bw": bw_mbps} if bw_mbps else {
            "intf": LabIntf}
        # MACs are set when the hosts are configured (router.configure_node).
        self.net.addLink(self.net[a.node], self.net[b.node], port1=a.port, port2=b.port,
                         intfName1=self.iface(a), intfName2=self.iface(b), cls=Link, **params)

    def root_links(self) -> list[str]:
        """Interfaces in the root namespace (what a crashed lab leaves behind)."""
        ends = [Endpoint(TESTER, p) for p, _e in self.topology.cables]
        ends += [e for _p, e in self.topology.cables]
        ends += [e for link in self.network.links for e in (link.a, link.b)]
        return sorted({self.iface(e) for e in ends if self.in_root_namespace(e)})

    # --- start -------------------------------------------------------------------------

    def start(self) -> list[str]:
        """Hosts and routers configured, then the switches started (the tester last, as
        in the veth labs: the network is ready when the tester's gRPC listens). Returns
        the host commands that failed (router.configure_node)."""
        failures = []
        for node in self.network.nodes:
            if node.kind in ("host", "router"):
                failures += configure_node(self.net[node.name], node, self.rundir)
        if self.topology.dut.kind == "linux":
            configure_linux_dut(self.net[DUT], self.topology)
        for switch in self.net.switches:
            if switch.name != TESTER:
                switch.start([])
        self.net[TESTER].start([])
        return failures

    def pids(self) -> list[int]:
        pids = [int(node.pid) for node in (*self.net.hosts, *self.net.switches) if node.pid]
        pids += [switch.switch_pid for switch in self.net.switches
                 if isinstance(switch, ProcessSwitch) and switch.switch_pid]
        return pids

    def stop(self) -> None:
        """net.stop(); if Mininet trips over a half-built network, each switch process,
        each node's shell and each root interface is stopped here instead."""
        try:
            self.net.stop()
        except Exception as exc:
            print(f"net.stop() failed ({exc!r}); stopping node by node", flush=True)
        for switch in self.net.switches:
            if isinstance(switch, ProcessSwitch) and switch.switch_pid is not None:
                stop_process(switch.switch_pid)
                switch.switch_pid = None
        for node in (*self.net.hosts, *self.net.switches):
            if node.shell is not None:
                node.terminate()
        present = links_present()
        for name in self.root_links():
            if name in present:
                netdev.delete_link(name)

