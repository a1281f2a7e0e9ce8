"""OTG flows across several testers (tester.group_flows, otg.agent's flow methods,
otg.mapping's agent locations), with fake testers on a simulated path. The lab runs
them on two eBPF testers and checks them against captures:
tests_ebpf/test_several_testers.py."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from test_several_testers import PORTS, TESTERS, Clock, World, probe_pair, stream, topology

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.errors import TesterUnanswered
from p4tester.otg.agent import AgentError, TesterAgent, _Opened
from p4tester.otg.errors import OtgError
from p4tester.otg.mapping import map_config
from p4tester.p4rt import CounterValue
from p4tester.targets.remote_flows import plan_values
from p4tester.tester.agent_codec import decode
from p4tester.tester.clock_probes import ProbePath
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.flow_engine import CounterNames, FlowLatency, FlowPlan
from p4tester.tester.group_clocks import GroupPath
from p4tester.tester.group_flows import CORRECT_S, FlowMember, GroupFlowEngine
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_loop import TrialLoop

COUNTERS = CounterNames("tx_stream", "rx_stream", "tx_port", "rx_port")


@dataclass
class FakeFlows:
    """One tester's flow engine: the flows it sends leave with `sent` frames, those
    that arrive on its ports count `arrived`; every call is recorded."""

    ports: set[int]
    sent: int = 0
    arrived: int = 0
    calls: list[str] = field(default_factory=list)
    corrections: dict[int, int] = field(default_factory=dict)
    counters: CounterNames = COUNTERS
    stamp_counts_ports = False

    def open(self) -> None:
        self.calls.append("open")

    def close(self) -> None:
        self.calls.append("close")

    def snapshot(self) -> CounterSnapshot:
        # Every tester has a cell for every stream; only its own role's are real.
        return CounterSnapshot({
            "tx_stream": {0: CounterValue(self.sent if 1 in self.ports else 0, 0),
                          1: CounterValue(self.sent if 2 in self.ports else 0, 0)},
            "rx_stream": {0: CounterValue(self.arrived if 2 in self.ports else 0, 0),
                          1: CounterValue(self.arrived if 1 in self.ports else 0, 0)},
            "tx_port": {p: CounterValue(self.sent, 0) for p in self.ports},
            "rx_port": {p: CounterValue(self.arrived, 0) for p in self.ports}})

    def run_values_in_use(self) -> frozenset[int]:
        return frozenset({7})

    def self_check(self, run_value: int, dut: DutCounterSource | None) -> TrialLoop:
        raise AssertionError("not used here")

    def expect(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        self.calls.append(f"expect {[f.stream_id for f in flows]}")

    def start(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        self.calls.append(f"start {[f.stream_id for f in flows]}")

    def generated(self, stream_id: int) -> int:
        self.calls.append(f"generated {stream_id}")
        return self.sent

    def stop_flow(self, stream_id: int) -> None:
        self.calls.append(f"stop {stream_id}")

    def pause(self, stream_ids: Sequence[int]) -> None:
        self.calls.append(f"pause {list(stream_ids)}")

    def resume(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        self.calls.append(f"resume {[f.stream_id for f in flows]}")

    def latency(self, stream_id: int) -> FlowLatency | None:
        self.calls.append(f"latency {stream_id}")
        return FlowLatency(1000.0, 3000.0, 2000.0)

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        self.corrections[stream_id] = correction_ns

    def start_notes(self) -> tuple[str, ...]:
        return ()


STREAMS = (stream(0, 1, 2), stream(1, 2, 1))
PLANS = tuple(FlowPlan(s, 100, 1000, bytes(60)) for s in STREAMS)


def engine(world: World) -> tuple[GroupFlowEngine, FakeFlows, FakeFlows, Clock]:
    west, east = FakeFlows({1}, sent=1000, arrived=998), FakeFlows({2}, sent=1000, arrived=999)
    a, b = probe_pair(world)
    members = (FlowMember("west", west, a, frozenset({1})),
               FlowMember("east", east, b, frozenset({2})))
    path = GroupPath("west", "east", ProbePath(a, b, stream(63, 1, 2), stream(62, 2, 1)))
    clock = Clock()
    return (GroupFlowEngine(members, STREAMS, (path,), clock=clock, sleep=clock.sleep),
            west, east, clock)


def symmetric(east_ahead_ns: int) -> World:
    return World({"west": 0, "east": east_ahead_ns}, {("west", "east"): 7_000,
                                                      ("east", "west"): 7_000})


def test_each_flow_between_testers_is_stamped_on_its_receivers_clock() -> None:
    group, west, east, _ = engine(symmetric(1_500_000))
    group.expect(PLANS, 0, 9)
    # Each tester was told every flow (it does its own part of each), then the probes.
    assert west.calls == east.calls == ["expect [0, 1]"]
    # East's clock minus west's, less the guard (uncertainty 0 and the 1-us slack).
    assert west.corrections == {0: 1_500_000 - 1_000}
    assert east.corrections == {1: -1_500_000 - 1_000}
    assert group.start_notes() == (
        "clock east - west: +1500.0 us +- 0.0 us (drift 0.0 ppm; 2 probe rounds)",
        "west: no PTP (no ptp4l here); east: no PTP (no ptp4l here)")
    group.start(PLANS, 0, 9)
    # The receiver's figures (1000, 3000, 2000 ns) less the guard.
    assert group.latency(0) == FlowLatency(0.0, 2000.0, 1000.0)
    group.stop_flow(0)
    group.stop_flow(1)
    assert west.calls[-2:] == ["start [0, 1]", "stop 0"]
    assert east.calls[-3:] == ["start [0, 1]", "latency 0", "stop 1"]


def test_after_the_flows_a_clock_that_jumped_leaves_the_start_unvouched() -> None:
    """The probes run again once the flows stopped (as after a trial): east's clock
    stepped 5 ms meanwhile, so the flows' one-way latency is not vouched for."""
    world = symmetric(1_500_000)
    group, _, _, clock = engine(world)
    group.expect(PLANS, 0, 9)
    clock.sleep(2.0)
    assert group.closing_verdict() is None  # nothing moved
    group.expect(PLANS, 1, 9)
    clock.sleep(2.0)
    world.offsets["east"] += 5_000_000
    assert group.closing_verdict() == (
        "one-way latency of testers west and east not vouched for: the clock offset moved "
        "5000.0 us in 2.000 s, more than 200 ppm of drift and the probes' spread allow "
        "(400.0 us): a clock was stepped")


