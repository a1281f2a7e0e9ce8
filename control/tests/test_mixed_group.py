"""eBPF and Tofino testers in one group (targets.mixed_group): a topology of both opens
each tester as its own target's group does, with one run value; a Tofino switch that
stops answering is named, and an eBPF tester's grpc is never probed for it."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest
from switch_loss import fail_a_trial

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, profile_from_dict
from p4tester.config.topology import TesterSwitch, Topology, topology_from_dict
from p4tester.runs import trial_runners
from p4tester.runs.flow_engines import flow_engine
from p4tester.targets import mixed_group
from p4tester.targets.tofino.group import TofinoGroupRunner
from p4tester.tester.tester_group import GroupMember

TOPOLOGY = topology_from_dict(
    {"name": "sites", "testers": {"hq": {"target": "tofino", "grpc": "192.0.2.10:50052"},
                                  "branch": {"target": "ebpf"}},
     "ports": {1: {"line_rate": "10Gbps", "front_panel": "1/0", "tester": "hq"},
               2: {"line_rate": "10Gbps", "interface": "enp1s0", "tester": "branch"}},
     "dut": {"kind": "external"}}, "sites.yaml")
PROFILE = profile_from_dict({"name": "p", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2},
                                                      {"id": 1, "tx_port": 2, "rx_port": 1}]},
                            "p.yaml")


def stand_in(name: str, port: int) -> GroupMember:
    parts: tuple[Any, Any] = (f"{name}-trials", f"{name}-probes")
    return GroupMember(name, *parts, frozenset({port}))


def test_each_tester_opens_as_its_targets_group_opens_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[tuple[str, str, int]] = []

    def tofino(stack: ExitStack, topology: Topology, profile: Profile, tester: TesterSwitch,
               run_value: int, client_of: object) -> GroupMember:
        opened.append(("tofino", tester.name, run_value))
        return stand_in(tester.name, 1)

    def ebpf(stack: ExitStack, topology: Topology, profile: Profile, tester: TesterSwitch,
             run_value: int) -> GroupMember:
        opened.append(("ebpf", tester.name, run_value))
        return stand_in(tester.name, 2)

    monkeypatch.setattr(mixed_group, "open_member", tofino)
    monkeypatch.setattr(mixed_group, "_ebpf_member", ebpf)
    monkeypatch.setattr(mixed_group, "draw_run_value", lambda taken: 77)
    with trial_runners.open_trial_runner(TOPOLOGY, PROFILE, push_pipeline=False) as runner:
        assert isinstance(runner, TofinoGroupRunner)
        assert [m.name for m in runner.members] == ["hq", "branch"]
    assert opened == [("tofino", "hq", 77), ("ebpf", "branch", 77)]


def test_a_mixed_group_refuses_to_push_a_program_naming_why() -> None:
    opening = mixed_group.open_mixed_group_trials(TOPOLOGY, PROFILE, push_pipeline=True)
    with pytest.raises(ConfigError, match=r"^--push-pipeline: a Tofino switch runs the "
                                          r"program bf_switchd loaded"):
        opening.__enter__()


def test_only_the_tofino_switch_is_looked_for_when_a_trial_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    runner = TofinoGroupRunner(TOPOLOGY, PROFILE, [stand_in("hq", 1), stand_in("branch", 2)])
    asked, failed = fail_a_trial(monkeypatch, runner)
    assert asked == ["192.0.2.10:50052"]
    assert str(failed) == (
        "tester hq's switch at 192.0.2.10:50052 does not answer (connection reset): is "
        "bf_switchd still running there?")


def test_otg_flows_across_an_ebpf_and_a_tofino_tester_are_refused_naming_the_way_out(
        ) -> None:
    with pytest.raises(ConfigError) as refused:
        flow_engine(TOPOLOGY, PROFILE, push_pipeline=False, otg_config={})
    assert str(refused.value) == (
        "sites.yaml: OTG flows across testers of targets ebpf and tofino do not run yet: "
        "run the experiments (CLI, REST) across these testers")
