"""A BMv2 tester's flow engine as one tester of several (targets.bmv2_flows,
targets.bmv2_group_flows): it sends only the flows of its ports, expects and zeroes only
those it checks, and stamps a flow another tester checks on that tester's clock, in the
switch's microseconds, rewriting a running flow's generator entry when that changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p4tester.config.profile import Profile, profile_from_dict
from p4tester.config.topology import Topology, topology_from_dict
from p4tester.targets.bmv2_flows import Bmv2FlowEngine
from p4tester.tester.flow_engine import FlowPlan

TOPOLOGY = topology_from_dict(
    {"name": "two", "testers": {"west": {"target": "bmv2"},
                                "east": {"target": "bmv2", "grpc": "127.0.0.1:9561",
                                         "thrift_port": 9092}},
     "ports": {1: {"line_rate": "5Mbps", "peer": "dut:1", "tester": "west"},
               2: {"line_rate": "5Mbps", "peer": "dut:2", "tester": "east"}}}, "two.yaml")
PROFILE = profile_from_dict({"name": "p", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2},
                                                      {"id": 1, "tx_port": 2, "rx_port": 1}]},
                            "p.yaml")
WEST_TO_EAST, EAST_TO_WEST = (FlowPlan(stream, 500, 1000, bytes(60))
                              for stream in PROFILE.streams)


@dataclass
class Recorder:
    """Records each call made on it, by name and arguments."""

    calls: list[tuple[Any, ...]] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> None:
            self.calls.append((name, *args, *sorted(kwargs.items())))
        return record


class Session:
    def __init__(self, topology: Topology, profile: Profile, *, push_pipeline: bool) -> None:
        self.topology, self.profile = topology, profile
        self.dataplane, self.target = Recorder(), Recorder()


def west() -> tuple[Bmv2FlowEngine, list[tuple[Any, ...]]]:
    engine = Bmv2FlowEngine(TOPOLOGY.tester("west"), PROFILE, push_pipeline=False,
                            session_factory=Session)  # type: ignore[arg-type]
    return engine, engine.session.dataplane.calls  # type: ignore[attr-defined]


def test_it_expects_and_zeroes_only_the_flows_it_checks() -> None:
    engine, calls = west()
    engine.expect([WEST_TO_EAST, EAST_TO_WEST], 3, 9)
    # East's flow arrives here: zeroed before the opening edge, expected on port 1.
    assert calls == [("clear_stream", 1),
                     ("expect_stream", 1, 1, ("epoch", 3), ("ipv6", False), ("run", 9))]


def test_it_sends_only_its_flows_stamped_on_their_receivers_clock() -> None:
    engine, calls = west()
    engine.expect([WEST_TO_EAST, EAST_TO_WEST], 3, 9)
    engine.set_tx_clock_correction(0, -1_500_400)  # before the start: kept for it
    calls.clear()
    engine.start([WEST_TO_EAST, EAST_TO_WEST], 3, 9)
    started = [c for c in calls if c[0] in ("clear_stream", "start_stream", "seed_stream")]
    assert [c[:2] for c in started] == [("clear_stream", 0), ("start_stream", 0),
                                        ("seed_stream", 0)]
    assert started[1] == ("start_stream", 0, 1000, 3, 9, 1,
                          ("tx_clock_correction_us", -1500))
    (rates, *_), = [c[1:] for c in engine.session.target.calls  # type: ignore[attr-defined]
                    if c[0] == "set_stream_rates"]
    assert list(rates) == [0]  # east's flow is paced by east's switch
    calls.clear()
    engine.set_tx_clock_correction(0, -1_500_499)  # the same microsecond: nothing written
    assert calls == []
    engine.set_tx_clock_correction(0, -1_501_000)  # the drift followed: entry rewritten
    assert calls == [("start_stream", 0, 1000, 3, 9, 1, ("tx_clock_correction_us", -1501))]
    calls.clear()
    engine.stop_flow(0)
    engine.set_tx_clock_correction(0, -1_502_000)  # stopped: kept for a resume only
    assert calls == [("stop_stream", 0)]
    engine.resume([WEST_TO_EAST, EAST_TO_WEST], 3, 9)
    assert calls[1:] == [("start_stream", 0, 1000, 3, 9, 1, ("tx_clock_correction_us", -1502)),
                         ("seed_stream", 0, bytes(60), calls[2][3])]