def test_stamps_that_stopped_following_the_drift_leave_the_start_unvouched() -> None:
    group, west, _, _ = engine(symmetric(0))
    group.expect(PLANS, 0, 9)

    def unanswered(stream_id: int, correction_ns: int) -> None:
        raise TesterUnanswered("tester west's agent at 192.0.2.10:8443 did not answer")

    west.set_tx_clock_correction = unanswered  # type: ignore[method-assign]
    group._follow_drift_once()
    assert group.closing_verdict() == (
        "the stamps stopped following the clocks' drift: tester west's agent at "
        "192.0.2.10:8443 did not answer")


def test_a_delay_below_zero_leaves_the_start_unvouched() -> None:
    group, _, east, _ = engine(symmetric(0))
    group.expect(PLANS, 0, 9)
    east.latency = lambda sid: FlowLatency(1000.0, float(1 << 31), 2000.0)  # type: ignore
    assert group.closing_verdict() == (
        "stream 0: a one-way delay below zero beyond the offset's stated uncertainty "
        "(asymmetry beyond asymmetry_us, or a clock stepped)")


def east_gains(world: World, clock: Clock, ns_per_s: int) -> Callable[[float], None]:
    """A sleep over which east's clock gains ns_per_s on west's (20 000: 20 ppm)."""
    def drifting(seconds: float) -> None:
        clock.sleep(seconds)
        world.offsets["east"] += round(seconds * ns_per_s)

    return drifting


def test_the_correction_follows_the_drift_from_one_start_to_the_next() -> None:
    """East gains 20 ppm: the first start measures twice a second apart; later
    corrections move along the drift measured."""
    world = symmetric(1_500_000)
    group, west, _, clock = engine(world)
    group.clocks.sleep = east_gains(world, clock, ns_per_s=20_000)
    group.expect(PLANS, 0, 9)
    # Predicted halfway to the next correction: 20 ppm of half of CORRECT_S more.
    half = round(20e-6 * CORRECT_S / 2 * 1e9)
    assert half == 250
    assert west.corrections == {0: 1_520_000 + half - 1_000}  # less the guard
    assert group.start_notes()[0].startswith("clock east - west: +1520.0 us +- 0.0 us "
                                             "(drift 20.0 ppm;")
    clock.sleep(0.5)
    world.offsets["east"] += 10_000
    group._correct()  # as the thread does every CORRECT_S while the flows run
    assert west.corrections == {0: 1_530_000 + half - 1_000}


