"""Flows on the BMv2 tester (tester.flow_engine): each flow a stream whose loop
generator is seeded with its template, paced at its rate and stopped by its budget
register. Stopping a flow kills its seeds; resuming arms its budget again and seeds
its loop, and the generator numbers on from where it stopped. A flow of bursts makes
each burst in one loop pass, paced at bursts per second, and its TX port's queue lets
them out at the port's line rate (as tester.stream_plan does for a bursts shape);
the other flows make a frame per pass, their ports unshaped.

One tester of several (targets.bmv2_group_flows) sends the flows whose TX port is its
own and checks those whose RX port is, and stamps a flow another tester checks on that
tester's clock (set_tx_clock_correction)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.dataplane import names
from p4tester.dataplane.constants import CUT_PORTS
from p4tester.dataplane.program import seeds_for_rate
from p4tester.lab.ifaces import tester_iface
from p4tester.streams.field_patterns import data_plane_entries
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import Bmv2Trials
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.flow_engine import CounterNames, FlowLatency, FlowPlan
from p4tester.tester.port_counters import KernelInterfaceCounters, PortCounterSource
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.stream_plan import StreamPlan, burst_queue_pps, port_shaping
from p4tester.tester.trial_loop import TrialLoop

NS_PER_BMV2_TICK: Final = 1000.0  # BMv2 timestamps are microseconds
BMV2_COUNTERS: Final = CounterNames(names.TX_STREAM, names.RX_STREAM, names.TX_PORT,
                                    names.RX_PORT)


class Bmv2FlowEngine:
    counters = BMV2_COUNTERS
    stamp_counts_ports = True  # FlowEngine: the field patterns rewrite ports

    def __init__(self, topology: Topology, profile: Profile, *, push_pipeline: bool,
                 session_factory: Callable[..., TesterSession] = TesterSession,
                 ports: PortCounterSource | None = None) -> None:
        self.session = session_factory(topology, profile, push_pipeline=push_pipeline)
        self._here = frozenset(p.number for p in self.session.topology.ports)
        # Frames per loop pass each stream is wired for (the session wires 1).
        self._per_pass: dict[int, int] = {}
        # The self-check's counters: tester port N is p4lt<N> in the labs.
        self._ports = ports or KernelInterfaceCounters(tester_iface)
        # Per flow sent here: its stamps' correction (us), and its generator entry's
        # budget, epoch, run value and frames per pass while it runs (a correction
        # rewrites the entry).
        self._corrections: dict[int, int] = {}
        self._running: dict[int, tuple[int, int, int, int]] = {}

    def open(self) -> None:
        far = sorted({s.tx_port for s in self.session.profile.streams
                      if s.size_cut and s.tx_port >= CUT_PORTS})
        if far:
            raise ConfigError(f"ports {far}: random frame sizes leave by ports "
                              f"0..{CUT_PORTS - 1} (their cut bytes are counted there); "
                              "send them from one of those")
        self.session.open()

    def close(self) -> None:
        self.session.close()

    def snapshot(self) -> CounterSnapshot:
        return CounterSnapshot.take(self.session.dataplane)

    def run_values_in_use(self) -> frozenset[int]:
        return frozenset(self.session.dataplane.run_values_in_use())

    def self_check(self, run_value: int, dut: DutCounterSource | None) -> TrialLoop:
        return TrialLoop(Bmv2Trials(self.session, self._ports, run_value), dut)

    def _sent_here(self, flows: Sequence[FlowPlan]) -> list[FlowPlan]:
        return [flow for flow in flows if flow.stream.tx_port in self._here]

    def expect(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        """The flows checked here expected; one sent by another tester has its counters
        zeroed here now (its sender's start zeroes the others)."""
        dataplane = self.session.dataplane
        for flow in flows:
            if flow.stream.rx_port not in self._here:
                continue
            if flow.stream.tx_port not in self._here:
                dataplane.clear_stream(flow.stream_id)
            dataplane.expect_stream(flow.stream_id, flow.stream.rx_port, ipv6=flow.stream.ipv6,
                                    epoch=epoch, run=run_value)
        for flow in self._sent_here(flows):
            self._corrections[flow.stream_id] = 0  # this tester's clock until corrected

    def start(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        dataplane = self.session.dataplane
        flows = self._sent_here(flows)
        plans = [self._plan(flow) for flow in flows]
        for plan in plans:
            sid = plan.stream.id
            if self._per_pass.get(sid, 1) != plan.frames_per_pass:
                dataplane.configure_stream(sid, plan.stream.tx_port, plan.frames_per_pass)
                self._per_pass[sid] = plan.frames_per_pass
            dataplane.clear_stream(sid)
        self.session.target.set_stream_rates({p.stream.id: p.loop_pps for p in plans})
        # A flow's frames leave as its loop makes them, a burst's at line rate.
        self.session.target.shape_ports(port_shaping(plans, headroom=0.0))
        for plan in plans:
            self._running[plan.stream.id] = (plan.budget, epoch, run_value,
                                             plan.frames_per_pass)
            self._start_entry(plan.stream.id)
        for flow in flows:
            dataplane.set_variation(flow.stream_id, flow.stream.field_cycle)
            dataplane.set_field_patterns(flow.stream_id,
                                         data_plane_entries(flow.stream.field_patterns))
            if flow.stream.size_cut:  # the session's open left every other stream whole
                dataplane.set_resize(flow.stream_id, flow.stream.size_cut, len(flow.template))
        for plan, flow in zip(plans, flows, strict=True):
            dataplane.seed_stream(flow.stream_id, flow.template, seeds_for_rate(plan.loop_pps))

    def _plan(self, flow: FlowPlan) -> StreamPlan:
        """The flow as the trials' stream plan (tester.stream_plan): a flow of bursts
        makes a burst per loop pass out of a port at line rate, any other a frame per
        pass out of an unshaped port."""
        line = (burst_queue_pps(self.session.topology, flow.stream,
                                len(flow.template) + FCS_BYTES, flow.burst_gap_bytes)
                if flow.burst_frames > 1 else 0)
        return StreamPlan(flow.stream, flow.rate_pps, flow.budget, flow.burst_frames, line)

    def _start_entry(self, stream_id: int) -> None:
        budget, epoch, run_value, per_pass = self._running[stream_id]
        self.session.dataplane.start_stream(
            stream_id, budget, epoch, run_value, per_pass,
            tx_clock_correction_us=self._corrections.get(stream_id, 0))

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        """A flow sent here, stamped on its receiving tester's clock (whole us, the
        switch's unit); a running flow's generator entry is rewritten when the
        correction changes (its budget and loop are untouched)."""
        correction = round(correction_ns / NS_PER_BMV2_TICK)
        if self._corrections.get(stream_id, 0) == correction:
            return
        self._corrections[stream_id] = correction
        if stream_id in self._running:
            self._start_entry(stream_id)

    def generated(self, stream_id: int) -> int:
        return self.session.dataplane.read_stream_registers(stream_id).generated

    def stop_flow(self, stream_id: int) -> None:
        self.session.dataplane.stop_stream(stream_id)
        self._running.pop(stream_id, None)

    def pause(self, stream_ids: Sequence[int]) -> None:
        for stream_id in stream_ids:
            self.session.dataplane.stop_stream(stream_id)
            self._running.pop(stream_id, None)

    def resume(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        for flow in self._sent_here(flows):
            plan = self._plan(flow)
            self._running[flow.stream_id] = (flow.budget, epoch, run_value,
                                             plan.frames_per_pass)
            self._start_entry(flow.stream_id)
            self.session.dataplane.seed_stream(flow.stream_id, flow.template,
                                               seeds_for_rate(plan.loop_pps))

    def latency(self, stream_id: int) -> FlowLatency | None:
        registers = self.session.dataplane.read_stream_registers(stream_id)
        if not registers.rx_samples:
            return None
        return FlowLatency(
            minimum_ns=registers.latency_min * NS_PER_BMV2_TICK,
            maximum_ns=registers.latency_max * NS_PER_BMV2_TICK,
            average_ns=registers.latency_sum / registers.rx_samples * NS_PER_BMV2_TICK)

    def closing_verdict(self) -> str | None:
        return None

    def start_notes(self) -> tuple[str, ...]:
        return ()
