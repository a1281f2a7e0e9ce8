"""BMv2 testers in a group (targets.bmv2_group): the probes' registers read as a
nanosecond clock's, the clock setting that puts a switch on this host's clock, one
switch per tester, and the merged figures of switches that count every port."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.config.testers import SimulatedClock
from p4tester.config.topology import load_topology, topology_from_dict
from p4tester.dataplane import names
from p4tester.p4rt import CounterValue
from p4tester.runs.flow_engines import flow_engine
from p4tester.server.backend import BackendUnavailableError
from p4tester.server.switch_backend import SwitchBackend
from p4tester.targets.bmv2_flows import BMV2_COUNTERS
from p4tester.targets.bmv2_group import check_bmv2_group, clock_setting
from p4tester.targets.bmv2_probes import PROBE_BIAS_US, probe_register_ns
from p4tester.targets.bmv2_thrift import ClockStart
from p4tester.targets.remote_flows import RemoteFlowEngine
from p4tester.tester.clock_probes import signed_delay
from p4tester.tester.group_flows import GroupFlowEngine
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.tester_group import StreamRoles, merged_snapshot


@pytest.mark.parametrize("delay_us", [0, 85, -1500, 2_000_000, -2_000_000])
def test_a_probes_microsecond_register_reads_as_its_delay_in_nanoseconds(delay_us: int) -> None:
    register = (delay_us + PROBE_BIAS_US) % 2**32
    assert signed_delay(probe_register_ns(register)) == delay_us * 1000


def test_the_clock_setting_puts_the_switch_on_the_hosts_clock_plus_the_simulated_one() -> None:
    start = ClockStart(epoch_us=1_790_000_000_123_456, within_us=12)
    assert clock_setting(start, SimulatedClock(), 5_000_000) == start.epoch_us % 2**32
    # East 1.5 ms ahead, gaining 2^-16 from now on: the drift gained by now is taken out.
    assert clock_setting(start, SimulatedClock(1_500_000, 16), 5_000_000) == \
        (start.epoch_us + 1500 - (5_000_000 >> 16)) % 2**32


def two_bmv2(east: dict[str, object]) -> dict[str, object]:
    return {"name": "two", "testers": {"west": {"target": "bmv2"},
                                       "east": {"target": "bmv2", **east}},
            "ports": {1: {"line_rate": "5Mbps", "peer": "dut:1", "tester": "west"},
                      2: {"line_rate": "5Mbps", "peer": "dut:2", "tester": "east"}}}


def test_each_bmv2_tester_is_a_switch_of_its_own() -> None:
    check_bmv2_group(topology_from_dict(two_bmv2({"grpc": "127.0.0.1:9561",
                                                  "thrift_port": 9092}), "two.yaml"))
    with pytest.raises(ConfigError) as refused:
        check_bmv2_group(topology_from_dict(two_bmv2({"thrift_port": 9092}), "two.yaml"))
    assert str(refused.value) == (
        "two.yaml: testers west and east have the same grpc 127.0.0.1:9559: each BMv2 "
        "tester is a switch of its own; give east its own grpc and thrift_port")


def test_bmv2_counters_merge_by_whose_they_are() -> None:
    """Each switch has cells for every port and stream: a stream's TX from its sender,
    its RX from its receiver, a port's from its tester, frame kinds summed."""
    def cells(tx: int, rx: int, port1: int, port2: int, kind: int) -> CounterSnapshot:
        return CounterSnapshot({names.TX_STREAM: {0: CounterValue(tx, 64 * tx)},
                                names.RX_STREAM: {0: CounterValue(rx, 64 * rx)},
                                names.RX_PORT: {1: CounterValue(port1, 0),
                                                2: CounterValue(port2, 0)},
                                names.RX_KIND: {1: CounterValue(kind, 0)}})
    west, east = cells(100, 0, 3, 0, 3), cells(0, 98, 0, 98, 98)

    class Owner:
        def __init__(self, name: str, ports: frozenset[int]) -> None:
            self.name, self.ports = name, ports

    profile = profile_from_dict({"name": "p", "streams": [{"id": 0, "tx_port": 1,
                                                           "rx_port": 2}]}, "p.yaml")
    roles = StreamRoles.of(profile.streams, [Owner("west", frozenset({1})),
                                             Owner("east", frozenset({2}))])
    merged = merged_snapshot({"west": west, "east": east}, roles, {1: "west", 2: "east"})
    assert merged.cells[names.TX_STREAM] == {0: CounterValue(100, 6400)}
    assert merged.cells[names.RX_STREAM] == {0: CounterValue(98, 6272)}
    assert merged.cells[names.RX_PORT] == {1: CounterValue(3, 0), 2: CounterValue(98, 0)}
    assert merged.cells[names.RX_KIND] == {1: CounterValue(101, 0)}


def test_otg_flows_across_bmv2_testers_run_on_each_ones_host(tmp_path: Path) -> None:
    """Flows across two BMv2 testers get an engine over both switches, whose templates
    count a varying flow's ports as BMv2 stamps them; a tester behind an agent runs its
    flows there, counted under BMv2's names; a group of Tofino testers is refused
    naming what runs instead."""
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2}, {"id": 1, "tx_port": 2, "rx_port": 1}]},
        "p.yaml")
    here = flow_engine(topology_from_dict(two_bmv2({"grpc": "127.0.0.1:9561",
                                                    "thrift_port": 9092}), "two.yaml"),
                       profile, push_pipeline=False, otg_config={})
    assert isinstance(here, GroupFlowEngine)
    assert [(m.name, m.ports) for m in here.members] == [("west", frozenset({1})),
                                                         ("east", frozenset({2}))]
    assert here.stamp_counts_ports is True
    assert here.counters == BMV2_COUNTERS
    # An agent gets the topology as it is on file.
    on_file = tmp_path / "two.yaml"
    on_file.write_text(yaml.safe_dump(two_bmv2({"agent": "192.0.2.20:8443"}), sort_keys=False))
    there = flow_engine(load_topology(on_file), profile, push_pipeline=False, otg_config={})
    assert isinstance(there, GroupFlowEngine)
    east = there.members[1].engine
    assert isinstance(east, RemoteFlowEngine)
    assert (east.counters, east.stamp_counts_ports) == (BMV2_COUNTERS, True)
    tofino = {"name": "two", "testers": {"west": {"target": "tofino"},
                                         "east": {"target": "tofino",
                                                  "grpc": "192.0.2.30:50052"}},
              "ports": {1: {"line_rate": "100Gbps", "front_panel": "1/0", "tester": "west"},
                        2: {"line_rate": "100Gbps", "front_panel": "1/0", "tester": "east"}}}
    with pytest.raises(ConfigError) as refused:
        flow_engine(topology_from_dict(tofino, "two.yaml"), profile, push_pipeline=False,
                    otg_config={})
    assert str(refused.value) == (
        "two.yaml: OTG flows across several testers run on targets ebpf and bmv2 for now, "
        "not tofino: run the experiments (CLI, REST) across these testers")


def test_the_servers_live_counters_refuse_a_group_of_bmv2_testers() -> None:
    """The dashboard's live read opens one switch: across several it says what to run
    instead of reading west's switch as if it were the whole topology."""
    topology = topology_from_dict(two_bmv2({"grpc": "127.0.0.1:9561", "thrift_port": 9092}),
                                  "two.yaml")
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2}]}, "p.yaml")
    with pytest.raises(BackendUnavailableError) as refused:
        SwitchBackend(topology, profile).read()
    assert str(refused.value) == ("live counters read one BMv2 switch; across several "
                                  "testers run an experiment (soak gives interval statistics)")
