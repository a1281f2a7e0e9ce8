"""SwitchDriver's run of OTG flows through the BMv2 flow engine
(targets.bmv2_flows) against a fake tester session: every flow's
exact budget, each flow stopping on its own while a continuous one runs on, a stop,
final figures only once a flow reads stopped, and a failure reported, not lost."""

from __future__ import annotations

import time
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology, load_topology
from p4tester.dataplane import names
from p4tester.dataplane.headers import StreamRegisters
from p4tester.otg.mapping import MappedConfig, map_config
from p4tester.otg.readings import Reading
from p4tester.otg.switch_driver import SwitchDriver
from p4tester.p4rt import CounterValue
from p4tester.targets.bmv2_flows import Bmv2FlowEngine
from p4tester.tester.port_counters import InterfaceCounters

LOOPBACK = Path(__file__).resolve().parents[2] / "topologies" / "loopback.yaml"
FRAMES_PER_READ = 7  # the fake generator sends this many frames between two reads
RX_LOSS = 2  # the fake wire loses this many of stream 1's frames
LATENCY_US = (3, 9, 120, 20)  # min, max, sum, samples
WAIT_S = 10.0
pushes: list[bool] = []
sessions: list[FakeSession] = []  # the sessions the engines opened, newest last
ports: list[FakePorts] = []  # the self-check's port counters of the test running


class FakeDataplane:
    """A generator that sends FRAMES_PER_READ frames of each running stream per
    read (registers or TX counters), up to its budget; counters follow (the switch
    counts no FCS)."""

    def __init__(self, sizes: dict[int, int]) -> None:
        self.sizes = sizes
        self.budget: dict[int, int] = {}
        self.sent: dict[int, int] = {}
        self.running: set[int] = set()
        self.calls: list[str] = []
        self.fail = False
        self.expected_runs: dict[int, int] = {}  # rx_expected: stream -> run value
        self.runs: list[tuple[str, int]] = []  # (call, run value) in call order
        self.resized: dict[int, tuple[int, int]] = {}  # stream -> (largest cut, template)

    def run_values_in_use(self) -> frozenset[int]:
        return frozenset(self.expected_runs.values())

    def expect_stream(self, stream_id: int, rx_port: int, *, ipv6: bool, epoch: int,
                      run: int) -> None:
        self.calls.append(f"expect {stream_id} rx {rx_port} epoch {epoch}")
        self.expected_runs[stream_id] = run
        self.runs.append(("expect", run))

    def clear_stream(self, stream_id: int) -> None:
        self.sent[stream_id] = 0

    def configure_stream(self, stream_id: int, tx_port: int, frames_per_pass: int) -> None:
        self.calls.append(f"configure {stream_id} tx {tx_port} {frames_per_pass} per pass")

    def start_stream(self, stream_id: int, budget: int, epoch: int, run: int,
                     frames_per_pass: int = 1, tx_clock_correction_us: int = 0) -> None:
        self.runs.append(("start", run))
        self.budget[stream_id] = budget
        per_pass = f" {frames_per_pass} per pass" if frames_per_pass > 1 else ""
        # One tester: its own clock's stamps.
        assert tx_clock_correction_us == 0
        self.calls.append(f"start {stream_id} budget {budget}{per_pass}")

    def set_variation(self, stream_id: int, cycle: Any) -> None:
        self.calls.append(f"vary {stream_id} {len(cycle)} entries")

    def set_field_patterns(self, stream_id: int, entries: Any) -> None:
        self.calls.append(f"patterns {stream_id} {[entry.field for entry in entries]}")

    def set_resize(self, stream_id: int, max_cut: int, template_bytes: int) -> None:
        self.resized[stream_id] = (max_cut, template_bytes)

    def seed_stream(self, stream_id: int, template: bytes, seeds: int) -> None:
        assert len(template) == self.sizes[stream_id] - 4
        self.running.add(stream_id)

    def stop_stream(self, stream_id: int) -> None:
        self.running.discard(stream_id)
        self.calls.append(f"stop {stream_id}")

    def tick(self) -> None:
        for stream_id in self.running:
            self.sent[stream_id] = min(self.budget[stream_id],
                                       self.sent[stream_id] + FRAMES_PER_READ)

    def read_stream_registers(self, stream_id: int) -> StreamRegisters:
        if self.fail:
            raise RuntimeError("no reply from the switch")
        self.tick()
        low, high, total, samples = LATENCY_US
        return StreamRegisters(stream_id, 0, 0, samples, 0, low, high, total, 0, 0,
                               self.sent[stream_id], 0, 0)

    def read_counter(self, name: str) -> dict[int, CounterValue]:
        def cell(frames: int, stream: int) -> CounterValue:
            return CounterValue(frames, frames * (self.sizes[stream] - 4))
        if name == names.TX_STREAM:
            self.tick()
            return {s: cell(n, s) for s, n in self.sent.items()}
        received = {s: max(0, n - (RX_LOSS if s == 1 else 0)) for s, n in self.sent.items()}
        if name == names.RX_STREAM:
            return {s: cell(n, s) for s, n in received.items()}
        if name == names.TX_PORT:
            return {1: CounterValue(sum(self.sent.values()), 0)}
        if name == names.RX_PORT:
            return {2: CounterValue(sum(received.values()), 0)}
        return {}


