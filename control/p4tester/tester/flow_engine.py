"""Flows on a tester target: streams each with its own rate and exact frame budget, run
until their budgets are sent or a stop, and paused and resumed in between. The OTG
server runs its flows through this (otg.switch_driver); each target that can carry
them offers one engine (runs.flow_engines): BMv2 (targets.bmv2_flows) and eBPF
(targets.ebpf.flows).

An engine does what differs between targets: how a flow's frames are generated,
where its counters live and what they are called, and how its latency is read. The
driver keeps what is common: one start's run value and epoch, the self-check around it
(the trial loop's edges), the drain, and the figures from two snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from p4tester.config.profile import StreamConfig
from p4tester.streams.rates import IFG_BYTES
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_loop import TrialLoop


@dataclass(frozen=True, slots=True)
class FlowPlan:
    """One flow of a start. budget: its exact frame count (a continuous flow: the
    largest budget the target takes). template: its frame without FCS, as the tester
    sends it, the start's epoch and run value in its tester header."""

    stream: StreamConfig
    rate_pps: int
    budget: int
    template: bytes
    # Frames sent back to back at the port's line rate at a time (an OTG burst
    # duration); 1: spread evenly at the rate.
    burst_frames: int = 1
    # Bytes of idle line between a burst's frames (OTG's burst gap; 12: back to back).
    burst_gap_bytes: int = IFG_BYTES

    @property
    def stream_id(self) -> int:
        return self.stream.id


@dataclass(frozen=True, slots=True)
class CounterNames:
    """The snapshot's names of the counters a flow's and a port's figures come from
    (frames, and bytes without FCS)."""

    tx_stream: str
    rx_stream: str
    tx_port: str
    rx_port: str


@dataclass(frozen=True, slots=True)
class FlowLatency:
    minimum_ns: float
    maximum_ns: float
    average_ns: float


class FlowEngine(Protocol):
    counters: CounterNames
    # The data plane's stamp counts a varying stream's L4 ports (BMv2's field patterns
    # rewrite them): a template's checksum compensation includes them
    # (streams.template, FrameSpec.varies_ports). The eBPF sender writes whole frames.
    stamp_counts_ports: bool

    def open(self) -> None:
        """The tester program loaded and the profile's streams wired."""

    def close(self) -> None: ...

    def snapshot(self) -> CounterSnapshot:
        """Every counter named in `counters`, for every stream and port."""

    def run_values_in_use(self) -> frozenset[int]:
        """Run values the checker expects now: a new start draws another."""

    def self_check(self, run_value: int, dut: DutCounterSource | None) -> TrialLoop:
        """The trial loop whose edges check a start (its send half is not used)."""

    def expect(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        """What each flow's frames must be at the checker; before the opening edge."""

    def start(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        """Each flow's state cleared, its budget armed and its frames generated. On a
        failure the caller stops every flow of the start (stop_flow)."""

    def generated(self, stream_id: int) -> int:
        """Frames of the flow that left the tester since its start."""

    def stop_flow(self, stream_id: int) -> None:
        """No more frames of the flow leave (the rest of its budget is not sent)."""

    def pause(self, stream_ids: Sequence[int]) -> None:
        """The flows stop sending where they are; counters and sequence numbers stay."""

    def resume(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        """Paused flows send what is left of their budgets, numbered on."""

    def latency(self, stream_id: int) -> FlowLatency | None:
        """The flow's latency since its start; None before a frame was received."""

    def closing_verdict(self) -> str | None:
        """After a start's flows stopped: why its figures cannot be vouched for beyond
        the self-check (across testers: a clock that jumped), None when they can."""

    def start_notes(self) -> tuple[str, ...]:
        """What the last start rests on that the client should know (the clocks'
        offsets across testers); () for one tester."""
