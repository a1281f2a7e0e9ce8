"""Several testers in one topology (config.testers), their clocks' offset from probes
both ways (tester.clock_probes), and the group that runs a trial across them
(tester.tester_group): roles, merged counters, stamps corrected on the receiver's
clock and following its drift, and the records a trial keeps (results.clocks,
results.one_way, schema 12). The lab runs of the same are in tests_ebpf."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig, profile_from_dict
from p4tester.config.testers import drift_shift_of
from p4tester.config.topology import Topology, topology_from_dict
from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM, RX_KIND_FOREIGN, RX_KIND_STREAM
from p4tester.experiments.runner import TrialSpec
from p4tester.p4rt import CounterValue
from p4tester.results.clocks import ClockRecord, PtpState
from p4tester.results.model import LatencyStats, StreamStats, TrialResult
from p4tester.results.one_way import one_way_table, write_clocks_csv
from p4tester.results.serialize import SCHEMA_VERSION, trial_from_dict, trial_to_dict
from p4tester.runs.describe import describe
from p4tester.runs.flow_engines import flow_engine
from p4tester.streams.shapes import ShapeKind, TrafficShape
from p4tester.targets.ebpf.tester import clock_setting_cell, simulated_stamp
from p4tester.tester.clock_probes import (
    PROBE_BIAS,
    PROBE_FRAMES,
    PROBE_ROUNDS,
    ProbePath,
    ProbeUnanswered,
    measure_offset,
    signed_delay,
)
from p4tester.tester.group_clocks import GroupClocks
from p4tester.tester.group_plan import probe_pairs, probe_paths
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.rate_schedule import RateSchedule, build_schedule
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.tester_group import (
    GroupMember,
    GroupPath,
    StreamRoles,
    TesterGroup,
    merged_schedule,
    merged_snapshot,
)
from p4tester.tester.trial_course import StreamSample
from p4tester.tester.trial_loop import ArmedTrial, Extras, RxKinds

PORTS = {1: {"line_rate": "25Mbps", "peer": "dut:1", "tester": "west"},
         2: {"line_rate": "25Mbps", "peer": "dut:2", "tester": "east"}}
TESTERS = {"west": {"target": "ebpf"},
           "east": {"target": "ebpf",
                    "simulated_clock": {"offset_us": 1500, "drift_ppm": 15.2587890625}}}


def topology(**changes: object) -> Topology:
    data: dict[str, object] = {"name": "two", "testers": TESTERS, "ports": PORTS,
                               "dut": {"kind": "bridge", "egress": 2}}
    data.update(changes)
    return topology_from_dict({k: v for k, v in data.items() if v is not None}, "two.yaml")


# ---- topology --------------------------------------------------------------------

def test_a_topology_of_two_testers() -> None:
    two = topology(asymmetry_us=20)
    assert [t.name for t in two.testers] == ["west", "east"]
    assert two.testers[1].clock.offset_ns == 1_500_000
    assert two.testers[1].clock.drift_shift == 16
    assert two.testers[0].clock.offset_ns == 0 and two.testers[0].clock.drift_shift == 0
    assert two.testers[0].reach.agent == ""
    remote = topology(testers={"west": {"target": "ebpf"}, "east": {
        "target": "ebpf", "agent": "192.0.2.20:8443", "token_file": "/etc/east.token"}})
    assert (remote.testers[1].reach.agent, remote.testers[1].reach.token_file) == (
        "192.0.2.20:8443", "/etc/east.token")
    assert two.asymmetry_ns == 20_000
    assert two.switch.target == "ebpf"
    # Testers of two targets that stamp in nanoseconds, each port as its tester's target
    # names it; two hosts may each have an enp1s0.
    mixed = topology(testers={"west": {"target": "tofino", "grpc": "192.0.2.10:50052"},
                              "east": {"target": "ebpf", "agent": "192.0.2.20:8443"}},
                     ports={1: {**PORTS[1], "front_panel": "1/0"},
                            2: {**PORTS[2], "interface": "enp1s0"}})
    assert [(t.name, t.switch.target) for t in mixed.testers] == [("west", "tofino"),
                                                                   ("east", "ebpf")]
    assert mixed.tester("west").ports[0].front_panel == "1/0"
    assert mixed.tester("east").ports[0].interface == "enp1s0"
    apart = topology(testers={"west": {"target": "ebpf", "agent": "192.0.2.10:8443"},
                              "east": {"target": "ebpf", "agent": "192.0.2.20:8443"}},
                     ports={1: {**PORTS[1], "interface": "enp1s0"},
                            2: {**PORTS[2], "interface": "enp1s0"}})
    assert [p.interface for p in apart.ports] == ["enp1s0", "enp1s0"]
    assert two.tester_of_port(2) == "east"
    east = two.tester("east")
    assert [p.number for p in east.ports] == [2] and east.testers == ()


@pytest.mark.parametrize(("changes", "message"), [
    ({"switch": {"target": "ebpf"}},
     "two.yaml: give one `switch` or several `testers`, not both: move the switch under "
     "testers with a name"),
    ({"testers": {"west": {"target": "ebpf"}}},
     "two.yaml: testers: expected two or more, name -> switch settings, e.g. {west: "
     "{target: ebpf}, east: {target: ebpf}} (one tester: use `switch`)"),
    ({"ports": {1: PORTS[1], 2: {"line_rate": "25Mbps"}}},
     "two.yaml: ports: port 2 names no tester; add tester: <one of west, east>"),
    ({"ports": {1: PORTS[1], 2: {**PORTS[2], "tester": "north"}}},
     "two.yaml: ports: port 2: tester 'north' is not under testers (they are: west, east)"),
    ({"ports": {1: PORTS[1], 2: {**PORTS[2], "tester": "west"}}},
     "two.yaml: testers: east has no port; give a port tester: east, or drop it"),
    ({"testers": {"west": {"target": "tofino"}, "east": {"target": "ebpf"}},
      "ports": {1: {**PORTS[1], "front_panel": "1/0"},
                2: {**PORTS[2], "front_panel": "2/0"}}},
     "two.yaml: ports: port 2: front_panel is for target tofino (this switch is ebpf); "
     "drop it"),
    ({"testers": {"west": {"target": "ebpf"}, "east": {"target": "ebpf"}},
      "ports": {1: {**PORTS[1], "interface": "enp1s0"}, 2: {**PORTS[2], "interface": "enp1s0"}}},
     "two.yaml: ports: ports 1 and 2 are both interface 'enp1s0'; each interface once"),
    ({"testers": {"west": {"target": "p4tg"}, "east": {"target": "ebpf"}}},
     "two.yaml: testers: west: target 'p4tg' unknown; use one of ('bmv2', 'tofino', 'ebpf')"),
    ({"testers": {"west": {"target": "bmv2"}, "east": {"target": "ebpf"}}},
     "two.yaml: testers: west (bmv2) stamps in microseconds, east (ebpf) in nanoseconds: a "
     "stream's latency is its receiver's clock less its sender's stamp; give the testers of "
     "a topology targets that stamp in one unit (eBPF and Tofino: nanoseconds)"),
    ({"testers": {"West": {"target": "ebpf"}, "east": {"target": "ebpf"}}},
     "two.yaml: testers: West: tester name 'West': use lower-case letters, digits, '-' and "
     "'_', e.g. west"),
    ({"testers": {"west": {"target": "tofino", "simulated_clock": {"offset_us": 1}},
                  "east": {"target": "ebpf"}}},
     "two.yaml: testers: west: simulated_clock is for targets ebpf, bmv2 (their programs "
     "add it to the stamps); drop it"),
    ({"testers": {"west": {"target": "bmv2", "simulated_clock": {"offset_us": 1.5}},
                  "east": {"target": "bmv2", "grpc": "127.0.0.1:9560"}}},
     "two.yaml: testers: west: simulated_clock: offset_us 1.5 is not whole: BMv2 stamps in "
     "microseconds; give a whole number"),
    ({"testers": {"west": {"target": "ebpf"},
                  "east": {"target": "ebpf", "simulated_clock": {"drift_ppm": 20}}}},
     "two.yaml: testers: east: simulated_clock: drift_ppm 20 is not one the program makes: "
     "give 0 or 10^6 / 2^k for k in 1..31 (the clock shifted right by k), e.g. "
     "30.51757812, 15.25878906, 7.629394531"),
    ({"testers": {"west": {"target": "ebpf"},
                  "east": {"target": "ebpf", "simulated_clock": {"offset_us": 2e6}}}},
     "two.yaml: testers: east: simulated_clock: offset_us 2e+06 is beyond what the probes "
     "measure (+-1 s: the stamps are 32-bit nanoseconds); give less than 1 000 000"),
    ({"testers": {"west": {"target": "ebpf"},
                  "east": {"target": "ebpf", "simulated_clock": {"offset": 1}}}},
     "two.yaml: testers: east: simulated_clock: unknown key 'offset'; did you mean "
     "'offset_us'?"),
    ({"asymmetry_us": -1}, "two.yaml: asymmetry_us -1 must be 0 or more (microseconds)"),
    ({"testers": {"west": {"target": "ebpf", "token_file": "/t"}, "east": {"target": "ebpf"}}},
     "two.yaml: testers: west: token_file is for the tester's agent; give agent: host:port "
     "too, or drop it"),
    ({"testers": {"west": {"target": "ebpf", "agent": "east-host"},
                  "east": {"target": "ebpf"}}},
     "two.yaml: testers: west: agent 'east-host' must be host:port, e.g. 192.0.2.20:8443 "
     "(where that host runs p4tester otg)"),
    ({"testers": {"west": {"target": "tofino", "agent": "h:1"},
                  "east": {"target": "tofino"}}},
     "two.yaml: testers: west: agent reaches an eBPF or BMv2 tester on another host (a "
     "Tofino is reached at its grpc address); drop it"),
])
def test_a_wrong_group_is_refused_naming_the_fix(changes: dict[str, object],
                                                 message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        topology(**changes)
    assert str(refused.value) == message


def test_tester_and_asymmetry_belong_to_several_testers() -> None:
    one = {"name": "one", "switch": {"target": "ebpf"},
           "ports": {1: {"line_rate": "25Mbps", "tester": "west"}}}
    with pytest.raises(ConfigError, match="port 1: tester names one of several `testers`"):
        topology_from_dict(one, "one.yaml")
    one["ports"] = {1: {"line_rate": "25Mbps"}}
    with pytest.raises(ConfigError, match="asymmetry_us bounds the paths between several"):
        topology_from_dict({**one, "asymmetry_us": 5}, "one.yaml")


@pytest.mark.parametrize(("ppm", "shift"), [(0, 0), (15.2587890625, 16), (15.26, 16),
                                            (500_000, 1), (1e6 / (1 << 31), 31)])
def test_a_drift_is_a_shift_of_the_clock(ppm: float, shift: int) -> None:
    assert drift_shift_of(ppm, "here") == shift


# ---- the program's simulated clock -------------------------------------------------

def test_the_clock_setting_puts_the_stamps_offset_ahead_when_written() -> None:
    now = 123_456_789_012_345
    cell = clock_setting_cell(1_500_000, 16, now)
    assert cell >> 32 == 16
    assert simulated_stamp(now, cell) == (now + 1_500_000) % (1 << 32)
    # One second later the clock gained 10^9 / 2^16 ns more (to the shift's rounding).
    later = now + 1_000_000_000
    gained = (later >> 16) - (now >> 16)
    assert simulated_stamp(later, cell) == (later + 1_500_000 + gained) % (1 << 32)
    assert gained in (15258, 15259)


def test_a_negative_offset_and_no_drift() -> None:
    cell = clock_setting_cell(-2_000, 0, 10**12)
    assert cell == (1 << 32) - 2_000
    assert simulated_stamp(10**12, cell) == (10**12 - 2_000) % (1 << 32)


# ---- probes ------------------------------------------------------------------------

@dataclass
class World:
    """Testers on one path: each one's clock offset from true time (ns), the path's
    delay each way (ns, `jitter` added to every frame but the least), frames lost."""

    offsets: dict[str, int]
    delays: dict[tuple[str, str], int]
    jitter: int = 0
    lost: set[tuple[str, str]] = field(default_factory=set)
    ptp: dict[str, PtpState] = field(default_factory=dict)  # each host's, if it runs PTP


@dataclass
class FakeProbeSide:
    world: World
    tester: str
    received: dict[int, tuple[int, int]] = field(default_factory=dict)
    peers: dict[str, FakeProbeSide] = field(default_factory=dict)
    ended: list[int] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.tester

    def expect_probe(self, probe: StreamConfig) -> None:
        self.received[probe.id] = (0, 0xFFFFFFFF)

    def send_probe(self, probe: StreamConfig, frames: int, rate_pps: float,
                   correction_ns: int) -> None:
        receiver = next(p for p in self.peers.values() if probe.id in p.received)
        way = (self.tester, receiver.tester)
        if way in self.world.lost:
            return
        theta = self.world.offsets[receiver.tester] - self.world.offsets[self.tester]
        least = min((self.world.delays[way] + (self.world.jitter if i else 0) + theta
                     - correction_ns) % (1 << 32) for i in range(frames))
        receiver.received[probe.id] = (frames, least)

    def probe_minimum(self, probe_id: int) -> tuple[int, int]:
        return self.received[probe_id]

    def end_probe(self, probe_id: int) -> None:
        self.ended.append(probe_id)

    def ptp_state(self) -> PtpState:
        return self.world.ptp.get(self.tester, PtpState(False, why="no ptp4l here"))


def probe_pair(world: World) -> tuple[FakeProbeSide, FakeProbeSide]:
    a, b = FakeProbeSide(world, "west"), FakeProbeSide(world, "east")
    a.peers["east"], b.peers["west"] = b, a
    return a, b


def stream(sid: int, tx: int, rx: int) -> StreamConfig:
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": sid, "tx_port": tx, "rx_port": rx}]}, "p")
    return profile.streams[0]


def path_of(world: World) -> tuple[ProbePath, FakeProbeSide, FakeProbeSide]:
    a, b = probe_pair(world)
    return ProbePath(a, b, stream(63, 1, 2), stream(62, 2, 1)), a, b


def no_sleep(seconds: float) -> None:
    del seconds


def test_signed_delay_reads_either_clock_ahead() -> None:
    assert signed_delay((5_000 - PROBE_BIAS) % (1 << 32)) == 5_000
    assert signed_delay((-1_495_000 - PROBE_BIAS) % (1 << 32)) == -1_495_000


# Beyond +-1 s too: two hosts' CLOCK_MONOTONIC, two Tofinos' clocks differ by however
# long apart they started; the stamps need the offset modulo 2^32 ns, as a signed
# number. At 2^31 - 3000 ns the probes one way wrap and the other way do not.
@pytest.mark.parametrize("east_ahead_ns", [1_500_000, -1_500_000, 0, 1_000_000_000,
                                           (1 << 31) - 3_000, 7_000_001_500])
def test_the_offset_of_a_symmetric_path_is_exact(east_ahead_ns: int) -> None:
    world = World({"west": 0, "east": east_ahead_ns}, {("west", "east"): 7_000,
                                                       ("east", "west"): 7_000}, jitter=900)
    path, a, b = path_of(world)
    counted: dict[str, int] = {}

    def received(tester: str, frames: int) -> None:
        counted[tester] = counted.get(tester, 0) + frames

    estimate = measure_offset(path, 0.0, no_sleep, lambda: 1.0, received=received)
    assert estimate.offset_ns == (east_ahead_ns + (1 << 31)) % (1 << 32) - (1 << 31)
    assert estimate.spread_ns == 0 and estimate.uncertainty_ns == 0
    assert estimate.exchanges == round(PROBE_ROUNDS / 3)
    assert counted == {"east": PROBE_ROUNDS * PROBE_FRAMES, "west": PROBE_ROUNDS * PROBE_FRAMES}
    assert a.ended == b.ended == [63, 62] * PROBE_ROUNDS


def test_an_offset_that_crosses_half_the_stamps_range_stays_continuous() -> None:
    """East's clock gains 10 ppm and crosses +2^31 ns (where the stamps read it as
    -2^31) between two starts: each estimate is put nearest the one before, so the
    drift is the 10 ppm and the trial's record has no jump."""
    world = World({"west": 0, "east": (1 << 31) - 50_000},
                  {("west", "east"): 7_000, ("east", "west"): 7_000})
    path, _, _ = path_of(world)
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    clocks = GroupClocks((GroupPath("west", "east", path),), clock=lambda: now[0],
                         sleep=sleep)
    clocks.measure_start()
    sleep(10.0)
    world.offsets["east"] = (1 << 31) + 50_000
    clocks.measure_start()
    assert clocks.drift_ppm("west", "east") == pytest.approx(10.0, rel=0.1)
    (record,) = clocks.end_records(0.0)
    assert record.jump == ""
    assert record.offset_us == record.end_offset_us == ((1 << 31) + 50_000) / 1000


