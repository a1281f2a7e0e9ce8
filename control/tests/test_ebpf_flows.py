"""The eBPF flow engine's bookkeeping (targets.ebpf.flows) against a fake program: port
bytes without the generator's tag across starts that clear the streams' counters, the
replication each flow gets, and what a stop and a start write. The engine on the real
program: tests_ebpf/test_otg_on_ebpf.py."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import load_topology
from p4tester.p4rt import CounterValue
from p4tester.targets.ebpf import flows as flows_module
from p4tester.targets.ebpf.flows import EbpfFlowEngine
from p4tester.tester.flow_engine import FlowPlan

TOPOLOGY = Path(__file__).resolve().parents[2] / "topologies" / "ebpf-loopback.yaml"
TAG = 8
FRAME = 124  # bytes without FCS: a 128-B frame


@dataclass
class FakeTester:
    """tx_stream per stream (cleared by clear_stream) and tx_port per port (never
    cleared), counted as the program counts them: each generated copy with its tag."""

    generated: dict[int, int] = field(default_factory=dict)
    port_frames: dict[int, int] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)

    def send(self, stream: int, port: int, frames: int) -> None:
        self.generated[stream] = self.generated.get(stream, 0) + frames
        self.port_frames[port] = self.port_frames.get(port, 0) + frames

    def stream_counter(self, name: str, stream: int) -> CounterValue:
        frames = self.generated.get(stream, 0) if name in ("tx_stream", "rx_stream") else 0
        return CounterValue(frames, frames * FRAME)  # tx_stream: the tag already taken off

    def port_counter(self, direction: str, port: int) -> CounterValue:
        frames = self.port_frames.get(port, 0) if direction == "tx" else 0
        return CounterValue(frames, frames * (FRAME + TAG))

    def stop_stream(self, stream: int) -> None:
        self.calls.append(f"stop {stream}")

    def expect_stream(self, stream: int, **what: Any) -> None:
        self.calls.append(f"expect {stream} run {what['run']} rx {what['rx_port']}")

    def clear_stream(self, stream: int) -> None:
        self.generated[stream] = 0
        self.calls.append(f"clear {stream}")

    def set_replication(self, stream: int, ifindex: int, copies: int) -> None:
        self.calls.append(f"replicate {stream} x{copies} to {ifindex}")

    def set_tx_clock_correction(self, stream: int, correction_ns: int) -> None:
        self.calls.append(f"stamp {stream} {correction_ns:+d}")

    def start_stream(self, stream: int, **what: Any) -> None:
        self.calls.append(f"start {stream} frames {what['frames']}")


class FakePipeline:
    @staticmethod
    def ifindex(interface: str) -> int:
        return int(interface.removeprefix("p4lt")) + 100


@dataclass
class FakeSession:
    profile: Profile
    tester: FakeTester = field(default_factory=FakeTester)
    pipeline: FakePipeline = field(default_factory=FakePipeline)
    port_numbers: tuple[int, ...] = (1, 2)

    def interface(self, number: int) -> str:
        return f"p4lt{number}"

    def checker_cells(self, stream_id: int) -> tuple[int, ...]:
        return (stream_id,)  # the flows are received on one port each


def engine() -> tuple[EbpfFlowEngine, FakeSession, tuple[FlowPlan, FlowPlan]]:
    streams = (StreamConfig(id=0, tx_port=1, rx_port=2), StreamConfig(id=1, tx_port=1, rx_port=2))
    profile = Profile(name="otg", streams=streams)
    session = FakeSession(profile)
    flows = (FlowPlan(streams[0], 30_000, 1000, bytes(FRAME)),
             FlowPlan(streams[1], 100, 50, bytes(FRAME)))
    return (EbpfFlowEngine(load_topology(TOPOLOGY), profile, push_pipeline=False,
                           session=session),  # type: ignore[arg-type]
            session, flows)


def test_port_bytes_leave_out_the_tag_across_starts_that_clear_the_streams() -> None:
    flows_engine, session, flows = engine()
    tester = session.tester
    tester.send(0, 1, 1000)
    tester.send(1, 1, 50)
    before = flows_engine.snapshot()
    assert before.cell("tx_port", 1) == CounterValue(1050, 1050 * FRAME)
    # A second start clears stream 0's tx_stream; its frames stay in tx_port.
    flows_engine.expect(flows[:1], epoch=1, run_value=7)
    tester.send(0, 1, 1000)
    after = flows_engine.snapshot()
    assert after.cell("tx_stream", 0) == CounterValue(1000, 1000 * FRAME)
    assert after.cell("tx_port", 1) == CounterValue(2050, 2050 * FRAME)
    assert flows_engine.run_values_in_use() == frozenset({7})


def test_each_flow_is_expected_cleared_and_replicated_for_its_rate() -> None:
    flows_engine, session, flows = engine()
    flows_engine.expect(flows, epoch=0, run_value=9)
    # 30 000 frames/s beside another flow: ceil(30 000 x 2 / 10 000) = 6 copies per
    # template; 100 frames/s: 1. Both out of port 1 (ifindex 101 here).
    assert session.tester.calls == [
        "stop 0", "expect 0 run 9 rx 2", "clear 0", "stamp 0 +0", "replicate 0 x6 to 101",
        "stop 1", "expect 1 run 9 rx 2", "clear 1", "stamp 1 +0", "replicate 1 x1 to 101"]


def test_one_tester_of_several_sends_its_flows_and_checks_the_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A member of a group (tester.group_flows) has port 1 only: it generates the flow
    out of port 1 (stamped on its own clock until the group corrects it) and checks
    the flow arriving on port 1; the other tester's parts are not written here."""
    streams = (StreamConfig(id=0, tx_port=1, rx_port=2), StreamConfig(id=2, tx_port=2, rx_port=1))
    session = FakeSession(Profile(name="otg", streams=streams), port_numbers=(1,))
    flows_engine = EbpfFlowEngine(load_topology(TOPOLOGY), session.profile,
                                  push_pipeline=False, session=session)  # type: ignore[arg-type]
    flows = (FlowPlan(streams[0], 30_000, 1000, bytes(FRAME)),
             FlowPlan(streams[1], 30_000, 1000, bytes(FRAME)))
    fed: list[int] = []
    monkeypatch.setattr(flows_module, "sender_thread",
                        lambda sender, feeds, stop, done: fed.append(len(feeds)))
    monkeypatch.setattr(flows_module, "tag_template", lambda frame, *where: frame)
    flows_engine.expect(flows, epoch=0, run_value=9)
    flows_engine._sender = object()  # type: ignore[assignment]  # fed, never written to
    flows_engine.start(flows, epoch=0, run_value=9)
    flows_engine.stop_flow(0)
    # 30 000 frames/s, the one flow sent here: ceil(30 000 / 10 000) = 3 copies.
    assert session.tester.calls == [
        "stop 0", "clear 0", "stamp 0 +0", "replicate 0 x3 to 101",
        "stop 2", "expect 2 run 9 rx 1", "clear 2",
        "start 0 frames 1000", "stop 0"]
    assert fed == [1]  # one feed: flow 0's templates
    assert flows_engine.run_values_in_use() == frozenset({9})


def test_random_sizes_are_refused_before_the_program_loads() -> None:
    streams = (StreamConfig(id=0, tx_port=1, rx_port=2),
               StreamConfig(id=3, tx_port=1, rx_port=2, frame_size=1518, size_cut=1454))
    session = FakeSession(Profile(name="otg", streams=streams))
    flows_engine = EbpfFlowEngine(load_topology(TOPOLOGY), session.profile,
                                  push_pipeline=False, session=session)  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as caught:
        flows_engine.open()
    assert str(caught.value) == (
        "streams [3]: random frame sizes are cut frame by frame in BMv2's egress; the eBPF "
        "tester sends each template whole: give these flows size.fixed, increment or "
        "weight_pairs, or run them on BMv2")


def test_a_burst_gap_is_refused_naming_the_target_that_takes_it() -> None:
    flows_engine, _session, flows = engine()
    spaced = replace(flows[1], burst_frames=10, burst_gap_bytes=100)
    with pytest.raises(ConfigError) as caught:
        flows_engine.expect((spaced,), epoch=1, run_value=7)
    assert str(caught.value) == (
        "stream 1: a burst gap of 100 bytes: the eBPF tester sends a burst's copies back to "
        "back (gap 12); give 12, or run the flow on BMv2")
