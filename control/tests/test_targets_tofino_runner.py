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

GEN_APPS = "pipe.TesterIngress.generator.gen_apps"
GENERATED = "pipe.TesterIngress.generator.generated"
RX_KIND = "pipe.TesterIngress.rx_kind"
RUN_VALUE = 0xC4  # the run byte of the runner's frames
TOPOLOGY: dict[str, Any] = {
    "name": "t",
    "switch": {"grpc": "127.0.0.1:50052", "target": "tofino"},
    "ports": {n: {"line_rate": "100Gbps", "front_panel": f"{n}/0"} for n in (1, 2)},
    "dut": {"kind": "external"},
}
PROFILE: dict[str, Any] = {
    "name": "p",
    "trial": {"duration_s": 1, "drain_s": 0.5, "settle_s": 0},
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
        tick = round(self.now * 1e9) >> 8  # global_tstamp bits 39..8, in a short trial
        for app, per_pipe in made.items():
            self.fake.set_register(GENERATED, app, "TesterIngress.generator.generated.made",
                                   per_pipe)
            self.fake.set_register(GENERATED, app, "TesterIngress.generator.generated.last_tick",
                                   [tick if n else 0 for n in per_pipe])

    def runner(self) -> TofinoTrialRunner:
        topology = topology_from_dict(TOPOLOGY, "t.yaml")
        profile = profile_from_dict(PROFILE, "p.yaml")
        target = target_from_config(self.fake, topology, profile)
        runner = TofinoTrialRunner(target, topology, profile, sleep=self.sleep,
                                   clock=lambda: self.now, run_value=RUN_VALUE)
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
        ({"pipe_id": 0, "app_id": 0},
         {"mcast_group": 1, "packet_budget": 74_404_762, "drop_draws_below": 0})]
    # After the trial the application is off and its entry drops its packets.
    assert app_cfg["app_enable"] is False
    assert [e.action for e in switch.fake.entries(GEN_APPS)] == ["TesterIngress.generator.stopped"]
    assert result.offered_pps == pytest.approx(2 * 25 / 336e-9)
    assert result.offered_fraction == 0.5
    assert (result.experiment, result.trial_index, result.frame_size) == ("throughput", 3, 64)
    assert [s.stream_id for s in result.streams] == [0, 1]
    assert switch.slept == [0.2, 0.5]  # one poll, then the drain


