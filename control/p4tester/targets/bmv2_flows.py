"""Flows on the BMv2 tester (tester.flow_engine): each flow a stream whose loop
generator is seeded with its template, paced at its rate and stopped by its budget
register. Stopping a flow kills its seeds; resuming arms its budget again and seeds
its loop, and the generator numbers on from where it stopped. A flow of bursts makes
each burst in one loop pass, paced at bursts per second, and its TX port's queue lets
them out at the port's line rate (as tester.stream_plan does for a bursts shape);
the other flows make a frame per pass, their ports unshaped."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

from p4tester.config.profile import Profile
from p4tester.config.stream_rates import port_line_pps
from p4tester.config.topology import Topology
from p4tester.dataplane import names
from p4tester.dataplane.program import seeds_for_rate
from p4tester.lab.ifaces import tester_iface
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import Bmv2Trials
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.flow_engine import CounterNames, FlowLatency, FlowPlan
from p4tester.tester.port_counters import KernelInterfaceCounters, PortCounterSource
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_loop import TrialLoop

NS_PER_BMV2_TICK: Final = 1000.0  # BMv2 timestamps are microseconds
BMV2_COUNTERS: Final = CounterNames(names.TX_STREAM, names.RX_STREAM, names.TX_PORT,
                                    names.RX_PORT)


def _loop_pps(flow: FlowPlan) -> int:
    """Passes per second of the flow's loop: its bursts per second (whole: the OTG
    mapping pays them so), or its frames per second."""
    return flow.rate_pps // flow.burst_frames


class Bmv2FlowEngine:
    counters = BMV2_COUNTERS

    def __init__(self, topology: Topology, profile: Profile, *, push_pipeline: bool,
                 session_factory: Callable[..., TesterSession] = TesterSession,
                 ports: PortCounterSource | None = None) -> None:
        self.session = session_factory(topology, profile, push_pipeline=push_pipeline)
        # Frames per loop pass each stream is wired for (the session wires 1).
        self._per_pass: dict[int, int] = {}
        # The self-check's counters: tester port N is p4lt<N> in the labs.
        self._ports = ports or KernelInterfaceCounters(tester_iface)

    def open(self) -> None:
        self.session.open()

    def close(self) -> None:
        self.session.close()

    def snapshot(self) -> CounterSnapshot:
        return CounterSnapshot.take(self.session.dataplane)

    def run_values_in_use(self) -> frozenset[int]:
        return frozenset(self.session.dataplane.run_values_in_use())

    def self_check(self, run_value: int, dut: DutCounterSource | None) -> TrialLoop:
        return TrialLoop(Bmv2Trials(self.session, self._ports, run_value), dut)

    def expect(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        for flow in flows:
            self.session.dataplane.expect_stream(flow.stream_id, flow.stream.rx_port,
                                                 ipv6=flow.stream.ipv6, epoch=epoch,
                                                 run=run_value)

    def start(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        dataplane = self.session.dataplane
        for flow in flows:
            if self._per_pass.get(flow.stream_id, 1) != flow.burst_frames:
                dataplane.configure_stream(flow.stream_id, flow.stream.tx_port,
                                           flow.burst_frames)
                self._per_pass[flow.stream_id] = flow.burst_frames
            dataplane.clear_stream(flow.stream_id)
        self.session.target.set_stream_rates({f.stream_id: _loop_pps(f) for f in flows})
        self.session.target.shape_ports(self._port_rates(flows))
        for flow in flows:
            dataplane.start_stream(flow.stream_id, flow.budget, epoch, run_value,
                                   flow.burst_frames)
        for flow in flows:
            dataplane.set_variation(flow.stream_id, flow.stream.field_cycle)
        for flow in flows:
            dataplane.seed_stream(flow.stream_id, flow.template,
                                  seeds_for_rate(_loop_pps(flow)))

    def _port_rates(self, flows: Sequence[FlowPlan]) -> dict[int, int]:
        """Each TX port's queue rate: its line rate where a flow sends bursts (they
        leave back to back at it), 0 (unshaped) elsewhere."""
        rates = {flow.stream.tx_port: 0 for flow in flows}
        for flow in flows:
            if flow.burst_frames > 1:
                rates[flow.stream.tx_port] = math.floor(port_line_pps(
                    self.session.topology, flow.stream, len(flow.template) + FCS_BYTES))
        return rates

    def generated(self, stream_id: int) -> int:
        return self.session.dataplane.read_stream_registers(stream_id).generated

    def stop_flow(self, stream_id: int) -> None:
        self.session.dataplane.stop_stream(stream_id)

    def pause(self, stream_ids: Sequence[int]) -> None:
        for stream_id in stream_ids:
            self.session.dataplane.stop_stream(stream_id)

    def resume(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        for flow in flows:
            self.session.dataplane.start_stream(flow.stream_id, flow.budget, epoch, run_value,
                                                flow.burst_frames)
            self.session.dataplane.seed_stream(flow.stream_id, flow.template,
                                               seeds_for_rate(_loop_pps(flow)))

    def latency(self, stream_id: int) -> FlowLatency | None:
        registers = self.session.dataplane.read_stream_registers(stream_id)
        if not registers.rx_samples:
            return None
        return FlowLatency(
            minimum_ns=registers.latency_min * NS_PER_BMV2_TICK,
            maximum_ns=registers.latency_max * NS_PER_BMV2_TICK,
            average_ns=registers.latency_sum / registers.rx_samples * NS_PER_BMV2_TICK)
