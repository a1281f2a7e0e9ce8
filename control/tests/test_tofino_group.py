"""Two Tofino testers in one test, on fake switches cabled port to port
(tofino_cabled_fake): west sends stream 0 to east, east sends stream 1 back. The
probes between them measure east's clock less west's (modulo the stamps' 2^32 ns,
whenever each switch started), each sender's stamps are corrected onto its receiver's
clock, and each stream's one-way delay is the cable's."""

from __future__ import annotations

from contextlib import ExitStack, nullcontext
from typing import Any, Final

import pytest
from tofino_cabled_fake import CabledFake
from tofino_fake import FakeBfrt, front_panel_dev_port

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import Topology, topology_from_dict
from p4tester.experiments.errors import TesterUnanswered
from p4tester.experiments.runner import TrialSpec
from p4tester.runs.trial_runners import GROUP_RUNNERS
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtError
from p4tester.targets.tofino.driver import StreamPorts, TofinoTarget
from p4tester.targets.tofino.group import (
    TofinoGroupRunner,
    open_member,
    open_tofino_group_trials,
)
from p4tester.targets.tofino.runner import stream_template

RUN_VALUE: Final = 0x5A
# East's switch started 7 s before west's: more than the stamps' 4.29-s range, so only
# the offset modulo 2^32 ns is the stamps' (a signed number of ns).
EAST_AHEAD_NS: Final = 7_000_001_500
PATH_NS: Final = 800
TOPOLOGY: dict[str, Any] = {
    "name": "two-tofinos",
    "testers": {"west": {"target": "tofino", "grpc": "192.0.2.1:50052"},
                "east": {"target": "tofino", "grpc": "192.0.2.2:50052"}},
    "ports": {1: {"line_rate": "100Gbps", "front_panel": "1/0", "tester": "west"},
              2: {"line_rate": "100Gbps", "front_panel": "1/0", "tester": "east"}},
    "dut": {"kind": "external"},
}
PROFILE: dict[str, Any] = {
    "name": "p",
    "trial": {"duration_s": 1, "drain_s": 0.5, "settle_s": 0},
    "frame_sizes": [64],
    "streams": [{"id": 0, "tx_port": 1, "rx_port": 2},
                {"id": 1, "tx_port": 2, "rx_port": 1, "src_ip": "198.51.100.1",
                 "dst_ip": "192.0.2.1"}],
}
PROBE_APP: Final = 7  # Tofino 1's last of 8 generator applications


def stamped(offset_ns: int) -> int:
    """An offset as the stamps have it: modulo 2^32 ns, signed."""
    return (offset_ns + (1 << 31)) % (1 << 32) - (1 << 31)


class CabledLab:
    """West's port 1/0 cabled to east's; time passes in sleep() for both switches."""

    def __init__(self, east_ahead_ns: int = EAST_AHEAD_NS) -> None:
        self.west = CabledFake(offset_ns=0)
        self.east = CabledFake(offset_ns=east_ahead_ns)
        dev = front_panel_dev_port(1)
        self.west.cable(dev, self.east, dev, PATH_NS)
        self.now = 0.0
        self.stack = ExitStack()

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        for fake in (self.west, self.east):
            fake.advance_to(round(self.now * 1e9))

    def clock(self) -> float:
        return self.now

    def runner(self, topology: Topology | None = None) -> TofinoGroupRunner:
        whole = topology or topology_from_dict(TOPOLOGY, "two.yaml")
        profile = profile_from_dict(PROFILE, "p.yaml")
        fakes = {"west": self.west, "east": self.east}
        members = [open_member(self.stack, whole, profile, tester, RUN_VALUE,
                               lambda t: nullcontext(fakes[t.name]), clock=self.clock)
                   for tester in whole.testers]
        return TofinoGroupRunner(whole, profile, members, sleep=self.sleep, clock=self.clock)