class FakePorts:
    """The tester ports' own counters: port 1 sent what the program sent; port 2
    delivered what the program received, and `lost_in_switch` more that the program
    never saw (the self-check's case)."""

    def __init__(self, dataplane: FakeDataplane) -> None:
        self.dataplane = dataplane
        self.lost_in_switch = 0

    def interface(self, port: int) -> str:
        return f"p4lt{port}"

    def read(self, ports: tuple[int, ...]) -> dict[int, InterfaceCounters]:
        sent = sum(self.dataplane.sent.values())
        received = sent - (RX_LOSS if 1 in self.dataplane.sent else 0)
        delivered = max(0, received) + self.lost_in_switch
        return {1: InterfaceCounters(0, sent, 0, 0), 2: InterfaceCounters(delivered, 0, 0, 0)}


class FakeTarget:
    def __init__(self) -> None:
        self.rates: dict[int, int] = {}
        self.port_rates: dict[int, int] = {}

    def set_stream_rates(self, rates: dict[int, int]) -> None:
        self.rates.update(rates)

    def shape_ports(self, rates: dict[int, int]) -> None:
        self.port_rates.update(rates)


class FakeSession:
    def __init__(self, dataplane: FakeDataplane, topology: Topology, profile: Profile) -> None:
        self.dataplane = dataplane
        self.topology = topology
        self.profile = profile
        self.target = FakeTarget()
        self.opened = False

    def open(self) -> None:
        self.opened = True

    def close(self) -> None:
        self.opened = False


def two_flows(topology: Topology) -> MappedConfig:
    def flow(name: str, size: int, pps: int, duration: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "size": {"choice": "fixed", "fixed": size},
                "tx_rx": {"choice": "port", "port": {"tx_name": "p1", "rx_names": ["p2"]}},
                "rate": {"choice": "pps", "pps": pps}, "duration": duration,
                "metrics": {"enable": True, "latency": {"enable": True}},
                "packet": [{"choice": "ethernet", "ethernet": {}},
                           {"choice": "ipv4", "ipv4": {}},
                           {"choice": "udp", "udp": {"src_port": {
                               "choice": "values", "values": [1, 2, 3]}}}]}
    return map_config({
        "ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
        "flows": [flow("fixed", 128, 100, {"choice": "fixed_packets",
                                             "fixed_packets": {"packets": 30}}),
                  flow("endless", 256, 50, {"choice": "continuous"})],
    }, topology)


@pytest.fixture
def setup() -> tuple[SwitchDriver, FakeDataplane, MappedConfig]:
    topology = load_topology(LOOPBACK)
    dataplane = FakeDataplane({0: 128, 1: 256})

    def session(_topology: Topology, profile: Profile, *, push_pipeline: bool) -> Any:
        assert [s.id for s in profile.streams] == [0, 1]
        pushes.append(push_pipeline)
        sessions.append(FakeSession(dataplane, _topology, profile))
        return sessions[-1]

    def engine(_topology: Topology, profile: Profile, *, push_pipeline: bool,
               otg_config: object) -> Any:
        return Bmv2FlowEngine(_topology, profile, push_pipeline=push_pipeline,
                              session_factory=session, ports=ports[0])

    pushes.clear()
    sessions.clear()
    ports.clear()
    ports.append(FakePorts(dataplane))
    driver = SwitchDriver(topology, drain_s=0.05, push_pipeline=True, engine_factory=engine)
    return driver, dataplane, two_flows(topology)


