"""Where a lab's processes run (issue 20.4): apart, where the host has the cores, and
said with every run's results.

A BMv2 switch that shares its cores with the lab DUT and the controller loses frames
when they run: the tester's figures then measure the host. With enough CPUs the lab
pins them apart: the controller gets the last CPU, the tester switch the first half of
the others (it runs the generator and the checker), the lab DUT the rest. The tester
switch must keep at least MIN_TESTER_CPUS: its ingress and egress threads confined to
one core carry a third less than spread over two (measured on a 2-core host: 64-B
loopback loss-free rate 12643-13660 frames/s pinned to one core, 19764-22089 unpinned),
so a host with fewer CPUs pins nothing, and the results say so with the count.

What a run records is observed, not planned: the CPUs each switch process (found by
the port it listens on) and the controller may run on, whoever started them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from p4tester.config.topology import Topology

PROC: Final = Path("/proc")
MIN_TESTER_CPUS: Final = 2
# /proc/net/tcp: a socket in LISTEN.
_TCP_LISTEN: Final = "0A"


@dataclass(frozen=True, slots=True)
class Placement:
    """The CPUs each of a lab's processes gets."""

    tester: tuple[int, ...]
    dut: tuple[int, ...]
    controller: tuple[int, ...]

    def describe(self) -> str:
        dut = f", lab DUT cpus {cpu_list(self.dut)}" if self.dut else ""
        return (f"pinned: tester switch cpus {cpu_list(self.tester)}{dut}, controller "
                f"cpus {cpu_list(self.controller)}")


def plan_placement(cpus: Sequence[int], with_dut: bool) -> Placement | str:
    """The placement on these CPUs, or why there is none (too few to keep the processes
    apart)."""
    needed = MIN_TESTER_CPUS + (2 if with_dut else 1)
    ordered = sorted(set(cpus))
    if len(ordered) < needed:
        who = "the tester switch, the lab DUT and the controller" if with_dut else \
            "the tester switch and the controller"
        return (f"not pinned: {len(ordered)} CPU{'s' if len(ordered) != 1 else ''}, "
                f"{needed} needed to keep {who} apart")
    switches, controller = ordered[:-1], (ordered[-1],)
    if not with_dut:
        return Placement(tuple(switches), (), controller)
    half = math.ceil(len(switches) / 2)
    return Placement(tuple(switches[:half]), tuple(switches[half:]), controller)


def pin(pid: int, cpus: Iterable[int]) -> None:
    """Every thread of `pid` onto `cpus` (threads it starts later inherit it)."""
    chosen = set(cpus)
    for task in (PROC / str(pid) / "task").iterdir():
        os.sched_setaffinity(int(task.name), chosen)


def cpu_list(cpus: Iterable[int]) -> str:
    """0-3,6 for {0, 1, 2, 3, 6}."""
    ordered = sorted(set(cpus))
    runs: list[str] = []
    start = previous = ordered[0] if ordered else 0
    for cpu in [*ordered[1:], None]:
        if cpu is not None and cpu == previous + 1:
            previous = cpu
            continue
        runs.append(str(start) if start == previous else f"{start}-{previous}")
        if cpu is not None:
            start = previous = cpu
    return ",".join(runs) if ordered else "none"


def listening_pids(ports: Iterable[int], proc: Path = PROC) -> dict[int, int]:
    """The process listening on each TCP `port` (IPv4) that has one (and is ours to
    see): one pass over /proc for all of them."""
    wanted = set(ports)
    inodes: dict[str, int] = {}
    try:
        lines = (proc / "net" / "tcp").read_text().splitlines()[1:]
    except OSError:
        return {}
    for line in lines:
        fields = line.split()
        if len(fields) > 9 and fields[3] == _TCP_LISTEN:
            port = int(fields[1].rsplit(":", 1)[1], 16)
            if port in wanted:
                inodes[f"socket:[{fields[9]}]"] = port
    found: dict[int, int] = {}
    if not inodes:
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                listening = inodes.get(os.readlink(fd))
                if listening is not None:
                    found.setdefault(listening, int(entry.name))
        except OSError:
            continue  # gone, or not ours to read
    return found


def listening_pid(port: int, proc: Path = PROC) -> int | None:
    """The process listening on TCP `port`, None when none is."""
    return listening_pids([port], proc).get(port)


def switch_cpus(topology: Topology) -> dict[str, set[int]]:
    """The CPUs the tester switch and a BMv2 lab DUT (found by their P4Runtime ports)
    may run on now, by role; a switch not found is left out."""
    roles = {}
    for role, address in (("tester switch", topology.switch.grpc),
                          ("lab DUT", dict(topology.dut.settings).get("grpc"))):
        if address is not None and ":" in address:
            roles[int(address.rsplit(":", 1)[1])] = role
    cpus = {}
    for port, pid in listening_pids(roles).items():
        try:
            cpus[roles[port]] = os.sched_getaffinity(pid)
        except OSError:
            continue
    return cpus


def describe_placement(switches: Mapping[str, set[int]]) -> str:
    """Where the switches and this controller may run: what a run records."""
    parts = [f"{role} cpus {cpu_list(cpus)}" for role, cpus in switches.items()]
    parts.append(f"controller cpus {cpu_list(os.sched_getaffinity(0))}")
    return f"{'; '.join(parts)} (of {os.cpu_count()} on this host)"


def observed_placement(topology: Topology) -> str:
    """Where the switches and this controller may run now."""
    return describe_placement(switch_cpus(topology))


def place_controller(topology: Topology) -> str:
    """Keep this controller off the CPUs a lab pinned its switches to, where there are
    others (nothing when the switches may run anywhere), and say where everything runs."""
    switches = switch_cpus(topology)
    taken = set().union(*switches.values())
    free = os.sched_getaffinity(0) - taken
    if taken and free:
        os.sched_setaffinity(0, free)
    return describe_placement(switches)
