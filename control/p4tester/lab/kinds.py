"""One registry of DUT kinds and lab kinds. The runner looks a kind up here by the name
the topology gives; this module imports a kind's module only when it is used, so the
runner imports no DUT module, no DUT module imports the runner, and Mininet is imported
only by Mininet labs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from p4tester.config.topology import Topology
from p4tester.lab.netdev import LabError
from p4tester.lab.state import LabState


@dataclass(frozen=True, slots=True)
class DutStarted:
    """What a DUT kind started, for the lab's state file."""

    pids: tuple[int, ...] = ()
    netns: tuple[str, ...] = ()


DutStart = Callable[[Topology, Path, bool], DutStarted]


@dataclass(frozen=True, slots=True)
class LabKind:
    """A lab backend: brings a whole topology up (its own state file) and down."""

    up: Callable[[Topology, Path, bool], LabState]
    down: Callable[[LabState, Path], None]


def _start_bmv2(topology: Topology, rundir: Path, log: bool) -> DutStarted:
    from p4tester.lab.bmv2_dut import start_bmv2_dut

    return DutStarted(pids=(start_bmv2_dut(topology, rundir, log=log),))


def _start_linux(topology: Topology, rundir: Path, log: bool) -> DutStarted:
    from p4tester.lab.linux_dut import start_linux_dut

    return DutStarted(netns=(start_linux_dut(topology),))


def _start_bridge(topology: Topology, rundir: Path, log: bool) -> DutStarted:
    from p4tester.lab.bridge_dut import start_bridge_dut

    return DutStarted(netns=(start_bridge_dut(topology),))


def _nothing(topology: Topology, rundir: Path, log: bool) -> DutStarted:
    return DutStarted()


def _mininet_up(topology: Topology, rundir: Path, log: bool) -> LabState:
    from p4tester.lab.mininet.lab import up

    return up(topology, rundir, log=log)


def _mininet_down(state: LabState, rundir: Path) -> None:
    from p4tester.lab.mininet.lab import down

    down(state, rundir)


# DUT kinds of a veth lab (topology `dut.kind`): how to start each.
DUT_KINDS: dict[str, DutStart] = {
    "loopback": _nothing,
    "external": _nothing,
    "bmv2": _start_bmv2,
    "linux": _start_linux,
    "bridge": _start_bridge,
}

# Lab kinds other than the runner's own veth lab (topology `lab`).
LAB_KINDS: dict[str, LabKind] = {
    "mininet": LabKind(_mininet_up, _mininet_down),
}


def dut_kind(name: str) -> DutStart:
    try:
        return DUT_KINDS[name]
    except KeyError:
        raise LabError(f"DUT kind {name!r} has no starter; known: {sorted(DUT_KINDS)}") from None


def lab_kind(name: str) -> LabKind:
    try:
        return LAB_KINDS[name]
    except KeyError:
        raise LabError(f"lab kind {name!r} unknown; known: veth, {', '.join(LAB_KINDS)}") from None
