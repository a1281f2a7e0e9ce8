"""RFC 2889 over a simulated learning switch whose ports' limits and queueing are
known exactly: the experiment must find them, port by port."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig, profile_from_dict
from p4tester.experiments.recording import Recorder
from p4tester.experiments.rfc2889 import (
    LEARNING_EXPERIMENT,
    Rfc2889Config,
    Rfc2889Test,
    offered_window_s,
    port_forwarding,
    run_rfc2889,
)
from p4tester.experiments.rfc2889_patterns import (
    CongestionPorts,
    TrafficPattern,
    congestion_control,
    congestion_ports,
    fully_meshed,
    learning_streams,
    partially_meshed,
    pattern_streams,
)
from p4tester.experiments.runner import TrialSpec
from p4tester.results.model import StreamStats, TrialResult
from p4tester.runs.catalog import build_request
from p4tester.runs.requests import Rfc2889Request
from p4tester.runs.rfc2889_body import rfc2889_pattern, rfc2889_report
from p4tester.search import SearchGoal
from p4tester.streams.rates import line_rate_pps

LINE_BPS = 10e6  # every port: 14880.95 frames/s of 64 B
MESH = profile_from_dict({"name": "mesh", "streams": [{"mesh": [1, 2, 3, 4], "id": 0}]},
                         "mesh.yaml")


@dataclass
class LearningSwitch:
    """Ports of LINE_BPS; `capacity`: the share of its line rate an egress port
    forwards (1 when not given); `input_queued`: every input is one FIFO, so an input
    with a frame for an overloaded port is served at that port's pace for all its
    frames (head-of-line blocking); otherwise queues are per output. A port is learnt
    from the first frame it sends; until then frames to it flood (rx_mismatched: the
    copies on the other ports)."""

    streams: tuple[StreamConfig, ...]
    capacity: dict[int, float] = field(default_factory=dict)
    input_queued: bool = False
    learnt: set[int] = field(default_factory=set)
    specs: list[TrialSpec] = field(default_factory=list)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        self.specs.append(spec)
        by_id = {s.id: s for s in self.streams}
        pps = line_rate_pps(LINE_BPS, spec.frame_size)
        loads = dict(spec.stream_loads)
        offered: dict[int, float] = {}
        for sid, load in loads.items():
            offered[by_id[sid].rx_port] = offered.get(by_id[sid].rx_port, 0.0) + load

        def served(rx_port: int) -> float:
            return min(1.0, self.capacity.get(rx_port, 1.0) / offered[rx_port])

        input_pace: dict[int, float] = {}
        for sid in loads:
            tx = by_id[sid].tx_port
            input_pace[tx] = min(input_pace.get(tx, 1.0), served(by_id[sid].rx_port))
        flooded = 0
        stats = []
        for sid, load in loads.items():
            stream = by_id[sid]
            tx_frames = round(load * pps * spec.duration_s)
            share = input_pace[stream.tx_port] if self.input_queued else served(stream.rx_port)
            rx_frames = math.floor(tx_frames * share)
            if stream.rx_port not in self.learnt:
                flooded += 2 * tx_frames  # the two other ports of four
            stats.append(StreamStats(sid, spec.frame_size, tx_frames, rx_frames,
                                     rx_frames * spec.frame_size, 0, 0, 0, 0))
        self.learnt |= {by_id[sid].tx_port for sid in loads}
        return TrialResult(spec.experiment, spec.trial_index, spec.offered_fraction,
                           sum(s.tx_frames for s in stats) / spec.duration_s,
                           spec.duration_s, spec.frame_size, tuple(stats),
                           rx_mismatched=flooded)


def _config(test: Rfc2889Test, pattern: TrafficPattern, **extra: object) -> Rfc2889Config:
    goals = {"ndr": SearchGoal("NDR", 0.0, 0.005, 2.0, initial_trial_duration_s=1.0),
             "pdr": SearchGoal("PDR", 0.005, 0.005, 2.0, initial_trial_duration_s=1.0)}
    return Rfc2889Config(
        test=test, pattern=pattern,
        flow_streams=tuple((flow, s.id) for flow, s in pattern_streams(pattern, MESH.streams)),
        learning_streams=tuple((s.id, s.tx_port)
                               for s in learning_streams(pattern, MESH.streams)),
        port_line_bps=tuple((port, LINE_BPS) for port in (1, 2, 3, 4)),
        frame_sizes=(64,), trial_duration_s=2.0, **goals, **extra)  # type: ignore[arg-type]


def test_a_mesh_entry_gives_a_stream_per_ordered_pair_with_port_addresses() -> None:
    assert [(s.id, s.tx_port, s.rx_port) for s in MESH.streams[:4]] == [
        (0, 1, 2), (1, 1, 3), (2, 1, 4), (3, 2, 1)]
    assert len(MESH.streams) == 12
    last = MESH.streams[-1]
    assert (last.id, last.tx_port, last.rx_port) == (11, 4, 3)
    assert last.addresses.src_mac == "02:89:00:00:00:04"
    assert last.addresses.dst_mac == "02:89:00:00:00:03"
    assert (last.addresses.src_ip, last.addresses.dst_ip) == ("192.0.2.4", "198.51.100.3")
    assert last.addresses.udp_src_port == 0xC020 + 11
    assert last.share == pytest.approx(1 / 3)


def test_a_mesh_entry_that_sets_what_the_mesh_sets_is_refused() -> None:
    with pytest.raises(ConfigError, match="src_mac are set by the mesh"):
        profile_from_dict({"name": "m", "streams": [
            {"mesh": [1, 2], "id": 0, "src_mac": "02:00:00:00:00:09"}]}, "m.yaml")
    with pytest.raises(ConfigError, match="name a port twice"):
        profile_from_dict({"name": "m", "streams": [{"mesh": [1, 1], "id": 0}]}, "m.yaml")


def test_patterns_split_each_ports_load() -> None:
    full = fully_meshed([1, 2, 3])
    assert [(f.tx_port, f.rx_port, f.share) for f in full.flows] == [
        (1, 2, 0.5), (1, 3, 0.5), (2, 1, 0.5), (2, 3, 0.5), (3, 1, 0.5), (3, 2, 0.5)]
    one_to_many = partially_meshed([1], [2, 3, 4])
    assert [(f.tx_port, f.rx_port) for f in one_to_many.flows] == [(1, 2), (1, 3), (1, 4)]
    assert one_to_many.offered_to(2) == pytest.approx(1 / 3)
    both = partially_meshed([1, 2], [3], both_ways=True)
    assert [(f.tx_port, f.rx_port, f.share) for f in both.flows] == [
        (1, 3, 1.0), (2, 3, 1.0), (3, 1, 0.5), (3, 2, 0.5)]
    congestion = congestion_control([1, 2, 3, 4])
    assert (congestion.offered_to(3), congestion.offered_to(4)) == (1.5, 0.5)
    # The roles follow the order given, not the ports' numbers.
    assert congestion_ports(congestion_control([2, 1, 4, 3])) == CongestionPorts(2, 1, 4, 3)


def test_a_pattern_the_profile_cannot_carry_names_the_missing_pair() -> None:
    two = profile_from_dict({"name": "t", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}]},
                            "t.yaml")
    with pytest.raises(ConfigError, match=r"no stream from port 2 to port 1; .*mesh: \[1, 2\]"):
        pattern_streams(fully_meshed([1, 2]), two.streams)


def test_fully_meshed_finds_the_slow_port_and_its_forwarding_rate_at_line_rate() -> None:
    switch = LearningSwitch(MESH.streams, capacity={3: 0.6})
    result = run_rfc2889(_config(Rfc2889Test.FULLY_MESHED, fully_meshed([1, 2, 3, 4])),
                         Recorder(switch))
    (size,) = result.meshed
    ndr = size.throughput.ndr.lower_fraction
    assert ndr is not None and 0.6 * (1 - 0.005) <= ndr <= 0.6
    # At 100 %: each stream sends round(14880.95 / 3 x 2) = 9921 frames.
    port3 = next(p for p in size.ports if p.port == 3)
    assert (port3.sent, port3.received, port3.lost) == (3 * 9921, 3 * 5952, 3 * 3969)
    assert port3.forwarding_rate_pps == 8928.0
    assert port3.load_share == pytest.approx(1.0)
    others = [p for p in size.ports if p.port != 3]
    assert [(p.sent, p.received, p.lost) for p in others] == [(29763, 29763, 0)] * 3
    assert size.forwarding_rate_pps == 3 * 14881.5 + 8928.0
    assert size.at_max_load.rx_mismatched == 0  # the learning frames came first
    learning = [s for s in switch.specs if s.experiment == LEARNING_EXPERIMENT]
    assert len(learning) == 1 and switch.specs[0].experiment == LEARNING_EXPERIMENT
    assert sorted(sid for sid, _ in learning[0].stream_loads) == [0, 3, 6, 9]  # 1 per port
    assert learning[0].stream_loads[0][1] == pytest.approx(100 / 14880.952, rel=1e-6)


def test_congestion_control_without_head_of_line_blocking() -> None:
    switch = LearningSwitch(MESH.streams)
    result = run_rfc2889(_config(Rfc2889Test.CONGESTION_CONTROL,
                                 congestion_control([1, 2, 3, 4])), Recorder(switch))
    (size,) = result.congestion
    # C (port 3) is offered 1.5 x its line rate and forwards 2/3 of each stream.
    assert (size.congested.port, size.uncongested.port) == (3, 4)
    assert size.congested.load_share == pytest.approx(1.5)
    assert (size.congested.sent, size.congested.received) == (14881 + 29762, 9920 + 19841)
    assert size.congested.lost == 4961 + 9921
    assert (size.uncongested.sent, size.uncongested.received, size.uncongested.lost) == (
        14881, 14881, 0)
    assert not size.head_of_line_blocking
    assert size.back_pressure is False
    assert size.congested.forwarded_share == pytest.approx((9920 + 19841) / 2 / 14880.952)
    # Ports 3 and 4 only receive in the pattern: the learning frames taught the switch.
    assert size.trial.rx_mismatched == 0


def test_congestion_control_finds_head_of_line_blocking_in_an_input_queued_switch() -> None:
    switch = LearningSwitch(MESH.streams, input_queued=True)
    result = run_rfc2889(_config(Rfc2889Test.CONGESTION_CONTROL,
                                 congestion_control([1, 2, 3, 4])), Recorder(switch))
    (size,) = result.congestion
    # Port 1's FIFO drains at port 3's pace (2/3): its frames for port 4 wait too.
    assert (size.uncongested.sent, size.uncongested.received) == (14881, 9920)
    assert size.uncongested.lost == 4961
    assert size.head_of_line_blocking
    assert size.back_pressure is False


def test_back_pressure_is_not_judged_on_a_port_faster_than_its_line_rate() -> None:
    # An unshaped lab link: port 3 forwards all of its 150 %, which no real port could.
    switch = LearningSwitch(MESH.streams, capacity={3: 1.5})
    result = run_rfc2889(_config(Rfc2889Test.CONGESTION_CONTROL,
                                 congestion_control([1, 2, 3, 4])), Recorder(switch))
    (size,) = result.congestion
    assert size.congested.lost == 0
    assert size.congested.forwarded_share == pytest.approx(1.5, abs=1e-4)
    assert size.back_pressure is None
    assert not size.head_of_line_blocking


def test_the_config_refuses_a_stream_map_that_misses_a_flow() -> None:
    config = _config(Rfc2889Test.FULLY_MESHED, fully_meshed([1, 2, 3]))
    with pytest.raises(ValueError, match="a stream for each flow"):
        Rfc2889Config(test=config.test, pattern=fully_meshed([1, 2, 3]),
                      flow_streams=config.flow_streams[1:],
                      learning_streams=config.learning_streams,
                      port_line_bps=config.port_line_bps, frame_sizes=(64,),
                      trial_duration_s=2.0)


def test_the_request_names_the_option_a_test_needs() -> None:
    with pytest.raises(ConfigError, match=r"rfc2889 --test partially-meshed: give --sources "
                                          r"and --destinations"):
        rfc2889_pattern(Rfc2889Request(test="partially-meshed", sources=(1,)))
    with pytest.raises(ConfigError, match=r"--test congestion-control: give --ports, e.g. "
                                          r"--ports 1,2,3,4"):
        rfc2889_pattern(Rfc2889Request(test="congestion-control"))
    with pytest.raises(ConfigError, match=r"give four ports, A,B,C,D"):
        rfc2889_pattern(Rfc2889Request(test="congestion-control", ports=(1, 2, 3)))
    request = build_request("rfc2889", {"test": "partially-meshed", "sources": "1,2",
                                        "destinations": "3", "directions": "both-ways"})
    assert isinstance(request, Rfc2889Request)
    assert [(f.tx_port, f.rx_port) for f in rfc2889_pattern(request).flows] == [
        (1, 3), (2, 3), (3, 1), (3, 2)]


def test_the_congestion_report_gives_each_verdict() -> None:
    switch = LearningSwitch(MESH.streams, input_queued=True)
    result = run_rfc2889(_config(Rfc2889Test.CONGESTION_CONTROL,
                                 congestion_control([1, 2, 3, 4])), Recorder(switch))
    assert rfc2889_report(result) == [
        "RFC 2889 congestion control: ports 1 and 2 into the congested port 3 (150% of its "
        "line rate), 1 also into the uncongested port 4 (50%), MOL 100% per TX port",
        " size   C FR fps  C lost %   D FR fps  D lost %  head-of-line blocking  back pressure"
        "  flooded",
        "   64    14880.5    33.34%     4960.0    33.34%  yes                    no           "
        "  0",
    ]


def test_a_forwarding_rate_counts_over_the_window_the_frames_were_offered_in() -> None:
    """A sender slowed by a busy host offers a 4-s trial's 60 000 frames over 4.02 s:
    the DUT forwarded through all of it, so its rate counts over 4.02 s, not 4; a rate
    sampled above the intended never shortens the window."""
    stream = StreamStats(0, 64, 60_000, 59_500, 59_500 * 64, 1, 500, 0, 0)
    lagged = TrialResult("rfc2889-forwarding", 0, 1.0, 15_000.0, 4.0, 64, streams=(stream,),
                         offered_pps_measured=60_000 / 4.02)
    assert offered_window_s(lagged) == pytest.approx(4.02)
    assert offered_window_s(replace(lagged, offered_pps_measured=15_100.0)) == 4.0
    assert offered_window_s(replace(lagged, offered_pps_measured=None)) == 4.0
    config = _config(Rfc2889Test.FULLY_MESHED, fully_meshed([1, 2, 3, 4]))
    # Stream 0 of the mesh carries flow 1 -> 2, the only flow into port 2 sent here.
    port = port_forwarding(config, lagged, 2)
    assert port.duration_s == pytest.approx(4.02)
    assert port.forwarding_rate_pps == pytest.approx(59_500 / 4.02)
