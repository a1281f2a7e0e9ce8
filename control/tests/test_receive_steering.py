"""Where an eBPF lab's receive work runs (lab.receive_steering) and which tester ports'
refused frames are a lab DUT's input's (lab.dut_counters: fed_ports), on a host of two
CPUs (the sender's is the first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.config.topology import load_topology
from p4tester.lab import receive_steering
from p4tester.lab.dut_counters import Bmv2DutCounters, LinuxDutCounters

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"


@pytest.fixture(autouse=True)
def two_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(receive_steering.os, "sched_getaffinity", lambda pid: {0, 1})


def test_the_sender_cpu_and_the_others() -> None:
    assert (receive_steering.sender_cpu(), receive_steering.sender_mask(),
            receive_steering.receive_mask()) == (0, "1", "2")


@pytest.mark.parametrize(("topology", "steered", "apart"), [
    ("ebpf-linux-bridge-fast.yaml", True, True),
    ("ebpf-linux-router.yaml", True, True),
    ("ebpf-two-testers-bridge.yaml", True, False),  # several testers: all off the senders
    ("ebpf-bmv2-dut.yaml", False, False),  # a BMv2 DUT reads its ports itself
    ("ebpf-loopback.yaml", False, False),
])
def test_which_labs_are_steered_and_where_the_tester_receives(topology: str, steered: bool,
                                                              apart: bool) -> None:
    lab = load_topology(TOPOLOGIES / topology)
    assert receive_steering.steered(lab.switch.target, lab.dut.kind, lab.lab) is steered
    assert receive_steering.tester_apart(lab.switch.target, lab.dut.kind, lab.lab,
                                         len(lab.testers)) is apart


def test_a_kernel_dut_apart_from_the_tester_is_fed_by_its_cabled_ports() -> None:
    assert LinuxDutCounters(load_topology(TOPOLOGIES / "ebpf-linux-bridge-fast.yaml")
                            ).fed_ports() == frozenset({1, 2})
    # Beside the testers' receive, a refused frame may be either's: the tester's.
    assert LinuxDutCounters(load_topology(TOPOLOGIES / "ebpf-two-testers-bridge.yaml")
                            ).fed_ports() == frozenset()
    assert Bmv2DutCounters(load_topology(TOPOLOGIES / "ebpf-bmv2-dut.yaml")
                           ).fed_ports() == frozenset()


def test_one_cpu_steers_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(receive_steering.os, "sched_getaffinity", lambda pid: {0})
    lab = load_topology(TOPOLOGIES / "ebpf-linux-bridge-fast.yaml")
    assert receive_steering.steered(lab.switch.target, lab.dut.kind, lab.lab) is False