def test_a_move_within_the_estimates_uncertainty_is_not_followed_as_a_drift() -> None:
    """East gains 20 ppm, 20 us over the first start's second, but the path's asymmetry
    bound (50 us: 25 us of uncertainty each) could explain that much: the corrections
    keep the start's offset instead of carrying a drift they cannot tell from noise."""
    world = symmetric(1_500_000)
    group, west, _, clock = engine(world)
    group.clocks.asymmetry_ns = 50_000
    group.clocks.sleep = east_gains(world, clock, ns_per_s=20_000)
    group.expect(PLANS, 0, 9)
    assert west.corrections == {0: 1_520_000 - 50_000}  # less the guard (26 us -> 50)
    assert group.start_notes()[0].startswith("clock east - west: +1520.0 us +- 25.0 us "
                                             "(drift 0.0 ppm;")


def test_a_flow_is_counted_by_its_sender_and_its_receiver() -> None:
    group, west, east, _ = engine(symmetric(0))
    west.sent, east.arrived = 1000, 997
    east.sent, west.arrived = 500, 500
    merged = group.snapshot()
    assert merged.cell("tx_stream", 0).packets == 1000 and merged.cell("rx_stream", 0).packets \
        == 997
    assert merged.cell("tx_stream", 1).packets == 500 and merged.cell("rx_stream", 1).packets \
        == 500
    assert merged.cell("tx_port", 1).packets == 1000 and merged.cell("rx_port", 2).packets \
        == 997
    assert group.generated(1) == 500
    assert group.latency(0) == FlowLatency(1000.0, 3000.0, 2000.0)
    assert east.calls == ["generated 1", "latency 0"] and west.calls == []
    group.pause([0, 1])
    group.resume(PLANS[:1], 0, 9)
    assert west.calls == ["pause [0]", "resume [0]"] and east.calls[-1] == "pause [1]"
    assert group.run_values_in_use() == frozenset({7})


def test_probes_that_do_not_come_through_refuse_the_start_saying_where() -> None:
    world = symmetric(0)
    world.lost.add(("east", "west"))
    group, _, _, _ = engine(world)
    with pytest.raises(ConfigError) as refused:
        group.expect(PLANS, 0, 9)
    assert str(refused.value) == (
        "the flows' one-way latency cannot be measured: no probe frames came through both "
        "ways between testers west and east in 7 rounds (streams 1 -> 2 and 2 -> 1): the "
        "path is down, or the DUT drops those frames")


def test_flows_on_one_tester_need_no_probes() -> None:
    """A start whose flows all stay on one tester of the group measures no clocks and
    corrects no stamps."""
    west, east = FakeFlows({1, 2}), FakeFlows({3})
    a, b = probe_pair(World({"west": 0, "east": 0}, {}))  # no path: a probe would fail
    group = GroupFlowEngine((FlowMember("west", west, a, frozenset({1, 2})),
                             FlowMember("east", east, b, frozenset({3}))),
                            (stream(0, 1, 2),), ())
    group.expect((FlowPlan(stream(0, 1, 2), 100, 10, bytes(60)),), 0, 9)
    assert west.corrections == {} and group.start_notes() == ()


# ---- the agent's side ------------------------------------------------------------

OTG_CONFIG: dict[str, Any] = {
    "ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
    "flows": [{"name": "west-east", "tx_rx": {"choice": "port", "port": {
        "tx_name": "p1", "rx_names": ["p2"]}}, "rate": {"choice": "pps", "pps": 100},
        "duration": {"choice": "fixed_packets", "fixed_packets": {"packets": 50}},
        "size": {"choice": "fixed", "fixed": 128},
        "packet": [{"choice": "ethernet", "ethernet": {}}, {"choice": "ipv4", "ipv4": {}},
                   {"choice": "udp", "udp": {}}]}]}


# What an agent's open answers of its tester's trial reads (otg.agent.PROPERTIES).
TRIAL_READS = SimpleNamespace(poll_s=0.1, drain_s=0.25, settle_s=0.25, settle_max_s=10.0,
                              host_bound=True, dut_between=True, queues_input=False)


def agent_for_flows() -> tuple[TesterAgent, list[Profile], FakeFlows]:
    opened: list[Profile] = []
    flows = FakeFlows({2})

    def open_flows(_topology: Topology, profile: Profile, name: str, run: int) -> _Opened:
        assert (name, run) == ("east", 5)
        opened.append(profile)
        return _Opened(TRIAL_READS, object(), profile, lambda: None, flows=flows)

    def no_trials(*_: object) -> _Opened:
        raise AssertionError("opened for flows")

    return TesterAgent(no_trials, open_flows), opened, flows


