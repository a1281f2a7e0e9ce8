"""Mininet node and interface classes of a lab.

A P4 switch here is a Mininet `Switch` in the root namespace whose data plane is a
simple_switch_grpc process: `start` runs a starter that returns once the switch's gRPC
server listens (and the switch is programmed), `stop` stops that process. The tester's
switch is one of them, started exactly as the veth labs start it (lab.processes), with
interfaces named p4lt<N> so the controller and the tester's self-check find tester port N
where they find it in every lab.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mininet.link import Intf, TCIntf
from mininet.node import Host, Switch

from p4tester.lab.ifaces import TESTER_PREFIX
from p4tester.lab.netdev import PCAP_SLOT_OFFLOADS
from p4tester.lab.processes import run_ahead, stop_process


class _LabLinkEnd:
    """IPv6 off on an interface before it comes up: its DAD and MLD frames would reach
    the tester as frames no stream sent. On the tester's ports, offloads off, so the
    tester switch gets MTU-sized capture slots (lab.netdev.ring_slots_by_mtu)."""

    name: str
    node: Any

    def config(self, **params: Any) -> Any:
        self.node.cmd(f"sysctl -qw net.ipv6.conf.{self.name}.disable_ipv6=1")
        if self.name.startswith(TESTER_PREFIX):
            offloads = " ".join(f"{feature} off" for feature in PCAP_SLOT_OFFLOADS)
            self.node.cmd(f"ethtool -K {self.name} {offloads}")
        return super().config(**params)  # type: ignore[misc]


class LabIntf(_LabLinkEnd, Intf):  # type: ignore[misc]
    """A plain veth end."""


class LabTCIntf(_LabLinkEnd, TCIntf):  # type: ignore[misc]
    """A veth end shaped by htb (TCLink bw=); no netem on kernels without sch_netem."""


class ProcessSwitch(Switch):  # type: ignore[misc]
    """A switch whose data plane is a process `starter()` starts; returns its pid."""

    def __init__(self, name: str, starter: Callable[[ProcessSwitch], int], dpid: int,
                 favoured: bool = False, **params: Any) -> None:
        # dpid given: Mininet derives one from digits in the name, and "tester" has none.
        params["inNamespace"] = False  # Mininet passes its default; BMv2 runs in the root
        super().__init__(name, dpid=f"{dpid:x}", **params)
        self.starter = starter
        self.favoured = favoured  # a DUT switch: runs ahead of other work (run_ahead)
        self.switch_pid: int | None = None

    def data_ports(self) -> list[tuple[int, str]]:
        """(port, interface) of every data port, for simple_switch_grpc -i N@iface."""
        return sorted((port, intf.name) for port, intf in self.intfs.items()
                      if intf.name != "lo")

    def start(self, controllers: list[Any]) -> None:
        self.switch_pid = self.starter(self)
        if self.favoured:
            run_ahead(self.switch_pid)

    def stop(self, deleteIntfs: bool = True) -> None:
        if self.switch_pid is not None:
            stop_process(self.switch_pid)
            self.switch_pid = None
        super().stop(deleteIntfs)


class LabHost(Host):  # type: ignore[misc]
    """A host or router in its own namespace, IPv6 off from the start (see _LabLinkEnd)."""

    def __init__(self, name: str, **params: Any) -> None:
        params["inNamespace"] = True
        super().__init__(name, **params)
        for key in ("all", "default"):
            self.cmd(f"sysctl -qw net.ipv6.conf.{key}.disable_ipv6=1")
