"""Bring a topology up as a lab on this machine, and take it down again.

Tester port N is the veth end p4lt<N>: BMv2's port N, or (target ebpf) the interface
the eBPF tester program is loaded onto when a run opens. A port whose peer is another tester port
("2") shares one veth pair with it (a loopback cable); a port whose peer is
"dut:M" is cabled to the DUT's port M (veth end p4ld<M>); a port whose peer is
"host" ends in p4lh<N> in the root namespace, for PTF or a bench to use. What was made is
written to a state file, so `down` removes exactly that, and then anything else
with the lab's prefixes that a crashed run left behind.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from p4tester.config.topology import Topology
from p4tester.lab import netdev
from p4tester.lab.ifaces import TESTER_PREFIX, dut_iface, host_iface, tester_iface
from p4tester.lab.kinds import dut_kind, lab_kind
from p4tester.lab.placement import pin, plan_placement
from p4tester.lab.processes import start_switch, stop_process
from p4tester.lab.receive_steering import steer_receive, steered, tester_apart
from p4tester.lab.state import LabState

DEFAULT_RUNDIR = Path("run/lab")
# Re-exported: callers name interfaces and the state through the runner.
__all__ = ["DEFAULT_RUNDIR", "LabState", "down", "dut_iface", "host_iface", "tester_iface", "up"]


def up(topology: Topology, rundir: Path = DEFAULT_RUNDIR, *, log: bool = False,
       keep_offloads: bool = False) -> LabState:
    """Make the links, start the DUT and the tester switch. On failure, undo.
    keep_offloads (veth labs, the capacity bench's "before" leg only): leave the tester
    ports' offloads on, i.e. BMv2's 31-frame capture rings (netdev.ring_slots_by_mtu)."""
    down(rundir)
    if topology.lab != "veth":
        return lab_kind(topology.lab).up(topology, rundir, log)
    state = LabState(topology.source or topology.name)
    try:
        _cable(topology, state, keep_offloads)
        state.save(rundir)
        started = dut_kind(topology.dut.kind)(topology, rundir, log)
        state.pids.extend(started.pids)
        state.netns.extend(started.netns)
        state.save(rundir)
        if topology.switch.target == "ebpf":
            # No switch process: the trial runner loads the tester program onto the
            # tester ports for its run (targets.ebpf.session). A kernel DUT's forwarding
            # runs off its sender's CPU, the checker on it (lab.receive_steering); a BMv2
            # DUT is a process of its own, which that receive work would crowd instead.
            if steered(topology.switch.target, topology.dut.kind, topology.lab):
                steer_receive([tester_iface(p.number) for p in topology.ports],
                              _dut_received_on(topology, state),
                              tester_apart(topology.switch.target, topology.dut.kind,
                                           topology.lab, len(topology.testers)))
            return state
        if topology.testers:
            # Several BMv2 testers: a switch each, on its own ports (unpinned: two
            # CPUs cannot keep several switches and the DUT apart).
            for member in topology.testers:
                state.pids.append(_start_tester(topology.tester(member.name), rundir, log,
                                                f"tester-{member.name}"))
                state.save(rundir)
            return state
        tester = _start_tester(topology, rundir, log, "tester")
        state.pids.append(tester)
        state.placement = _place(tester, started.pids)
        state.save(rundir)
    except BaseException:
        down(rundir)
        raise
    return state


def _start_tester(topology: Topology, rundir: Path, log: bool, name: str) -> int:
    """The topology's tester switch on its ports; its pid."""
    grpc_port = int(topology.switch.grpc.rsplit(":", 1)[1])
    ports = [(p.number, tester_iface(p.number)) for p in topology.ports]
    return start_switch(name, ports, grpc_port, topology.switch.thrift_port, rundir, log=log)


def _dut_received_on(topology: Topology, state: LabState) -> list[tuple[str, str | None]]:
    """(interface, netns) of the DUT's side of each cable."""
    ifaces: list[tuple[str, str | None]] = []
    # One listing per namespace, not one per port.
    links = {ns: netdev.run(["ip", "-o", "link", "show"], netns=ns) for ns in state.netns}
    for port in topology.cabled_dut_ports:
        iface = dut_iface(port)
        netns = next((ns for ns, listed in links.items() if f" {iface}@" in listed
                      or f" {iface}:" in listed), None)
        ifaces.append((iface, netns))
    return ifaces


def _place(tester: int, dut: Sequence[int]) -> str:
    """Pin the tester switch and the DUT's processes apart from each other and from the
    controller's CPU, where this host has the CPUs (lab.placement)."""
    placement = plan_placement(sorted(os.sched_getaffinity(0)), with_dut=bool(dut))
    if isinstance(placement, str):
        return placement
    pin(tester, placement.tester)
    for pid in dut:
        pin(pid, placement.dut)
    return placement.describe()


def _cable(topology: Topology, state: LabState, keep_offloads: bool) -> None:
    done: set[int] = set()
    for port in topology.ports:
        if port.number in done:
            continue
        peer = port.peer
        if peer.startswith("dut:"):
            a, b = tester_iface(port.number), dut_iface(int(peer.split(":", 1)[1]))
        elif peer == "host":
            a, b = tester_iface(port.number), host_iface(port.number)
        elif peer.isdigit():
            other = topology.port(int(peer))
            if other.peer != str(port.number):
                raise netdev.LabError(
                    f"{topology.source}: port {port.number} is cabled to port {peer}, but "
                    f"port {peer}'s peer is {other.peer!r}: make them name each other"
                )
            a, b = tester_iface(port.number), tester_iface(other.number)
            done.add(other.number)
        else:
            raise netdev.LabError(
                f"{topology.source}: port {port.number} peer {peer!r}: use another tester "
                "port number (loopback cable), dut:N or host"
            )
        netdev.add_veth(a, b, topology.link_mtu)
        if not keep_offloads:
            for name in (a, b):
                if name.startswith(TESTER_PREFIX):
                    netdev.ring_slots_by_mtu(name)
        # The tester's side, and PTF's (host): not a DUT's, which must resolve.
        for name in (a, b) if peer == "host" or peer.isdigit() else (a,):
            netdev.arp_off(name)
        state.links.append(a)
        done.add(port.number)


def down(rundir: Path = DEFAULT_RUNDIR) -> None:
    """Stop the lab's processes, delete its links and namespaces. Always safe to call."""
    state = LabState.load(rundir)
    if state is not None and state.kind != "veth":
        lab_kind(state.kind).down(state, rundir)
        LabState.remove(rundir)
    elif state is not None:
        for pid in reversed(state.pids):
            stop_process(pid)
        for name in state.netns:
            netdev.delete_netns(name)
        for name in state.links:
            netdev.delete_link(name)
        LabState.remove(rundir)
    # Leftovers of a run that died before it could write its state.
    for name in netdev.lab_netns():
        netdev.delete_netns(name)
    for name in netdev.lab_links():
        netdev.delete_link(name)
    time.sleep(0.1)