def test_an_agent_maps_the_controllers_otg_config_to_the_same_streams() -> None:
    agent, opened, flows = agent_for_flows()

    text = yaml.safe_dump({"name": "two", "testers": TESTERS, "ports": PORTS,
                           "dut": {"kind": "bridge", "egress": 2}})
    agent.open({"topology": text, "otg_config": OTG_CONFIG, "drain_s": 0.25, "tester": "east",
                "run_value": 5})
    (profile,) = opened
    ours = map_config(OTG_CONFIG, topology())
    assert profile.streams == tuple(m.stream for f in ours.flows for m in f.members)
    assert profile.trial.drain_s == 0.25
    plan = FlowPlan(profile.streams[0], 100, 50, bytes.fromhex("0a0b"), 1, 12)
    agent.call("flow_expect", [plan_values([plan]), 3, 9])
    assert flows.calls == ["expect [0]"]
    assert decode(agent.call("flow_latency", [0])) == FlowLatency(1000.0, 3000.0, 2000.0)
    assert decode(agent.call("flow_generated", [0])) == 0


def test_an_otg_config_that_does_not_map_here_is_refused_saying_why() -> None:
    agent, opened, _ = agent_for_flows()
    text = yaml.safe_dump({"name": "two", "testers": TESTERS, "ports": PORTS,
                           "dut": {"kind": "bridge", "egress": 2}})
    config = {**OTG_CONFIG, "ports": [{"name": "p1", "location": "1"},
                                      {"name": "p2", "location": "9"}]}
    with pytest.raises(AgentError) as refused:
        agent.open({"topology": text, "otg_config": config, "tester": "east",
                    "run_value": 5})
    assert (str(refused.value), refused.value.status) == (
        "the OTG config sent does not map onto this agent's topology: ports[1].location "
        "'9': give a tester port number as in the topology 'two' (\"1\", \"2\"); "
        "flows[0].tx_rx.port.rx_names[0]: no port named 'p2'", 400)
    assert opened == []


def test_an_agent_opened_for_trials_refuses_flow_calls() -> None:
    def trials(_t: Topology, profile: Profile, _n: str, _r: int) -> _Opened:
        return _Opened(TRIAL_READS, object(), profile, lambda: None)

    agent = TesterAgent(trials)

    agent.open({"topology": yaml.safe_dump({"name": "t", "switch": {"target": "ebpf"},
                                            "ports": {1: {"line_rate": "1Gbps"}}}),
                "profile": yaml.safe_dump({"name": "p", "streams": [
                    {"id": 0, "tx_port": 1, "rx_port": 1}]}), "tester": "x", "run_value": 1})
    with pytest.raises(AgentError) as refused:
        agent.call("flow_snapshot", [])
    assert (str(refused.value), refused.value.status) == (
        "this tester is open for trials, not OTG flows: open it with otg_config", 409)


# ---- ports named by agent ----------------------------------------------------------

def reached() -> Topology:
    return topology(testers={"west": {"target": "ebpf"}, "east": {
        "target": "ebpf", "agent": "192.0.2.20:8443"}})


def test_a_port_is_named_by_its_agent_and_number_or_its_number() -> None:
    config = map_config({"ports": [{"name": "p1", "location": "1"},
                                   {"name": "p2", "location": "192.0.2.20:8443;2"}]},
                        reached())
    assert [(p.name, p.location, p.number) for p in config.ports] == [
        ("p1", "1", 1), ("p2", "192.0.2.20:8443;2", 2)]


@pytest.mark.parametrize(("location", "message"), [
    ("192.0.2.99:8443;2", "ports[1].location '192.0.2.99:8443;2': port 2 is tester east's, "
     'reached at 192.0.2.20:8443: give "192.0.2.20:8443;2" or "2"'),
    ("192.0.2.20:8443;1", "ports[1].location '192.0.2.20:8443;1': port 1 is on this host "
     '(no agent): give "1"'),
    ("192.0.2.20:8443;9", "ports[1].location '192.0.2.20:8443;9': give a tester port number "
     "as in the topology 'two' (\"1\", \"2\")"),
])
def test_a_port_named_by_the_wrong_agent_is_refused_naming_the_right_one(
        location: str, message: str) -> None:
    with pytest.raises(OtgError) as refused:
        map_config({"ports": [{"name": "p0", "location": "2" if location.endswith(";1")
                               else "1"}, {"name": "p1", "location": location}]}, reached())
    assert message in str(refused.value), str(refused.value)
