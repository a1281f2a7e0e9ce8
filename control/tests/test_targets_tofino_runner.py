"""TofinoTrialRunner on the fake switch: a trial's rates, shared template, budgets,
waiting for the generators, and the TrialResult it assembles."""

from __future__ import annotations

from typing import Any

import pytest
from tofino_fake import FakeBfrt

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import topology_from_dict
from p4tester.experiments.runner import TrialSpec
from p4tester.p4rt import CounterValue
from p4tester.targets.tofino.runner import TofinoTrialRunner, stream_template, target_from_config
from p4tester.tester.session import TrialFailed

GEN_APPS = "pipe.TesterIngress.generator.gen_apps"
GENERATED = "pipe.TesterIngress.generator.generated"
RX_KIND = "pipe.TesterIngress.rx_kind"
TOPOLOGY: dict[str, Any] = {
    "name": "t",
    "switch": {"grpc": "127.0.0.1:50052", "target": "tofino"},
    "ports": {n: {"line_rate": "100Gbps", "front_panel": f"{n}/0"} for n in (1, 2)},
    "dut": {"kind": "external"},
}
PROFILE: dict[str, Any] = {
    "name": "p",
    "trial": {"duration_s": 1, "drain_s": 0.5},
    "frame_sizes": [64],
    "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}, {"id": 1, "tx_port": 2, "rx_port": 1}],
}


class Switch:
    """Time passes only in sleep(); generators make their budget if `generating`."""

    def __init__(self, generating: bool = True) -> None:
        self.fake = FakeBfrt()
        self.now = 0.0
        self.slept: list[float] = []
        self.generating = generating

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept.append(seconds)
        made: dict[int, list[int]] = {}
        for entry in self.fake.entries(GEN_APPS):
            pipe, app = entry.key["pipe_id"], entry.key["app_id"]
            budget = entry.data.get("packet_budget")
            if self.generating and isinstance(pipe, int) and isinstance(app, int) \
                    and isinstance(budget, int):
                made.setdefault(app, [0, 0, 0, 0])[pipe] = budget  # each pipe its share
        for app, per_pipe in made.items():
            self.fake.set_register(GENERATED, app, "TesterIngress.generator.generated.f1",
                                   per_pipe)

    def runner(self) -> TofinoTrialRunner:
        topology = topology_from_dict(TOPOLOGY, "t.yaml")
        profile = profile_from_dict(PROFILE, "p.yaml")
        target = target_from_config(self.fake, topology, profile)
        runner = TofinoTrialRunner(target, topology, profile, sleep=self.sleep,
                                   clock=lambda: self.now)
        runner.open()
        return runner


def test_a_trial_at_half_line_rate() -> None:
    switch = Switch()
    result = switch.runner().run_trial(TrialSpec("throughput", 3, 64, 0.5, 1.0))
    # Both streams send the same frame at the same rate: one application; half of
    # 148.8 Mpps is exactly 25 packets every 336 ns (420 cycles at 1.25 GHz).
    app_cfg = switch.fake.entries("tf1.pktgen.app_cfg", pipe=0)[0].data
    assert (app_cfg["timer_nanosec"], app_cfg["packets_per_batch_cfg"]) == (336, 24)
    armed = [w for w in switch.fake.writes_to(GEN_APPS)
             if w.action == "TesterIngress.generator.run"]
    assert [(w.key, w.data) for w in armed] == [
        ({"pipe_id": 0, "app_id": 0}, {"mcast_group": 1, "packet_budget": 74_404_762})]
    # After the trial the application is off and its entry drops its packets.
    assert app_cfg["app_enable"] is False
    assert [e.action for e in switch.fake.entries(GEN_APPS)] == ["TesterIngress.generator.stopped"]
    assert result.offered_pps == pytest.approx(2 * 25 / 336e-9)
    assert result.offered_fraction == 0.5
    assert (result.experiment, result.trial_index, result.frame_size) == ("throughput", 3, 64)
    assert [s.stream_id for s in result.streams] == [0, 1]
    assert switch.slept == [0.2, 0.5]  # one poll, then the drain


def test_generators_that_never_finish_fail_the_trial() -> None:
    switch = Switch(generating=False)
    runner = switch.runner()
    with pytest.raises(TrialFailed, match=r"generator applications \[0\] did not make their "
                                          r"budgets within 6.5 s"):
        runner.run_trial(TrialSpec("throughput", 0, 64, 0.5, 1.0))
    app = switch.fake.entries("tf1.pktgen.app_cfg", pipe=0)[0]
    assert app.data["app_enable"] is False  # stopped even though the trial failed


def test_templates_carry_stream_id_zero_so_streams_share_them() -> None:
    profile = profile_from_dict(PROFILE, "p.yaml")
    first, second = (stream_template(s, 64) for s in profile.streams)
    assert first == second
    assert len(first) == 60


def test_runner_needs_a_tofino_topology() -> None:
    topology = topology_from_dict({**TOPOLOGY, "switch": {"target": "bmv2"},
                                   "ports": {1: {"line_rate": "1Gbps"}}}, "b.yaml")
    with pytest.raises(ConfigError, match=r"b.yaml: switch target is 'bmv2'"):
        target_from_config(FakeBfrt(), topology, profile_from_dict(PROFILE, "p.yaml"))


class StraySwitch(Switch):
    """While the trial runs, pipe 0 sees 3 stale frames and pipe 1 60 look-alikes."""

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        idle = CounterValue(0, 0)
        self.fake.counters[RX_KIND][5] = [CounterValue(3, 192), idle, idle, idle]
        self.fake.counters[RX_KIND][6] = [idle, CounterValue(60, 5040), idle, idle]


def test_each_trial_expects_its_own_epoch_and_counts_the_others() -> None:
    """Trial 130 sends epoch 2 (130 % 128): its templates carry flags 0x04 and the
    checker expects exactly that, each stream on its RX dev port (1/0 = 0, 2/0 = 8),
    IPv4; stale and mismatched frames of the trial are its rx_stale / rx_mismatched
    (summed over pipes)."""
    switch = StraySwitch()
    result = switch.runner().run_trial(TrialSpec("throughput", 130, 64, 0.5, 1.0))
    expected = {e.key["stream"]: (e.action, e.data)
                for e in switch.fake.entries("pipe.TesterIngress.expectation.rx_expected")}
    expect = "TesterIngress.expectation.expect"
    assert expected == {0: (expect, {"trial_epoch": 0x04, "rx_port": 8, "ip_version": 4}),
                        1: (expect, {"trial_epoch": 0x04, "rx_port": 0, "ip_version": 4})}
    assert (result.rx_stale, result.rx_mismatched, result.rx_foreign) == (3, 60, 0)
