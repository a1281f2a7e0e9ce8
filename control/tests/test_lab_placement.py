"""Where a lab's processes run (lab.placement, issue 20.4): the plan per CPU count, the
CPU lists, and the switch found by the port it listens on."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from p4tester.lab.placement import (
    Placement,
    cpu_list,
    listening_pid,
    listening_pids,
    plan_placement,
)


def test_too_few_cpus_pin_nothing_and_say_why() -> None:
    # The tester switch keeps two CPUs: a 2-core host pins nothing, with or without DUT.
    assert plan_placement([0, 1, 2], with_dut=True) == (
        "not pinned: 3 CPUs, 4 needed to keep the tester switch, the lab DUT and the "
        "controller apart")
    assert plan_placement([0, 1], with_dut=False) == (
        "not pinned: 2 CPUs, 3 needed to keep the tester switch and the controller apart")
    assert plan_placement([3], with_dut=False) == (
        "not pinned: 1 CPU, 3 needed to keep the tester switch and the controller apart")


def test_the_controller_gets_the_last_cpu_the_tester_the_first_half_of_the_rest() -> None:
    assert plan_placement([0, 1, 2, 3], with_dut=True) == Placement((0, 1), (2,), (3,))
    assert plan_placement([0, 1, 2, 3, 4], with_dut=True) == Placement((0, 1), (2, 3), (4,))
    assert plan_placement([7, 6, 5, 4, 3, 2, 1, 0], with_dut=True) == Placement(
        (0, 1, 2, 3), (4, 5, 6), (7,))
    assert plan_placement([0, 1, 2], with_dut=False) == Placement((0, 1), (), (2,))
    four, spread = plan_placement([0, 1, 2, 3], True), plan_placement([0, 2, 4], False)
    assert isinstance(four, Placement) and isinstance(spread, Placement)
    assert four.describe() == "pinned: tester switch cpus 0-1, lab DUT cpus 2, controller cpus 3"
    assert spread.describe() == "pinned: tester switch cpus 0,2, controller cpus 4"


def test_cpu_lists_are_ranges() -> None:
    assert cpu_list({0, 1, 2, 3, 6}) == "0-3,6"
    assert cpu_list([5]) == "5"
    assert cpu_list([1, 3, 4, 9, 10, 11]) == "1,3-4,9-11"
    assert cpu_list([]) == "none"


def test_the_process_listening_on_a_port_is_found() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert listening_pid(port) == os.getpid()
    assert listening_pid(port) is None  # closed: nobody listens


def test_several_ports_are_found_in_one_pass() -> None:
    with socket.socket() as first, socket.socket() as second:
        for server in (first, second):
            server.bind(("127.0.0.1", 0))
            server.listen()
        ports = [first.getsockname()[1], second.getsockname()[1]]
        assert listening_pids([*ports, 1]) == dict.fromkeys(ports, os.getpid())


def test_no_proc_no_pid(tmp_path: Path) -> None:
    assert listening_pid(9559, proc=tmp_path) is None