def test_generators_that_never_finish_make_the_trial_tester_limited() -> None:
    """The one trial loop (tester.trial_loop): a load the tester did not offer is the
    tester's limit, said in the trial, never the DUT's loss, and the run goes on."""
    switch = Switch(generating=False)
    runner = switch.runner()
    result = runner.run_trial(TrialSpec("throughput", 0, 64, 0.5, 1.0))
    assert (result.valid, result.invalid_reason) == (False, "tester-limited")
    # One sender per stream: both streams' frames are application 0's packets.
    assert result.error == ("tester-limited: streams [0, 1] did not send their budgets "
                            "within 6.5 s: is the program loaded and the pktgen port enabled?")
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
    run's value, and the checker expects exactly those, each stream on its RX dev port
    (1/0 = 0, 2/0 = 8), IPv4; stale and mismatched frames of the trial are its
    rx_stale / rx_mismatched (summed over pipes)."""
    switch = StraySwitch()
    result = switch.runner().run_trial(TrialSpec("throughput", 130, 64, 0.5, 1.0))
    expected = {e.key["stream"]: (e.action, e.data)
                for e in switch.fake.entries("pipe.TesterIngress.expectation.rx_expected")}
    expect = "TesterIngress.expectation.expect"
    assert expected == {
        0: (expect, {"trial_run": RUN_VALUE, "trial_epoch": 0x04, "rx_port": 8, "ip_version": 4}),
        1: (expect, {"trial_run": RUN_VALUE, "trial_epoch": 0x04, "rx_port": 0, "ip_version": 4})}
    assert (result.rx_stale, result.rx_mismatched, result.rx_foreign) == (3, 60, 0)


# ---- self-check (issue 10): MAC counters ($PORT_STAT) against rx_port / tx_port ----------
RX_PORT = "pipe.TesterIngress.rx_port"
TX_PORT = "pipe.TesterEgress.tx_port"
DEV = {1: 0, 2: 8}  # 1/0 and 2/0, both in pipe 0


class TrafficSwitch(Switch):
    """Earlier trials left counts everywhere; during the trial (its first sleep) each
    stream's 1000 frames leave its TX port and arrive on its RX port: both the MACs
    and the program count them, except `lost_in_ingress` frames of port 2 that its
    MAC received and the pipeline never saw. `late` of those reach the program only
    during the first settle sleep (in flight at the trial's edge)."""

    def __init__(self, lost_in_ingress: int = 0, late: int = 0) -> None:
        super().__init__()
        self.lost, self.late, self.sleeps = lost_in_ingress, late, 0
        for dev in DEV.values():
            self.fake.set_port_stat(dev, 5000, 4000)
            self.fake.count(RX_PORT, dev, 0, 4990)  # old history: never compared
            self.fake.count(TX_PORT, dev, 0, 4000)

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        self.sleeps += 1
        if self.sleeps == 1:
            for dev in DEV.values():
                self.fake.add_port_stat(dev, received_ok=1000, transmitted_ok=1000)
                self.fake.count(TX_PORT, dev, 0, 1000)
            self.fake.count(RX_PORT, DEV[1], 0, 1000)
            self.fake.count(RX_PORT, DEV[2], 0, 1000 - self.lost - self.late)
        elif self.sleeps == 3 and self.late:  # poll, drain, then the first settle read
            self.fake.count(RX_PORT, DEV[2], 0, self.late)


def test_a_clean_trial_checks_itself_ok() -> None:
    switch = TrafficSwitch()
    result = switch.runner().run_trial(TrialSpec("throughput", 0, 64, 0.5, 1.0))
    check = result.self_check
    assert check is not None and check.ok
    assert [(p.port, p.interface, p.interface_rx, p.program_rx, p.interface_tx, p.program_tx)
            for p in check.ports] == [(1, "1/0", 1000, 1000, 1000, 1000),
                                      (2, "2/0", 1000, 1000, 1000, 1000)]
    assert (result.valid, result.error, result.invalid_reason) == (True, None, None)
    # MAC counters from hardware, on both sides of the program's read at each edge
    # (tester.selfcheck: a bracket); no settle re-read for a clean trial.
    assert switch.fake.port_stat_reads == [(0, True), (8, True)] * 4
    assert switch.slept == [0.2, 0.5]


def test_frames_the_mac_received_but_the_program_did_not_make_the_trial_tester_limited(
) -> None:
    switch = TrafficSwitch(lost_in_ingress=7)
    result = switch.runner().run_trial(TrialSpec("throughput", 0, 64, 0.5, 1.0))
    check = result.self_check
    assert check is not None and not check.ok
    assert (check.rx_dropped, check.tx_dropped) == (7, 0)
    _, port2 = check.ports
    assert (port2.interface_rx, port2.program_rx, port2.rx_dropped) == (1000, 993, 7)
    assert [p.ok for p in check.ports] == [True, False]
    assert result.valid is False
    assert result.invalid_reason == "tester-limited"
    assert result.error == ("tester-limited: port 2: 7 of 1000 frames 2/0 received never "
                            "reached the program")
    # Believed only after the settle re-reads (3, 0.2 s apart).
    assert switch.slept == [0.2, 0.5, 0.2, 0.2, 0.2]


def test_frames_still_in_the_pipeline_after_the_drain_are_not_called_dropped() -> None:
    switch = TrafficSwitch(late=2)
    result = switch.runner().run_trial(TrialSpec("throughput", 0, 64, 0.5, 1.0))
    assert result.self_check is not None and result.self_check.ok and result.valid
    assert switch.slept == [0.2, 0.5, 0.2]  # one settle re-read found them


def test_a_port_without_mac_counters_gives_no_self_check() -> None:
    switch = Switch()
    runner = switch.runner()
    del switch.fake.tables[("$PORT_STAT", None)]
    result = runner.run_trial(TrialSpec("throughput", 0, 64, 0.5, 1.0))
    assert (result.self_check, result.valid) == (None, True)


def test_push_pipeline_is_refused_with_the_reason() -> None:
    """bf_switchd loads the program from its conf file: a request to push one is refused
    (before the SDE's client is needed), never silently ignored."""
    from p4tester.targets.tofino.runner import open_tofino_trials

    topology = topology_from_dict(TOPOLOGY, "t.yaml")
    profile = profile_from_dict(PROFILE, "p.yaml")
    refused = "--push-pipeline: a Tofino switch runs the program bf_switchd loaded from"
    with (pytest.raises(ConfigError, match=refused),
          open_tofino_trials(topology, profile, push_pipeline=True)):
        pass


def test_as_one_tester_of_several_it_corrects_stamps_and_reads_latencies_in_us() -> None:
    switch = Switch()
    trials = switch.runner().loop.target
    trials.set_tx_clock_correction(1, 1_500_000)
    assert [(e.key, e.data) for e in switch.fake.entries(
        "pipe.TesterEgress.generator.tx_clock_correction")] == [
        ({"stream": 1}, {"correction_ns": 1_500_000})]
    # Stream 0 comes back on port 2 (2/0, pipe 0 of the fake): 3 frames, 4.5 us in all.
    switch.fake.count("pipe.TesterIngress.checker.rx_stream", 0, 0, 3)
    switch.fake.set_register("pipe.TesterIngress.checker.latency_sum.cells", 0,
                             "TesterIngress.checker.latency_sum.cells.lo", [4_501, 0, 0, 0])
    # In us, as the trial loop's samples hold them (the other targets' too).
    assert trials.read_received([0]) == {0: (3, 4)}
