"""BMv2 testers on other hosts, each driven through its host's agent (otg.agent,
targets.bmv2_group): the agent opens a BMv2 tester as the controller opens one of its
own host, the controller opens only its own switches and reaches the others' through
their agents, and two switches on two hosts may have the same addresses there."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import pytest
from switch_loss import fail_a_trial

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, profile_from_dict
from p4tester.config.topology import TesterSwitch, Topology, topology_from_dict
from p4tester.experiments.errors import TesterUnanswered
from p4tester.otg import agent
from p4tester.otg.agent import AgentError, open_tester, open_tester_flows
from p4tester.targets import bmv2_group, group_runner
from p4tester.targets.bmv2_group import LocalBmv2Tester, check_bmv2_group
from p4tester.tester.group_flows import FlowMember
from p4tester.tester.tester_group import GroupMember

AGENT = "192.0.2.20:8443"


def two_bmv2(east: dict[str, object], west: dict[str, object] | None = None
             ) -> Topology:
    return topology_from_dict(
        {"name": "two", "testers": {"west": {"target": "bmv2", **(west or {})},
                                    "east": {"target": "bmv2", **east}},
         "ports": {1: {"line_rate": "5Mbps", "peer": "dut:1", "tester": "west"},
                   2: {"line_rate": "5Mbps", "peer": "dut:2", "tester": "east"}}},
        "two.yaml")


PROFILE = profile_from_dict({"name": "p", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2},
                                                      {"id": 1, "tx_port": 2, "rx_port": 1}]},
                            "p.yaml")


def test_switches_on_two_hosts_may_have_the_same_addresses_there() -> None:
    # East's host serves its switch at the addresses west's has here.
    check_bmv2_group(two_bmv2({"agent": AGENT}))
    check_bmv2_group(two_bmv2({"agent": AGENT}, {"agent": "192.0.2.21:8443"}))
    with pytest.raises(ConfigError) as refused:
        check_bmv2_group(two_bmv2({"agent": AGENT, "thrift_port": 9092}, {"agent": AGENT}))
    assert str(refused.value) == (
        "two.yaml: testers west and east have the same grpc 127.0.0.1:9559 on the host of "
        f"agent {AGENT}: each BMv2 tester is a switch of its own; give east its own grpc "
        "and thrift_port")


@dataclass
class Opened:
    """What the agent's openers were asked to open, and what they closed."""

    asked: list[tuple[str, str, int]] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)


@pytest.fixture
def openers(monkeypatch: pytest.MonkeyPatch) -> Iterator[Opened]:
    opened = Opened()

    def bmv2(topology: Topology, profile: Profile, tester: TesterSwitch,
             run_value: int) -> LocalBmv2Tester:
        opened.asked.append(("bmv2", tester.name, run_value))
        stand_ins: tuple[Any, Any] = (f"{tester.name}-trials", f"{tester.name}-probes")
        member = GroupMember(tester.name, *stand_ins, frozenset({1}))
        return LocalBmv2Tester(member, lambda: opened.closed.append(tester.name))

    def ebpf(topology: Topology, profile: Profile, tester: TesterSwitch,
             run_value: int) -> Any:
        opened.asked.append(("ebpf", tester.name, run_value))
        raise AssertionError("a BMv2 tester opened as an eBPF one")

    monkeypatch.setattr(agent, "open_local_bmv2_tester", bmv2)
    monkeypatch.setattr(agent, "open_local_tester", ebpf)
    yield opened


def test_an_agent_opens_a_bmv2_tester_as_the_controller_opens_one_here(
        openers: Opened) -> None:
    topology = two_bmv2({"agent": AGENT})
    tester = open_tester(topology, PROFILE, "east", 42)
    assert openers.asked == [("bmv2", "east", 42)]
    assert (tester.trials, tester.probes, tester.profile) == ("east-trials", "east-probes",
                                                              PROFILE)
    tester.close()
    assert openers.closed == ["east"]
    with pytest.raises(AgentError, match="the topology has no tester 'north'"):
        open_tester(topology, PROFILE, "north", 42)


class FlowEngineStandIn:
    """A BMv2 flow engine stand-in: what the agent opened and closed."""

    def __init__(self) -> None:
        self.calls: list[object] = []

    def open(self) -> None:
        self.calls.append("open")

    def self_check(self, run_value: int, dut: object) -> Any:
        self.calls.append(("self_check", run_value, dut))

        class Loop:
            target = "east-checks"
        return Loop()

    def close(self) -> None:
        self.calls.append("close")


