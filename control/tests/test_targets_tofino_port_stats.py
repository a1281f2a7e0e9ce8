"""The Tofino self-check's readers on the fake switch: MAC counters ($PORT_STAT) as a
PortCounterSource, and the program's rx_port / tx_port per topology port."""

from __future__ import annotations

from tofino_fake import FakeBfrt

from p4tester.targets.tofino.port_stats import MacPortCounters, program_port_counts
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.selfcheck import ProgramPortCounts, build_self_check

RX_PORT = "pipe.TesterIngress.rx_port"
TX_PORT = "pipe.TesterEgress.tx_port"


def test_mac_counters_are_read_from_hardware_per_topology_port() -> None:
    fake = FakeBfrt()
    fake.set_port_stat(136, 12, 34)  # 10/0: pipe 1
    source = MacPortCounters(fake, lambda: {10: 136}, {10: "10/0"})
    assert source.read((10,)) == {10: InterfaceCounters(12, 34, 0, 0)}
    assert source.interface(10) == "10/0"
    assert fake.port_stat_reads == [(136, True)]


def test_no_mac_counters_without_a_dev_port_or_a_stat_entry() -> None:
    fake = FakeBfrt(connectors=[1])
    assert MacPortCounters(fake, dict, {1: "1/0"}).read((1,)) is None
    assert MacPortCounters(fake, lambda: {1: 300}, {1: "1/0"}).read((1,)) is None


def test_program_counts_are_summed_over_pipes() -> None:
    fake = FakeBfrt()
    fake.count(RX_PORT, 136, 1, 5)
    fake.count(RX_PORT, 136, 0, 2)  # a symmetric counter read per pipe: summed
    fake.count(TX_PORT, 0, 0, 9)
    assert program_port_counts(fake, {1: 0, 10: 136}) == ProgramPortCounts(
        rx={1: 0, 10: 7}, tx={1: 9, 10: 0})


def test_a_mac_counter_that_wrapped_during_the_trial() -> None:
    """64-bit MAC counters: 2^64 - 3 before, 997 after is 1000 frames."""
    before = {1: InterfaceCounters((1 << 64) - 3, 0, 0, 0)}
    after = {1: InterfaceCounters(997, 0, 0, 0)}
    check = build_self_check({1: "1/0"}, before, after,
                             ProgramPortCounts({1: 10}, {}), ProgramPortCounts({1: 1005}, {}))
    assert (check.ports[0].interface_rx, check.ports[0].program_rx) == (1000, 995)
    assert check.rx_dropped == 5