def test_an_asymmetric_path_is_off_by_half_its_asymmetry_within_the_bound() -> None:
    world = World({"west": 0, "east": 1_500_000}, {("west", "east"): 7_000,
                                                   ("east", "west"): 307_000})
    path, _, _ = path_of(world)
    estimate = measure_offset(path, 400_000.0, no_sleep, lambda: 1.0)
    assert estimate.offset_ns == 1_500_000 - 150_000
    assert estimate.uncertainty_ns == 200_000


def test_probes_that_never_come_back_say_where() -> None:
    world = World({"west": 0, "east": 0}, {("west", "east"): 7_000, ("east", "west"): 7_000},
                  lost={("east", "west")})
    path, _, _ = path_of(world)
    with pytest.raises(ProbeUnanswered) as unanswered:
        measure_offset(path, 0.0, no_sleep, iter(range(10_000)).__next__)
    assert str(unanswered.value) == (
        "no probe frames came through both ways between testers west and east in 7 rounds "
        "(streams 1 -> 2 and 2 -> 1): the path is down, or the DUT drops those frames")


def test_probe_paths_copy_a_stream_each_way_under_free_ids() -> None:
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": 63, "tx_port": 1, "rx_port": 2}, {"id": 1, "tx_port": 2, "rx_port": 1},
        {"id": 2, "tx_port": 1, "rx_port": 2}]}, "p.yaml")
    world = World({"west": 0, "east": 0}, {})
    a, b = probe_pair(world)
    members = (GroupMember("west", FakeMember({1}), a, frozenset({1})),
               GroupMember("east", FakeMember({2}), b, frozenset({2})))
    (path,) = probe_paths(probe_pairs(topology(), profile), members)
    assert path.probes.a is a and path.probes.b is b
    assert (path.a, path.b) == ("west", "east")
    assert (path.probes.forward.id, path.probes.forward.tx_port) == (62, 1)
    assert (path.probes.reverse.id, path.probes.reverse.tx_port) == (61, 2)
    one_way = profile_from_dict({"name": "p", "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2}]}, "p.yaml")
    with pytest.raises(ConfigError) as refused:
        probe_pairs(topology(), one_way)
    assert str(refused.value) == ONE_WAY_REFUSED


ONE_WAY_REFUSED = (
    "p.yaml: stream 0 runs from tester west to east, and no stream runs back from east "
    "to west: the clocks' offset is measured with probes both ways, copies of a stream "
    "each way. Add a stream from port 2 to port 1 (in OTG, a flow; any rate; its "
    "addresses the other way round)")


# ---- the group ---------------------------------------------------------------------

def snapshot(cells: Mapping[str, Mapping[int, int]]) -> CounterSnapshot:
    return CounterSnapshot({name: {i: CounterValue(v, 64 * v) for i, v in values.items()}
                            for name, values in cells.items()})


def test_the_merged_snapshot_takes_each_figure_from_its_owner() -> None:
    roles = StreamRoles({0: "west", 1: "east"}, {0: "east", 1: "west"})
    hist = HIST_CELLS_PER_STREAM
    west = snapshot({"tx_stream": {0: 100, 1: 0}, "rx_stream": {0: 0, 1: 90},
                     "latency_hist": {3: 7, hist + 3: 90}, "rx_port": {1: 91, 2: 0},
                     "rx_kind": {RX_KIND_STREAM: 90, RX_KIND_FOREIGN: 1}})
    east = snapshot({"tx_stream": {0: 0, 1: 95}, "rx_stream": {0: 99, 1: 0},
                     "latency_hist": {3: 99, hist + 3: 5}, "rx_port": {2: 99},
                     "rx_kind": {RX_KIND_STREAM: 99 + 16}})
    merged = merged_snapshot({"west": west, "east": east}, roles, {1: "west", 2: "east"},
                             probe_frames=16)
    assert merged.cell("tx_stream", 0).packets == 100
    assert merged.cell("tx_stream", 1).packets == 95
    assert merged.cell("rx_stream", 0).packets == 99
    assert merged.cell("rx_stream", 1).packets == 90
    assert merged.cell("latency_hist", 3).packets == 99
    assert merged.cell("latency_hist", hist + 3).packets == 90
    assert merged.cell("rx_port", 1).packets == 91 and merged.cell("rx_port", 2).packets == 99
    assert merged.cell("rx_kind", RX_KIND_STREAM).packets == 90 + 99
    assert merged.cell("rx_kind", RX_KIND_FOREIGN).packets == 1


class FakeMember:
    """One tester's trial target: sends the streams of its ports, checks those that
    arrive on them; counts as a perfect wire would."""

    poll_s = 0.1
    drain_s = 0.5
    settle_s = 0.2
    settle_max_s = 5.0
    host_bound = True
    dut_between = True
    queues_input = False

    def __init__(self, ports: set[int], *, unvouched: str = "",
                 latency_max_us: float = 50.0) -> None:
        self.ports = ports
        self.corrections: dict[int, int] = {}
        self.unvouched = unvouched
        self.latency_min_us, self.latency_avg_us = 10.0, 20.0
        self.latency_max_us = latency_max_us
        self.streams: tuple[StreamConfig, ...] = ()

    def port_names(self) -> Mapping[int, str]:
        return {p: f"p4lt{p}" for p in self.ports}

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        return {p: InterfaceCounters(0, 0, 0, 0) for p in self.ports}

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return snapshot({}), ProgramPortCounts({p: 0 for p in self.ports}, {})

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return self.read_program()

    def arm(self, spec: TrialSpec) -> ArmedTrial:
        sent = [s for s in self.streams if s.tx_port in self.ports]
        for s in sent:
            self.corrections[s.id] = 0
        return ArmedTrial(tuple(Sender(s.id, 100, 100.0) for s in sent), 100.0 * len(sent))

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        pass

    def retune(self, trial: ArmedTrial, rates_pps: Mapping[int, float]) -> None:
        pass

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        return {s.key: SentReading(100, 100, StreamSample(1000, 100, 0, 0)) for s in senders}

    def read_received(self, stream_ids: Sequence[int]) -> Mapping[int, tuple[int, int]]:
        return {sid: (98, 98 * 20) for sid in stream_ids}

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        self.corrections[stream_id] = correction_ns

    def stop(self, trial: ArmedTrial) -> None:
        pass

    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds:
        return RxKinds(0, 0, 0, 0)

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        pass

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        return tuple(StreamStats(s.id, 64, 100, 100, 6400, 0, 0, 0, 0,
                                 latency=LatencyStats(100, self.latency_min_us,
                                                      self.latency_max_us, self.latency_avg_us,
                                                      1.0))
                     for s in self.streams if s.rx_port in self.ports)

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras:
        return Extras(unvouched=self.unvouched)


@dataclass
class Clock:
    now: float = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def group(world: World, *, west: FakeMember | None = None, east: FakeMember | None = None,
          asymmetry_ns: float = 0.0) -> tuple[TesterGroup, Clock]:
    streams = (stream(0, 1, 2), stream(1, 2, 1))
    a, b = probe_pair(world)
    west = west or FakeMember({1})
    east = east or FakeMember({2})
    for member in (west, east):
        member.streams = streams
    members = (GroupMember("west", west, a, frozenset({1})),
               GroupMember("east", east, b, frozenset({2})))
    clock = Clock()
    path = GroupPath("west", "east", ProbePath(a, b, stream(63, 1, 2), stream(62, 2, 1)))
    return TesterGroup(members, streams, (path,), asymmetry_ns=asymmetry_ns, clock=clock,
                       sleep=clock.sleep), clock


SPEC = TrialSpec("latency", 0, 64, 0.1, 1.0)


def test_a_stream_between_testers_is_stamped_on_its_receivers_clock() -> None:
    world = World({"west": 0, "east": 1_500_000}, {("west", "east"): 7_000,
                                                   ("east", "west"): 7_000})
    west, east = FakeMember({1}), FakeMember({2})
    tester_group, _ = group(world, west=west, east=east)
    armed = tester_group.arm(SPEC)
    assert [s.key for s in armed.senders] == [0, 1] and armed.offered_pps == 200.0
    # East's clock minus west's, less the guard: an exact estimate's uncertainty (0)
    # and the 1-us slack for drift (GUARD_SLACK_NS).
    assert west.corrections == {0: 1_500_000 - 1_000}
    assert east.corrections == {1: -1_500_000 - 1_000}


def test_the_correction_follows_the_drift_each_poll() -> None:
    """East gains 20 ppm: the run's first trial measures the offset twice, a second
    apart, and each poll moves the stamps' correction along."""
    world = World({"west": 0, "east": 1_500_000}, {("west", "east"): 7_000,
                                                   ("east", "west"): 7_000})
    west = FakeMember({1})
    tester_group, clock = group(world, west=west)
    first, armed = arm_drifting(world, clock, tester_group)
    # Each correction is predicted halfway to the next poll: 20 ppm of 0.05 s more.
    half_poll = 1_000
    assert west.corrections == {0: first + half_poll - 1_000}  # less the guard
    clock.sleep(0.5)
    world.offsets["east"] += 10_000  # 20 ppm of 0.5 s
    tester_group.read_sent(armed.senders)
    assert west.corrections == {0: first + 10_000 + half_poll - 1_000}


def arm_drifting(world: World, clock: Clock,
                 tester_group: TesterGroup) -> tuple[int, ArmedTrial]:
    """Arm a trial while east gains 20 ppm through the baseline's second."""
    start = world.offsets["east"]
    real_sleep = clock.sleep

    def drifting(seconds: float) -> None:
        real_sleep(seconds)
        world.offsets["east"] += round(seconds * 20_000)

    tester_group.clocks.sleep = drifting
    armed = tester_group.arm(SPEC)
    assert world.offsets["east"] == start + 20_000
    return start + 20_000, armed


def test_the_received_half_of_a_sample_is_the_receivers() -> None:
    world = World({"west": 0, "east": 0}, {("west", "east"): 7_000, ("east", "west"): 7_000})
    tester_group, _ = group(world)
    armed = tester_group.arm(SPEC)
    readings = tester_group.read_sent(armed.senders)
    # The receiver's sum (98 frames of 20 us each), less each frame's 1-us guard.
    assert readings[0].sample == StreamSample(1000, 100, 98, 98 * 19)
    assert readings[1].sample == StreamSample(1000, 100, 98, 98 * 19)


def test_a_trial_keeps_its_clocks_and_a_delay_below_zero_is_not_vouched_for() -> None:
    world = World({"west": 0, "east": 1_500_000}, {("west", "east"): 7_000,
                                                   ("east", "west"): 7_000})
    east = FakeMember({2}, latency_max_us=4_294_967.0)  # a wrapped register
    tester_group, _ = group(world, east=east)
    armed = tester_group.arm(SPEC)
    streams = tester_group.stream_stats(armed, SPEC, snapshot({}), snapshot({}))
    assert [s.stream_id for s in streams] == [0, 1]
    extras = tester_group.extras(armed, streams, snapshot({}), snapshot({}))
    (record,) = extras.clocks
    assert (record.a, record.b, record.offset_us, record.end_offset_us) == (
        "west", "east", 1500.0, 1500.0)
    assert record.a_to_b == (0,) and record.b_to_a == (1,) and record.jump == ""
    assert record.uncertainty_us == 0.0
    assert extras.unvouched == (
        "stream 0: a one-way delay below zero beyond the offset's stated uncertainty "
        "(asymmetry beyond asymmetry_us, or a clock stepped)")


def test_an_offset_off_within_its_uncertainty_never_wraps_a_delay() -> None:
    """The probes crossed a path 1 us one way and 129 us the other (the BMv2 DUT's
    slow direction), so the offset's estimate is 64 us off, within the 100 us that
    asymmetry_us 200 states. The trial's frames east to west then took 1 us: on the
    estimate alone they would read -63 us, a wrapped register. The stamps' guard (the
    stated 100 us and the 1-us slack, rounded up to 200 us) keeps the register at
    +137 us, and the figures take the guard back out: -63 us, within the stated
    uncertainty of the true 1 us."""
    world = World({"west": 0, "east": 1_500_000}, {("west", "east"): 1_000,
                                                   ("east", "west"): 129_000})
    west = FakeMember({1})
    tester_group, _ = group(world, west=west, asymmetry_ns=200_000)
    armed = tester_group.arm(SPEC)
    estimate = 1_500_000 + (1_000 - 129_000) // 2
    assert east_correction(tester_group) == -estimate - 200_000
    register_ns = (1_000 - 1_500_000 - east_correction(tester_group)) % (1 << 32)
    assert register_ns == 137_000
    west.latency_min_us = west.latency_avg_us = west.latency_max_us = register_ns / 1000
    streams = tester_group.stream_stats(armed, SPEC, snapshot({}), snapshot({}))
    latency = next(s.latency for s in streams if s.stream_id == 1)
    assert latency is not None
    assert (latency.min_us, latency.avg_us, latency.max_us) == (-63.0, -63.0, -63.0)
    extras = tester_group.extras(armed, streams, snapshot({}), snapshot({}))
    assert extras.unvouched == ""
    assert extras.clocks[0].uncertainty_us == 100.0


def east_correction(tester_group: TesterGroup) -> int:
    east = tester_group.by_name["east"].target
    assert isinstance(east, FakeMember)
    return east.corrections[1]


def test_a_clock_stepped_during_the_trial_leaves_it_unvouched() -> None:
    world = World({"west": 0, "east": 1_500_000}, {("west", "east"): 7_000,
                                                   ("east", "west"): 7_000})
    tester_group, clock = group(world)
    armed = tester_group.arm(SPEC)
    clock.sleep(1.0)
    world.offsets["east"] += 5_000_000  # stepped by 5 ms
    extras = tester_group.extras(armed, (), snapshot({}), snapshot({}))
    (record,) = extras.clocks
    assert record.jump.startswith("the clock offset moved 5000.0 us in ")
    assert extras.unvouched.startswith(
        "one-way latency of testers west and east not vouched for: the clock offset moved "
        "5000.0 us")


def test_a_members_reason_names_the_tester() -> None:
    world = World({"west": 0, "east": 0}, {("west", "east"): 7_000, ("east", "west"): 7_000})
    tester_group, _ = group(world, west=FakeMember({1}, unvouched="sender behind"))
    armed = tester_group.arm(SPEC)
    extras = tester_group.extras(armed, (), snapshot({}), snapshot({}))
    assert extras.unvouched == "tester west: sender behind"


# ---- records -----------------------------------------------------------------------

MASTER = PtpState(True, "MASTER", 0, False, "b2e1af.fffe.da0c1b")
SLAVE = PtpState(True, "SLAVE", -35, True, "b2e1af.fffe.da0c1b")
RECORD = ClockRecord("west", "east", 1500.25, 1515.5, 1.25, 15.26, 4, 0.4, "", (0,), (1,),
                     MASTER, SLAVE)


def trial_with_clocks() -> TrialResult:
    latency = LatencyStats(100, 10.0, 50.0, 20.0, 1.0, p99_us=45.0)
    return TrialResult("rfc2544-latency", 3, 0.3, 22321.0, 2.0, 64,
                       streams=(StreamStats(0, 64, 100, 100, 6400, 0, 0, 0, 0, latency=latency),
                                StreamStats(1, 64, 100, 99, 6336, 1, 1, 0, 0, latency=latency)),
                       clocks=(RECORD,))


def test_clocks_round_trip_in_schema_13() -> None:
    trial = trial_with_clocks()
    data = trial_to_dict(trial)
    assert SCHEMA_VERSION == 13
    assert data["clocks"] == [{"a": "west", "b": "east", "offset_us": 1500.25,
                               "end_offset_us": 1515.5, "uncertainty_us": 1.25,
                               "drift_ppm": 15.26, "exchanges": 4, "start_skew_ms": 0.4,
                               "jump": "", "a_to_b": [0], "b_to_a": [1],
                               "a_ptp": {"answered": True, "port_state": "MASTER",
                                         "master_offset_ns": 0, "gm_present": False,
                                         "gm_identity": "b2e1af.fffe.da0c1b", "why": "",
                                         "timestamping": "", "phc2sys": None},
                               "b_ptp": {"answered": True, "port_state": "SLAVE",
                                         "master_offset_ns": -35, "gm_present": True,
                                         "gm_identity": "b2e1af.fffe.da0c1b", "why": "",
                                         "timestamping": "", "phc2sys": None}}]
    assert trial_from_dict(data) == trial
    # A record's PTP state read before timestamping and phc2sys were: not read.
    earlier = {**data, "clocks": [{**data["clocks"][0], "b_ptp": {
        k: v for k, v in data["clocks"][0]["b_ptp"].items()
        if k not in ("timestamping", "phc2sys")}}]}
    assert trial_from_dict(earlier) == trial
    hardware = replace(trial, clocks=(replace(RECORD, b_ptp=replace(
        SLAVE, timestamping="HARDWARE", phc2sys=False)),))
    assert trial_from_dict(trial_to_dict(hardware)) == hardware
    # A schema 12 record's clocks: no PTP read.
    twelve = {**data, "schema_version": 12, "clocks": [
        {k: v for k, v in data["clocks"][0].items() if k not in ("a_ptp", "b_ptp")}]}
    assert trial_from_dict(twelve).clocks == (replace(RECORD, a_ptp=None, b_ptp=None),)
    older = {**data, "schema_version": 11}
    del older["clocks"]
    assert trial_from_dict(older).clocks == ()


def test_the_one_way_table_and_clocks_csv(tmp_path: Path) -> None:
    trial = trial_with_clocks()
    assert one_way_table(trial) == "\n".join([
        "clock east - west: +1500.2 us +- 1.2 us (drift 15.3 ppm; 4 probe rounds; testers "
        "started within 0.4 ms)",
        "  west: PTP MASTER, its own grandmaster (b2e1af.fffe.da0c1b); east: PTP SLAVE of "
        "grandmaster b2e1af.fffe.da0c1b, -35 ns from it",
        "stream  from  to    rx frames  lost  min us  avg us  max us  p99 us  jitter us  +- us",
        "------  ----  ----  ---------  ----  ------  ------  ------  ------  ---------  -----",
        "     0  west  east        100     0    10.0    20.0    50.0    45.0        1.0    1.2",
        "     1  east  west         99     1    10.0    20.0    50.0    45.0        1.0    1.2"])
    path = write_clocks_csv([trial], tmp_path / "clocks.csv")
    assert path is not None
    rows = list(csv.reader(path.open()))
    assert rows[1] == ["rfc2544-latency", "3", "west", "east", "1500.25", "1515.5", "1.25",
                       "15.26", "4", "0.4", "0", "1", "", "PTP MASTER, its own grandmaster "
                       "(b2e1af.fffe.da0c1b)", "PTP SLAVE of grandmaster b2e1af.fffe.da0c1b, "
                       "-35 ns from it"]
    assert write_clocks_csv([TrialResult("x", 0, 0.1, 1.0, 1.0, 64)],
                            tmp_path / "none.csv") is None


def test_each_trial_records_what_ptp_said_on_both_hosts() -> None:
    """The group reads each tester's PTP state as the probes start: the trial's clock
    record carries both, each side under its own tester."""
    world = World({"west": 0, "east": 1_500_000}, {("west", "east"): 7_000,
                                                   ("east", "west"): 7_000},
                  ptp={"east": SLAVE})
    tester_group, _ = group(world)
    armed = tester_group.arm(SPEC)
    extras = tester_group.extras(armed, (), snapshot({}), snapshot({}))
    (record,) = extras.clocks
    assert (record.a, record.b) == ("west", "east")
    assert record.a_ptp == PtpState(False, why="no ptp4l here") and record.b_ptp == SLAVE


# ---- front ends ----------------------------------------------------------------------

def test_validate_says_which_tester_each_port_belongs_to() -> None:
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2}, {"id": 1, "tx_port": 2, "rx_port": 1}]}, "p")
    document, text = describe(topology(), profile)
    assert text.splitlines()[:2] == [
        "topology two (two.yaml): testers west (ebpf), east (ebpf, simulated clock +1500 us, "
        "15.2588 ppm), DUT bridge",
        "ports: 1 (25 Mbit/s, west), 2 (25 Mbit/s, east)"]
    assert document["ports"] == [{"port": 1, "line_rate_bps": 25e6, "tester": "west"},
                                 {"port": 2, "line_rate_bps": 25e6, "tester": "east"}]


def test_otg_flows_one_way_between_testers_are_refused_before_anything_loads() -> None:
    """OTG flows across testers need a flow back for the clocks' probes: refused, with
    the way out, before a tester is opened (no program, no lab needed here)."""
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2}]}, "p.yaml")
    with pytest.raises(ConfigError) as refused:
        flow_engine(topology(), profile, push_pipeline=False, otg_config={})
    assert str(refused.value) == ONE_WAY_REFUSED


def test_the_testers_shaped_senders_step_together_in_one_schedule() -> None:
    shape = TrafficShape(ShapeKind.SQUARE, period_s=4.0, amplitude=0.6)

    def schedule(key: int) -> RateSchedule:
        return build_schedule({key: shape}, {key: 1000.0}, {key: 5000.0}, 8.0, 1.0,
                              lambda sid, pps: round(pps))

    west, east = schedule(0), schedule(1)
    merged = merged_schedule([west, east])
    assert merged is not None
    assert merged.steps == west.steps
    assert merged.rates_at(0) == {0: 1600.0, 1: 1600.0}
    assert merged.rates_at(2) == {0: 400.0, 1: 400.0}
    assert merged_schedule([]) is None
