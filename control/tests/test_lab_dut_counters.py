"""DUT check counters of a Linux lab DUT: `ip -s -j link` parsed exactly, and the
kernel-as-program mapping that leaves just the interfaces' own drops; whether a BMv2 lab
DUT is still there."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.lab.dut_counters import parse_ip_link_stats
from p4tester.results.checks import PortCheck
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.selfcheck import ProgramPortCounts, build_self_check


def link(name: str, rx: int, tx: int, rx_dropped: int, tx_dropped: int) -> dict[str, object]:
    return {"ifname": name, "stats64": {
        "rx": {"bytes": 0, "packets": rx, "errors": 0, "dropped": rx_dropped},
        "tx": {"bytes": 0, "packets": tx, "errors": 0, "dropped": tx_dropped}}}


NAMES = {1: "p4ld1", 2: "p4ld2"}
REPO = Path(__file__).resolve().parents[2]


def test_parse_ip_link_stats() -> None:
    links = [{"ifname": "lo"}, link("p4ld1", 10, 2, 1, 0), link("p4ld2", 3, 9, 0, 4)]
    assert parse_ip_link_stats(links, NAMES) == {
        1: InterfaceCounters(10, 2, 1, 0), 2: InterfaceCounters(3, 9, 0, 4)}
    assert parse_ip_link_stats(links[:2], NAMES) is None  # p4ld2 gone: no check
    assert parse_ip_link_stats({"not": "a list"}, NAMES) is None


def test_linux_dut_check_shows_only_the_interfaces_own_drops() -> None:
    """As LinuxDutCounters builds it: program rx = interface rx, program tx = interface
    tx + tx_dropped. Egress p4ld2 could not hand 4 frames to the tester's side."""
    before = {1: InterfaceCounters(0, 0, 0, 0), 2: InterfaceCounters(0, 0, 0, 0)}
    after = {1: InterfaceCounters(1000, 0, 0, 0), 2: InterfaceCounters(0, 990, 0, 4)}

    def program(counters: dict[int, InterfaceCounters]) -> ProgramPortCounts:
        return ProgramPortCounts(rx={p: c.rx_packets for p, c in counters.items()},
                                 tx={p: c.tx_packets + c.tx_dropped for p, c in counters.items()})

    check = build_self_check(NAMES, before, after, program(before), program(after))
    assert check.ports == (PortCheck(1, "p4ld1", 1000, 0, 0, 0, 1000, 0),
                           PortCheck(2, "p4ld2", 0, 990, 0, 4, 0, 994))
    assert (check.ok, check.rx_dropped, check.tx_dropped) == (False, 0, 4)


def test_a_bmv2_dut_that_listens_is_running_and_one_that_refuses_is_gone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Gone (nothing listens): its trials show the loss, unchecked no more; running but
    not answering a read: the trial is unchecked (session)."""
    import dataclasses
    import socket

    from p4tester.config.topology import load_topology
    from p4tester.lab.dut_counters import Bmv2DutCounters

    monkeypatch.chdir(REPO)
    topology = load_topology(REPO / "topologies/bmv2-dut.yaml")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        settings = tuple((k, f"127.0.0.1:{port}" if k == "grpc" else v)
                         for k, v in topology.dut.settings)
        dut = Bmv2DutCounters(dataclasses.replace(
            topology, dut=dataclasses.replace(topology.dut, settings=settings)))
        assert dut.running()
    assert not dut.running()
    assert dut.read_program() is None


def test_a_plain_bmv2_dut_states_its_slowest_queue_rate() -> None:
    """tester.dut_queue's rate: the slowest paced egress port of a DUT that drops
    nothing by design; none when a port is unpaced or the DUT impairs frames."""
    import dataclasses

    from p4tester.config.topology import load_topology
    from p4tester.lab.dut_counters import Bmv2DutCounters

    topology = load_topology(REPO / "topologies/bmv2-dut.yaml")

    def rate(**changes: str) -> float | None:
        settings = dict(topology.dut.settings) | changes
        dut = dataclasses.replace(topology.dut, settings=tuple(settings.items()))
        return Bmv2DutCounters(dataclasses.replace(topology, dut=dut)).steady_rate_pps()

    assert rate() == 3000.0  # queue_rate_pps on both egress ports
    assert rate(queue_rates_pps="2:220") == 220.0
    assert rate(queue_rates_pps="2:220,1:88") == 88.0
    assert rate(drop_every="100") is None
    settings = {k: v for k, v in topology.dut.settings if k != "queue_rate_pps"}
    dut = dataclasses.replace(topology.dut, settings=tuple(settings.items()))
    assert Bmv2DutCounters(dataclasses.replace(topology, dut=dut)).steady_rate_pps() is None