# 2^31 - 300 ns: the probes' forward reading wraps, the reverse one does not.
@pytest.mark.parametrize("east_ahead_ns", [EAST_AHEAD_NS, (1 << 31) - 300])
def test_one_way_delays_across_two_tofinos_are_the_cables(east_ahead_ns: int) -> None:
    lab = CabledLab(east_ahead_ns)
    runner = lab.runner()
    trial = runner.run_trial(TrialSpec("latency", 0, 64, 0.001, 1.0))
    assert trial.valid, trial.error
    # 0.1 % of 100G at 64 B: 148 809.5 frames/s, made exactly by each generator's timer.
    for stream in trial.streams:
        assert stream.tx_frames == stream.rx_frames == 148_810, stream
        assert (stream.lost, stream.duplicates, stream.reordered) == (0, 0, 0)
        assert stream.latency is not None
        # Stamped on the receiver's clock (the probes' offset), less the guard: the
        # cable's 800 ns each way, exactly.
        for figure in (stream.latency.min_us, stream.latency.avg_us, stream.latency.max_us):
            assert figure == pytest.approx(PATH_NS / 1000, abs=1e-9)
    (record,) = trial.clocks
    assert (record.a, record.b) == ("west", "east")
    assert record.offset_us == pytest.approx(stamped(east_ahead_ns) / 1000, abs=1e-9)
    assert record.end_offset_us == pytest.approx(stamped(east_ahead_ns) / 1000, abs=1e-9)
    assert record.drift_ppm == 0.0 and record.uncertainty_us == 0.0 and record.jump == ""
    assert (record.a_to_b, record.b_to_a) == ((0,), (1,))
    assert record.a_ptp is not None and not record.a_ptp.answered
    # What east received of west's stream, as the trial loop's samples take it: in us,
    # each frame 800 ns plus the trial's 1-us guard (taken out of the figures).
    east = runner.members[1].target
    assert east.read_received([0]) == {0: (148_810, 148_810 * 1_800 // 1000)}


def test_each_tester_sends_its_own_streams_and_keeps_the_last_application_for_probes(
        ) -> None:
    lab = CabledLab()
    lab.runner().run_trial(TrialSpec("latency", 0, 64, 0.001, 1.0))
    for fake, sent, checked in ((lab.west, 0, 1), (lab.east, 1, 0)):
        nodes = {int(str(e.data[names.NODE_RID])) for e in fake.entries(names.PRE_NODE)}
        assert nodes == {sent}  # the trial's group; the probes' are gone
        expected = {int(str(e.key[names.RX_EXPECTED_KEY]))
                    for e in fake.entries(names.RX_EXPECTED)}
        assert expected == {checked}
        # The probes' entries went with them: only the trial's stamp correction stays.
        corrected = {int(str(e.key[names.TX_CLOCK_CORRECTION_KEY]))
                     for e in fake.entries(names.TX_CLOCK_CORRECTION)}
        assert corrected == {sent}
        apps = {int(str(w.key[names.GEN_APPS_KEY])) for w in fake.writes_to(names.GEN_APPS)
                if w.action == names.GEN_RUN}
        assert apps == {0, PROBE_APP}  # the trial's first application, and the probes'
        assert not any(e.key[names.GEN_APPS_KEY] == PROBE_APP
                       for e in fake.entries(names.GEN_APPS))


def test_two_testers_on_one_switch_are_refused() -> None:
    same = {**TOPOLOGY, "testers": {"west": {"target": "tofino", "grpc": "192.0.2.1:50052"},
                                    "east": {"target": "tofino", "grpc": "192.0.2.1:50052"}}}
    opening = open_tofino_group_trials(topology_from_dict(same, "same.yaml"),
                                       profile_from_dict(PROFILE, "p.yaml"),
                                       push_pipeline=False)
    with pytest.raises(ConfigError) as refused, opening:
        pass
    assert str(refused.value) == (
        "same.yaml: testers west and east have the same grpc 192.0.2.1:50052 and device_id "
        "0: each Tofino tester is a switch of its own; give east its own")


def test_a_topology_of_tofino_testers_opens_the_tofino_group() -> None:
    assert GROUP_RUNNERS["tofino"] is open_tofino_group_trials


class GoneSwitch(CabledFake):
    """A switch whose BfRt server stops answering for counter reads from `gone_ns` on
    its clock (the common time: its offset is the stamps')."""

    def __init__(self, gone_ns: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.gone_ns = gone_ns

    def read_counters(self, counter: str, indices: Any) -> Any:
        if self.clock_ns >= self.gone_ns:
            raise BfrtError(f"cannot read {counter}: StatusCode.UNAVAILABLE")
        return super().read_counters(counter, indices)


def test_a_switch_that_stops_answering_is_named_and_the_other_stops_sending(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lab = CabledLab()
    # Gone while the trial runs (it starts at 1.28 s, after the probes and its settle).
    lab.east = GoneSwitch(gone_ns=1_500_000_000, offset_ns=EAST_AHEAD_NS)
    lab.west.cable(front_panel_dev_port(1), lab.east, front_panel_dev_port(1), PATH_NS)
    monkeypatch.setattr("p4tester.targets.group_runner.listening",
                        lambda address: address != "192.0.2.2:50052")
    with pytest.raises(TesterUnanswered) as unanswered:
        lab.runner().run_trial(TrialSpec("latency", 0, 64, 0.001, 1.0))
    assert str(unanswered.value) == (
        "tester east's switch at 192.0.2.2:50052 does not answer (cannot read "
        "pipe.TesterIngress.checker.rx_stream: StatusCode.UNAVAILABLE): is bf_switchd "
        "still running there?")
    # West's generator ran, and was stopped: its trial's application disabled again.
    enables = [w.data["app_enable"] for w in lab.west.writes_to(lab.west.chip.app_cfg)
               if w.key == {"app_id": 0} and "app_enable" in w.data]
    assert True in enables and enables[-1] is False


def test_a_tester_that_only_checks_a_stream_arms_no_application() -> None:
    fake = FakeBfrt()
    target = TofinoTarget(fake, [StreamPorts(0, tx_port=1, rx_port=2)], {2: "1/0"},
                          elsewhere={1})
    assert (target.sent, target.checked, target.probe_app_id) == (
        frozenset(), frozenset({0}), PROBE_APP)
    target.prepare([], [])
    target.set_latency_bins([10, 100])
    target.set_qdepth_bins([0, 10])
    stream = profile_from_dict(PROFILE, "p.yaml").streams[0]
    target.set_templates({0: stream_template(stream, 64, 3, RUN_VALUE)})
    target.set_stream_rates({})
    target.start_trial({})
    assert target.apps == ()
    assert [e.key for e in fake.entries(names.RX_EXPECTED)] == [{names.RX_EXPECTED_KEY: 0}]
    assert [s.stream_id for s in target.stream_stats(target.snapshot(), target.snapshot())] \
        == [0]
    with pytest.raises(ValueError, match=r"streams \[0\] leave from another tester's ports"):
        target.set_stream_rates({0: 1000.0})
    with pytest.raises(ValueError, match="stream 0 is not among the streams this target sends"):
        target.set_tx_clock_correction(0, 5)


def test_a_stream_of_other_testers_only_is_refused() -> None:
    with pytest.raises(ValueError) as refused:
        TofinoTarget(FakeBfrt(), [StreamPorts(0, tx_port=1, rx_port=3)], {2: "1/0"},
                     elsewhere={1, 3})
    assert str(refused.value) == (
        "stream 0 neither leaves from nor arrives at this tester (ports 1 -> 3): give the "
        "target only the streams of its ports")