def test_an_agent_opens_a_bmv2_testers_flows_on_its_switch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine = FlowEngineStandIn()
    asked: list[tuple[str, bool, int]] = []

    def member(topology: Topology, profile: Profile, tester: TesterSwitch,
               push_pipeline: bool, probe_run_value: int) -> FlowMember:
        asked.append((tester.name, push_pipeline, probe_run_value))
        stand_ins: tuple[Any, Any] = (engine, "east-probes")
        return FlowMember(tester.name, *stand_ins, frozenset({2}))

    monkeypatch.setattr(agent, "bmv2_flow_member", member)
    opened = open_tester_flows(two_bmv2({"agent": AGENT}), PROFILE, "east", 42)
    # Its switch as it is (the program pushed only where it has none), the probes' run.
    assert asked == [("east", False, 42)]
    assert engine.calls == ["open", ("self_check", 42, None)]
    assert (opened.trials, opened.probes, opened.flows) == ("east-checks", "east-probes",
                                                            engine)
    opened.close()
    assert engine.calls[-1] == "close"


class Dataplane:
    def __init__(self, values: set[int]) -> None:
        self.values = values

    def run_values_in_use(self) -> set[int]:
        return self.values


class Session:
    def __init__(self, name: str) -> None:
        self.name = name
        self.dataplane = Dataplane({7})


def test_the_controller_opens_its_own_switches_and_reaches_the_others_through_agents(
        monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[tuple[str, str, int | None]] = []

    def session(stack: ExitStack, topology: Topology, profile: Profile,
                tester: TesterSwitch, push_pipeline: bool) -> Session:
        opened.append(("here", tester.name, None))
        return Session(tester.name)

    def local(session: Session, topology: Topology, tester: TesterSwitch,
              run_value: int) -> GroupMember:
        opened.append(("member", tester.name, run_value))
        return GroupMember(tester.name, None, None, frozenset({1}))  # type: ignore[arg-type]

    def remote(stack: ExitStack, topology: Topology, profile: Profile,
               tester: TesterSwitch, run_value: int) -> GroupMember:
        opened.append(("agent", tester.reach.agent, run_value))
        return GroupMember(tester.name, None, None, frozenset({2}))  # type: ignore[arg-type]

    monkeypatch.setattr(bmv2_group, "open_session", session)
    monkeypatch.setattr(bmv2_group, "group_member", local)
    monkeypatch.setattr(bmv2_group, "remote_member", remote)
    monkeypatch.setattr(bmv2_group, "draw_run_value", lambda taken: 8 if taken == {7} else 0)
    with bmv2_group.open_bmv2_group_trials(two_bmv2({"agent": AGENT}), PROFILE,
                                           push_pipeline=True) as runner:
        assert isinstance(runner, bmv2_group.Bmv2GroupRunner)
        assert [m.name for m in runner.members] == ["west", "east"]
    # West's switch here, its run values kept apart; east through its agent, same run.
    assert opened == [("here", "west", None), ("member", "west", 8), ("agent", AGENT, 8)]


def test_a_switch_that_stops_answering_is_looked_for_here_only_if_it_is_here(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent's switch is its host's: the agent answers for it (its own error)."""
    topology = two_bmv2({"agent": AGENT, "grpc": "127.0.0.1:9561"})
    runner = bmv2_group.Bmv2GroupRunner(topology, PROFILE, [
        GroupMember("west", None, None, frozenset({1})),  # type: ignore[arg-type]
        GroupMember("east", None, None, frozenset({2}))])  # type: ignore[arg-type]
    asked, failed = fail_a_trial(monkeypatch, runner)
    assert asked == ["127.0.0.1:9559"]
    assert str(failed) == (
        "tester west's switch at 127.0.0.1:9559 does not answer (connection reset): is "
        "simple_switch_grpc still running there?")


def test_a_killed_switch_still_accepting_for_a_moment_is_named_once_it_stops(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGKILLed switch's port may accept while the kernel tears the process down:
    the runner looks again (bounded) and names it, never passing the raw failure on."""
    looks: list[str] = []

    def listening(address: str) -> bool:
        looks.append(address)
        return len(looks) <= 2  # both ports still accept at the first look

    slept: list[float] = []
    topology = two_bmv2({"grpc": "127.0.0.1:9561", "thrift_port": 9092})
    runner = bmv2_group.Bmv2GroupRunner(topology, PROFILE, [
        GroupMember("west", None, None, frozenset({1})),  # type: ignore[arg-type]
        GroupMember("east", None, None, frozenset({2}))],  # type: ignore[arg-type]
        sleep=slept.append)
    _asked, failed = fail_a_trial(monkeypatch, runner, listening)
    assert isinstance(failed, TesterUnanswered)
    assert slept == [group_runner.GONE_LOOK_S]
    assert str(failed) == (
        "tester west's switch at 127.0.0.1:9559 does not answer; tester east's switch at "
        "127.0.0.1:9561 does not answer (connection reset): is simple_switch_grpc still "
        "running there?")