def wait_for(driver: SwitchDriver, flow: str) -> Reading:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        reading = driver.read()
        if not reading.flows[flow].started:
            return reading
        time.sleep(0.02)
    raise AssertionError(f"{flow} did not stop")


def test_fixed_flow_stops_alone_then_stop_ends_the_rest(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    driver, dataplane, config = setup
    driver.apply(config)
    before = driver.read()
    assert (before.flows["fixed"].frames_tx, before.flows["fixed"].started) == (0, False)
    driver.start(config.flows)
    assert driver.running()
    reading = wait_for(driver, "fixed")
    fixed = reading.flows["fixed"]
    assert (fixed.frames_tx, fixed.frames_rx, fixed.bytes_tx, fixed.bytes_rx) == \
        (30, 30, 30 * 128, 30 * 128)
    assert fixed.latency is not None
    assert (fixed.latency.minimum_ns, fixed.latency.maximum_ns, fixed.latency.average_ns) \
        == (3000.0, 9000.0, 6000.0)
    assert reading.flows["endless"].started
    assert driver.running()
    driver.stop()
    final = driver.read()
    endless = final.flows["endless"]
    sent = dataplane.sent[1]
    assert sent > 0 and not endless.started and not driver.running()
    assert (endless.frames_tx, endless.frames_rx, endless.bytes_rx) == \
        (sent, sent - RX_LOSS, (sent - RX_LOSS) * 256)
    assert final.ports["p1"].frames_tx == 30 + sent
    assert final.ports["p2"].frames_rx == 30 + sent - RX_LOSS
    assert final.error is None
    assert dataplane.calls[:8] == ["expect 0 rx 2 epoch 0", "expect 1 rx 2 epoch 0",
                                   "start 0 budget 30", "start 1 budget 4294967295",
                                   "vary 0 3 entries", "patterns 0 []",
                                   "vary 1 3 entries", "patterns 1 []"]
    assert sessions[-1].target.rates == {0: 100, 1: 50}
    assert sessions[-1].target.port_rates == {1: 0}  # frames spread: the port unshaped


def test_failure_is_reported_and_flows_read_stopped(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    driver, dataplane, config = setup
    driver.apply(config)
    dataplane.fail = True
    driver.start(config.flows)
    reading = wait_for(driver, "endless")
    assert reading.error == "flows stopped on an error: no reply from the switch"
    assert not reading.flows["fixed"].started
    assert {"stop 0", "stop 1"} <= set(dataplane.calls)


def test_second_start_while_running_is_refused(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    driver, _dataplane, config = setup
    driver.apply(config)
    driver.start(config.flows)
    with pytest.raises(Exception, match="flows are transmitting: stop them before starting "
                                        "again"):
        driver.start(config.flows)
    driver.stop()
    driver.close()


def test_each_start_is_a_run_of_its_own(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    """Frames the previous start left in a DUT carry its run value: the next start
    draws another, and every expectation and generator of a start carries the same."""
    driver, dataplane, config = setup
    driver.apply(config)
    fixed = (config.flows[0],)
    values = []
    for _ in range(20):
        driver.start(fixed)
        wait_for(driver, "fixed")
        driver.stop()
        calls = [call for call, _ in dataplane.runs]
        assert calls == ["expect", "start"]
        first, second = (value for _, value in dataplane.runs)
        assert first == second
        values.append(first)
        dataplane.runs.clear()
    assert all(a != b for a, b in pairwise(values))


def test_pipeline_pushed_with_the_first_config_only(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    driver, _dataplane, config = setup
    driver.apply(config)
    driver.apply(config)
    assert pushes == [True, False]


def test_pause_keeps_the_count_and_resume_sends_the_rest(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    driver, dataplane, config = setup
    driver.apply(config)
    fixed = (config.flows[0],)
    driver.start(fixed)
    driver.pause()
    paused = driver.read().flows["fixed"]
    assert (paused.started, paused.paused) == (True, True)
    held = dataplane.sent[0]
    assert held < 30
    time.sleep(0.3)  # the driver's thread polls while paused: nothing is sent
    assert dataplane.sent[0] == held
    driver.resume()
    reading = wait_for(driver, "fixed")
    assert (reading.flows["fixed"].frames_tx, reading.flows["fixed"].paused) == (30, False)
    assert dataplane.calls.count("start 0 budget 30") == 2
    with pytest.raises(Exception, match="no flows are paused: nothing to resume"):
        driver.resume()


def test_a_start_checks_itself_once_its_flows_stopped(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    """The tester ports' counters against the program's, as a trial's (tester.trial_loop):
    frames port 2 delivered that the program never counted are the tester's loss, said
    once the flows stopped, never the DUT's."""
    driver, _dataplane, config = setup
    driver.apply(config)
    fixed = (config.flows[0],)
    driver.start(fixed)
    ports[0].lost_in_switch = 5  # after the opening edge: lost during this start
    wait_for(driver, "fixed")
    driver.stop()
    assert driver.read().unvouched == ("tester-limited: port 2: 5 of 35 frames p4lt2 received "
                                       "never reached the program")
    driver.start(fixed)  # nothing lost in this one: vouched for
    wait_for(driver, "fixed")
    driver.stop()
    assert driver.read().unvouched is None


def test_a_target_without_a_flow_engine_is_refused_when_the_config_is_posted() -> None:
    from p4tester.otg.errors import OtgError

    tofino = load_topology(LOOPBACK.parent / "tofino-32x100g.yaml")
    driver = SwitchDriver(tofino)
    config = map_config({"ports": [{"name": "p1", "location": "1"}], "flows": []}, tofino)
    with pytest.raises(OtgError) as refused:
        driver.apply(config)
    assert refused.value.kind == "validation"
    assert str(refused.value) == (f"{tofino.source}: switch target 'tofino' runs no OTG "
                                  "flows yet; known: bmv2, ebpf")


def test_a_burst_flow_makes_a_burst_per_loop_pass_out_of_a_port_at_line_rate(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    driver, dataplane, _ = setup
    config = two_flows(load_topology(LOOPBACK))
    # Flow 0 as three bursts of 10 (128 B), one every 10 ms (otg.bursts).
    bursts = {"choice": "burst", "burst": {"bursts": 3, "packets": 10, "inter_burst_gap": {
        "choice": "microseconds", "microseconds": 7651.2}}}
    (member,) = config.flows[0].members
    fixed = replace(config.flows[0], members=(
        replace(member, burst_frames=10, rate_pps=1000, budget=30),))
    assert _burst_flow(bursts) == (10, 1000, 30)
    config = replace(config, flows=(fixed, config.flows[1]))
    driver.apply(config)
    driver.start(config.flows)
    wait_for(driver, "fixed")
    driver.stop()
    assert dataplane.calls[:5] == ["expect 0 rx 2 epoch 0", "expect 1 rx 2 epoch 0",
                                   "configure 0 tx 1 10 per pass",
                                   "start 0 budget 30 10 per pass",
                                   "start 1 budget 4294967295"]
    target = sessions[-1].target
    # The loop paces bursts (100 a second); the port lets them out at its line rate
    # (4222.97 frames/s of 128 B on 5 Mbit/s).
    assert target.rates == {0: 100, 1: 50}
    assert target.port_rates == {1: 4222}


def test_a_burst_gap_slows_the_port_that_lets_the_burst_out(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    """A burst gap of 100 bytes: the TX port lets 128-B frames out every
    (128 + 8 + 100) x 8 bits at 5 Mbit/s, 2648.3 frames/s, instead of 4222.97."""
    driver, _dataplane, config = setup
    (member,) = config.flows[0].members
    spaced = replace(config.flows[0], members=(
        replace(member, burst_frames=10, rate_pps=1000, budget=30, burst_gap_bytes=100),))
    config = replace(config, flows=(spaced, config.flows[1]))
    driver.apply(config)
    driver.start(config.flows)
    wait_for(driver, "fixed")
    driver.stop()
    assert sessions[-1].target.port_rates == {1: 2648}


def _burst_flow(duration: dict[str, Any]) -> tuple[int, int, int | None]:
    """What the OTG mapping makes of the duration, for flow 0 of two_flows."""
    topology = load_topology(LOOPBACK)
    flow = map_config({
        "ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
        "flows": [{"name": "b", "size": {"choice": "fixed", "fixed": 128},
                   "tx_rx": {"choice": "port", "port": {"tx_name": "p1", "rx_names": ["p2"]}},
                   "duration": duration, "packet": [{"choice": "ethernet", "ethernet": {}},
                                                    {"choice": "ipv4", "ipv4": {}},
                                                    {"choice": "udp", "udp": {}}]}],
    }, topology).flows[0].members[0]
    return flow.burst_frames, flow.rate_pps, flow.budget


def test_random_sizes_arm_the_cut_and_fixed_ones_stay_whole(
        setup: tuple[SwitchDriver, FakeDataplane, MappedConfig]) -> None:
    """A random-size flow's stream is cut by up to max - min bytes from a max-size
    template; a fixed-size flow's is left as the session's open left it, whole."""
    driver, dataplane, config = setup
    random = {"choice": "random", "random": {"min": 128, "max": 1000}}
    stream = replace(config.flows[0].members[0].stream, frame_size=1000, size_cut=872)
    flow = replace(config.flows[0], members=(replace(config.flows[0].members[0],
                                                     stream=stream),))
    assert map_config({
        "ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
        "flows": [{"name": "fixed", "size": random, "rate": {"choice": "pps", "pps": 100},
                   "tx_rx": {"choice": "port", "port": {"tx_name": "p1", "rx_names": ["p2"]}},
                   "packet": [{"choice": "ethernet", "ethernet": {}},
                              {"choice": "ipv4", "ipv4": {}}, {"choice": "udp", "udp": {}}]}],
    }, load_topology(LOOPBACK)).flows[0].members[0].stream.size_cut == 872
    dataplane.sizes[0] = 1000
    config = replace(config, flows=(flow, config.flows[1]))
    driver.apply(config)
    driver.start(config.flows)
    wait_for(driver, "fixed")
    driver.stop()
    assert dataplane.resized == {0: (872, 996)}
    driver.close()


def test_a_flow_of_two_sizes_sends_each_budget_and_reads_as_one_flow() -> None:
    """weight_pairs 128 B x 2, 256 B x 1: 30 frames at 30/s are 20 of 128 B at 20/s
    (stream 0) and 10 of 256 B at 10/s (stream 1, whose fake wire loses 2); the flow
    stops once both are sent, and its counters are theirs together."""
    topology = load_topology(LOOPBACK)
    dataplane = FakeDataplane({0: 128, 1: 256})
    ports[:] = [FakePorts(dataplane)]
    sessions.clear()

    def engine(_topology: Topology, profile: Profile, *, push_pipeline: bool,
               otg_config: object) -> Any:
        def session(_t: Topology, _p: Profile, *, push_pipeline: bool) -> Any:
            sessions.append(FakeSession(dataplane, _t, _p))
            return sessions[-1]
        return Bmv2FlowEngine(_topology, profile, push_pipeline=push_pipeline,
                              session_factory=session, ports=ports[0])

    config = map_config({
        "ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
        "flows": [{"name": "mix", "size": {"choice": "weight_pairs", "weight_pairs": {
            "choice": "custom",
            "custom": [{"size": 128, "weight": 2}, {"size": 256, "weight": 1}]}},
            "tx_rx": {"choice": "port", "port": {"tx_name": "p1", "rx_names": ["p2"]}},
            "rate": {"choice": "pps", "pps": 30},
            "duration": {"choice": "fixed_packets", "fixed_packets": {"packets": 30}},
            "metrics": {"enable": True, "latency": {"enable": True}},
            "packet": [{"choice": "ethernet", "ethernet": {}}, {"choice": "ipv4", "ipv4": {}},
                       {"choice": "udp", "udp": {}}]}],
    }, topology)
    driver = SwitchDriver(topology, drain_s=0.05, engine_factory=engine)
    driver.apply(config)
    assert [s.id for s in sessions[-1].profile.streams] == [0, 1]
    driver.start(config.flows)
    reading = wait_for(driver, "mix")
    mix = reading.flows["mix"]
    assert (mix.frames_tx, mix.frames_rx) == (30, 28)
    assert (mix.bytes_tx, mix.bytes_rx) == (20 * 128 + 10 * 256, 20 * 128 + 8 * 256)
    assert mix.latency is not None and mix.latency.average_ns == 6000.0
    assert dataplane.sent == {0: 20, 1: 10}
    assert dataplane.calls[:4] == ["expect 0 rx 2 epoch 0", "expect 1 rx 2 epoch 0",
                                   "start 0 budget 20", "start 1 budget 10"]
    assert {"stop 0", "stop 1"} <= set(dataplane.calls)
    assert sessions[-1].target.rates == {0: 20, 1: 10}
    assert reading.error is None
    driver.close()
