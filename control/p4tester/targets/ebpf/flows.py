"""Flows on the eBPF tester (tester.flow_engine), as its trials run streams
(targets.ebpf.trials): each flow's template, tagged, written by one sender thread at
rate / k, replicated k times per template by the program, and numbered up to the
flow's budget, so its count is exact whatever the sender wrote.

What differs from a trial:
- A flow stops on its own (its budget), or when stopped: its generator entry is set
  to `stopped`, so copies still on their way leave no frame; the sender stops once no
  flow of the start sends any more.
- A pause stops the sender only: the program's budget and sequence numbers stay, and a
  resume writes the templates the rest of each budget needs.
- Port bytes: the program counts each generated copy at tx_port with its 8-byte tag,
  and clears a stream's tx_stream when the stream starts again; the engine keeps the
  generated frames it cleared per port, so a port's bytes since the config was applied
  are the frames' own.
- One of several testers (tester.group_flows): the session has its own ports only, and
  the engine sends the flows whose TX port is one of them and checks those whose RX
  port is; a flow's stamps may be corrected to its receiver's clock.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.testers import SimulatedClock
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import IP_VERSION_4, IP_VERSION_6
from p4tester.dataplane.headers import epoch_flags
from p4tester.p4rt import CounterValue
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.streams.rates import IFG_BYTES
from p4tester.streams.template import offset_of_tester_header
from p4tester.targets.ebpf.flow_templates import flow_frames
from p4tester.targets.ebpf.generator_tag import GENERATOR_TAG_BYTES, tag_template
from p4tester.targets.ebpf.sender import Feed, SendReport, TemplateSender
from p4tester.targets.ebpf.session import EbpfSession
from p4tester.targets.ebpf.trials import (
    SENDER_SLACK_S,
    EbpfTrials,
    catch_up_templates,
    check_burst_spacing,
    check_frame_fits,
    copies_per_template,
    port_cells,
    sender_thread,
    stream_cells,
)
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.flow_engine import CounterNames, FlowLatency, FlowPlan
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_loop import TrialLoop

EBPF_COUNTERS: Final = CounterNames("tx_stream", "rx_stream", "tx_port", "rx_port")


class EbpfFlowEngine:
    """Mutable on purpose: the start being run, its sender thread and what was cleared."""

    stamp_counts_ports = False  # FlowEngine: the sender writes each frame whole

    counters = EBPF_COUNTERS

    def __init__(self, topology: Topology, profile: Profile, *, push_pipeline: bool,
                 session: EbpfSession | None = None,
                 simulated_clock: SimulatedClock | None = None) -> None:
        del push_pipeline  # every session loads the program afresh
        self.session = session or EbpfSession(topology, profile)
        self._clock = simulated_clock  # a test's tester of several (config.testers)
        self._sender: TemplateSender | None = None
        self._check: EbpfTrials | None = None
        self._copies: dict[int, int] = {}  # per stream of the start: frames per template
        self._sending: set[int] = set()  # streams of the start whose frames still go out
        self._expected_runs: dict[int, int] = {}
        self._cleared_tagged: dict[int, int] = {}  # per port: tagged frames cleared away
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_report: SendReport | None = None

    def open(self) -> None:
        random = [s.id for s in self.session.profile.streams if s.size_cut]
        if random:
            raise ConfigError(f"streams {random}: random frame sizes are cut frame by frame "
                              "in BMv2's egress; the eBPF tester sends each template whole: "
                              "give these flows size.fixed, increment or weight_pairs, or "
                              "run them on BMv2")
        self.session.open()
        if self._clock is not None:
            self.session.set_simulated_clock(self._clock)
        self._sender = TemplateSender(self.session.sender_interface)

    def close(self) -> None:
        self._stop_sender()
        if self._check is not None:
            self._check.close()
            self._check = None
        if self._sender is not None:
            self._sender.close()
            self._sender = None
        self.session.close()

    # ---- counters ----------------------------------------------------------
    def snapshot(self) -> CounterSnapshot:
        """The four counters the flows' figures come from (a poll reads them while
        flows drain; the histograms are not read)."""
        names = self.counters
        tx_stream = stream_cells(self.session, names.tx_stream)
        tagged = dict(self._cleared_tagged)
        for stream in self.session.profile.streams:
            tagged[stream.tx_port] = tagged.get(stream.tx_port, 0) + tx_stream[stream.id].packets
        tx_port = {port: CounterValue(cell.packets,
                                      cell.bytes - GENERATOR_TAG_BYTES * tagged.get(port, 0))
                   for port, cell in port_cells(self.session, "tx").items()}
        return CounterSnapshot({names.tx_stream: tx_stream,
                                names.rx_stream: stream_cells(self.session, names.rx_stream),
                                names.tx_port: tx_port,
                                names.rx_port: port_cells(self.session, "rx")})

    def run_values_in_use(self) -> frozenset[int]:
        return frozenset(self._expected_runs.values())

    def self_check(self, run_value: int, dut: DutCounterSource | None) -> TrialLoop:
        # The trials' reads (ports, program) serve the check; their sender stays idle.
        if self._check is not None:
            self._check.close()
        self._check = EbpfTrials(self.session, run_value)
        return TrialLoop(self._check, dut)

    # ---- a start -----------------------------------------------------------
    def expect(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        """Before the opening edge, as in a trial: clearing zeroes the flows' counters."""
        tester = self.session.tester
        self._stop_sender()
        for flow in self._sent_here(flows):
            check_frame_fits(self.session, flow.stream, len(flow.template) + FCS_BYTES)
        for flow in flows:
            if flow.burst_frames > 1 and flow.burst_gap_bytes != IFG_BYTES:
                raise ConfigError(f"stream {flow.stream_id}: a burst gap of "
                                  f"{flow.burst_gap_bytes} bytes: the eBPF tester sends a "
                                  "burst's copies back to back (gap 12); give 12, or run "
                                  "the flow on BMv2")
            if flow.burst_frames > 1 and flow.stream.vary:
                raise ConfigError(f"stream {flow.stream_id}: a burst of varied frames: the "
                                  "eBPF tester's burst is copies of one frame; run the flow "
                                  "on BMv2, or send it steady")
        check_burst_spacing({f.stream_id: f.burst_frames for f in flows if f.burst_frames > 1},
                            {f.stream_id: float(f.rate_pps) for f in flows})
        local = set(self.session.port_numbers)
        for flow in flows:
            sid = flow.stream_id
            tester.stop_stream(sid)
            if flow.stream.rx_port in local:
                tester.expect_stream(sid, run=run_value, epoch_flags=epoch_flags(epoch),
                                     rx_port=flow.stream.rx_port,
                                     ip_version=IP_VERSION_6 if flow.stream.ipv6
                                     else IP_VERSION_4)
                self._expected_runs[sid] = run_value
            if flow.stream.tx_port not in local:
                tester.clear_stream(sid)
                continue  # sent by another tester
            generated = tester.stream_counter("tx_stream", sid).packets
            port = flow.stream.tx_port
            self._cleared_tagged[port] = self._cleared_tagged.get(port, 0) + generated
            tester.clear_stream(sid)
            # A flow of bursts: each template is one burst (its copies back to back).
            # A varying flow: one frame per template, each its flow's (flow_templates).
            copies = (flow.burst_frames if flow.burst_frames > 1
                      else 1 if flow.stream.vary
                      else copies_per_template(flow.rate_pps, len(self._sent_here(flows)),
                                                burst=False))
            self._copies[sid] = copies
            # Stamped on this tester's clock (a receiving tester's group corrects it).
            tester.set_tx_clock_correction(sid, 0)
            tester.set_replication(sid, self.session.pipeline.ifindex(
                self.session.interface(port)), copies)

    def _sent_here(self, flows: Sequence[FlowPlan]) -> list[FlowPlan]:
        local = set(self.session.port_numbers)
        return [flow for flow in flows if flow.stream.tx_port in local]

    def start(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        flows = self._sent_here(flows)
        for flow in flows:
            self.session.tester.start_stream(flow.stream_id, frames=flow.budget, initial_seq=0,
                                             run=run_value,
                                             epoch_flags=epoch_flags(epoch))
        self._send({flow.stream_id: flow.budget for flow in flows}, flows)

    def _send(self, frames: dict[int, int], flows: Sequence[FlowPlan]) -> None:
        """The sender writes, for each flow, the templates `frames[its stream]` more
        frames need."""
        assert self._sender is not None, "open() first"
        flows = self._sent_here(flows)
        if not flows:
            return  # one of several testers, sending none of these flows
        feeds = []
        for flow in flows:
            copies = self._copies[flow.stream_id]
            count = math.ceil(frames[flow.stream_id] / copies)
            if count > 0:
                at = offset_of_tester_header(flow.stream.encapsulation)
                tagged = tag_template(flow.template, flow.stream_id, at, flow.stream.tx_port)
                cycle = tuple(tag_template(f, flow.stream_id, at, flow.stream.tx_port)
                              for f in flow_frames(flow.stream, flow.template))
                if cycle:
                    # A resume goes on with the frame after the last one sent.
                    sent = (flow.budget - frames[flow.stream_id]) % len(cycle)
                    cycle = cycle[sent:] + cycle[:sent]
                # A flow of bursts keeps its bursts whole; a steady one catches up no
                # more than a trial would allow (sender module doc).
                catch_up = (None if flow.burst_frames > 1
                            else catch_up_templates(flow.rate_pps, copies))
                feeds.append(Feed(tagged, count, flow.rate_pps / copies, catch_up=catch_up,
                                  cycle=cycle))
        self._sending = {flow.stream_id for flow in flows}
        self._stop.clear()
        self._thread = sender_thread(self._sender, feeds, self._stop, self._reported)

    def _reported(self, report: SendReport) -> None:
        self.last_report = report

    def generated(self, stream_id: int) -> int:
        return self.session.tester.stream_counter("tx_stream", stream_id).packets

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        """A flow this tester sends, stamped on its receiving tester's clock."""
        self.session.tester.set_tx_clock_correction(stream_id, correction_ns)

    def stop_flow(self, stream_id: int) -> None:
        self.session.tester.stop_stream(stream_id)
        self._sending.discard(stream_id)
        if not self._sending:
            self._stop_sender()

    def pause(self, stream_ids: Sequence[int]) -> None:
        self._stop_sender()

    def resume(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        left = {flow.stream_id: max(0, flow.budget - self.generated(flow.stream_id))
                for flow in flows}
        self._send(left, flows)

    def _stop_sender(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=SENDER_SLACK_S)
            self._thread = None

    # ---- latency -----------------------------------------------------------
    def latency(self, stream_id: int) -> FlowLatency | None:
        registers = self.session.tester.read_stream_registers(stream_id)
        if not registers.rx_samples:
            return None
        # The program's clock counts nanoseconds.
        return FlowLatency(minimum_ns=float(registers.latency_min),
                           maximum_ns=float(registers.latency_max),
                           average_ns=registers.latency_sum / registers.rx_samples)

    def closing_verdict(self) -> str | None:
        return None

    def start_notes(self) -> tuple[str, ...]:
        return ()
