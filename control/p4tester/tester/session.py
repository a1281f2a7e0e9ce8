"""A tester session on one switch, and the TrialRunner that experiments use.

A trial (SwitchTrialRunner.run_trial): snapshot the counters, clear each stream's
registers in-band, set the stream rates, arm the budgets, seed the pacing loops,
wait until every budget is sent (bounded), stop, let the DUT drain, snapshot
again and read each stream's registers. Figures are differences of snapshots.

Around the snapshots the tester ports' own counters are read (self-check, issue 10):
a frame a port delivered that the program never saw, or one the program sent that
the port did not, was lost inside the tester; such a trial is invalid
("tester-limited") and its loss is never the DUT's. A lab DUT sharing the host is
checked the same way (lab.dut_counters): a trial where it lost frames to the host
rather than to its configured queue is "dut-limited".
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import Topology
from p4tester.dataplane import names
from p4tester.dataplane.constants import (
    EPOCHS,
    REFERENCE_LOOP_PORT,
    RX_KIND_COUNT,
    RX_KIND_FOREIGN,
    RX_KIND_MISMATCHED,
    RX_KIND_STALE,
    RX_KIND_STREAM,
)
from p4tester.dataplane.program import SwitchUnansweredError, TesterDataplane, seeds_for_rate
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialSpec
from p4tester.lab.dut_counters import DUT_TIMEOUT_S, DutCounterSource, dut_counters_for
from p4tester.lab.ifaces import tester_iface
from p4tester.neighbors import resolve as neighbors
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.results.checks import DUT_LIMITED, TESTER_LIMITED, SelfCheck
from p4tester.results.latency import latency_stats
from p4tester.results.model import Histogram, StreamStats, TrialResult
from p4tester.results.reference import ReferenceLatency
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.streams.template import FrameSpec, build_template
from p4tester.streams.tunnels import Vxlan
from p4tester.targets.base import TargetDriver
from p4tester.targets.bmv2 import Bmv2Target
from p4tester.targets.bmv2_thrift import Bmv2Thrift
from p4tester.tester.host_load import CpuTimes, host_load, read_cpu_times
from p4tester.tester.link_frames import check_frame_fits
from p4tester.tester.port_counters import (
    InterfaceCounters,
    KernelInterfaceCounters,
    PortCounterSource,
)
from p4tester.tester.reference_stream import (
    lost_reason,
    reference_latency,
    reference_stream,
    reference_stream_id,
)
from p4tester.tester.selfcheck import (
    InterfaceBracket,
    ProgramPortCounts,
    build_self_check,
    describe_overcount,
)
from p4tester.tester.snapshot import (
    CounterSnapshot,
    bytes_between,
    histogram_between,
    packets_between,
)
from p4tester.tester.stream_plan import StreamPlan, plan_streams, port_shaping
from p4tester.tester.trial_course import (
    OfferedLoad,
    StreamSample,
    late_frames,
    latency_course,
    not_offered,
    offered_load,
)

# Queue depth bins (packets) for DUT-stamped frames.
QDEPTH_EDGES = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536)
POLL_S = 0.1
# A trial may take this much longer than its budget at its rate before it is
# declared stuck (the switch or its CPU busy elsewhere).
SEND_SLACK = 1.5
SEND_GRACE_S = 5.0
# Frames a port delivered just before the drain ended may still wait in BMv2's input
# queue: the self-check re-reads this many times, this far apart, before it calls
# them dropped.
SETTLE_READS = 3
SETTLE_S = 0.2
# A lab DUT whose counters could not be read at an edge of the trial: nothing vouches that
# it held its configured behaviour, so the trial is not the DUT's result either.
DUT_UNCHECKED = ("unchecked: the lab DUT's counters could not be read (it did not answer "
                 f"within {DUT_TIMEOUT_S:g} s: busy host, or the DUT stopped)")


class TrialFailed(RuntimeError):
    """The trial could not complete; its figures must not be used."""


class GeneratorBehind(TrialFailed):
    """The generator did not send its budget in the time its rate allows: the switch
    could not carry the load it was asked to make (a fact about the tester)."""


class TesterSession:
    """Connection to the tester switch with the program loaded and streams wired."""

    def __init__(self, topology: Topology, profile: Profile, *, push_pipeline: bool = False,
                 client: P4RuntimeClient | None = None, target: TargetDriver | None = None,
                 ) -> None:
        self.topology = topology
        self.profile = profile
        self.schema = P4InfoSchema.from_text_file(topology.switch.p4info)
        self.client = client or P4RuntimeClient(topology.switch.grpc,
                                                device_id=topology.switch.device_id,
                                                timeout_s=topology.switch.timeout_s)
        self.target: TargetDriver = target or Bmv2Target(Bmv2Thrift(topology.switch.thrift_port))
        self.dataplane = TesterDataplane(self.client, self.schema)
        self._push = push_pipeline

    def open(self) -> None:
        """Connect, make sure the switch runs this program, wire streams and bins."""
        self.client.connect()
        if self._push or not self._has_pipeline():
            self.client.set_pipeline(self.schema, self.topology.switch.bmv2_json)
        else:
            self.client.verify_pipeline(self.schema)
        self.profile = neighbors.prepare(self.topology, self.profile, self.dataplane)
        for stream in self.profile.streams:
            self.dataplane.configure_stream(stream.id, stream.tx_port)
        self.target.prepare([s.id for s in self.profile.streams],
                            [s.tx_port for s in self.profile.streams])
        self.dataplane.set_latency_bins(self.profile.latency_bins_us)
        self.dataplane.set_qdepth_bins(QDEPTH_EDGES)

    def _has_pipeline(self) -> bool:
        try:
            self.client.get_p4info()
        except Exception:
            return False
        return True

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> TesterSession:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class _Edge:
    """The counters outside the tester's snapshot at one edge of a trial: the tester
    ports' interfaces, and a lab DUT's interfaces and program (None: not readable)."""

    ports: InterfaceBracket | None
    dut_interfaces: InterfaceBracket | None = None
    dut_program: ProgramPortCounts | None = None


def _bracket(first: Mapping[int, InterfaceCounters] | None,
             second: Mapping[int, InterfaceCounters] | None) -> InterfaceBracket | None:
    """Interfaces read around their program's read (tester.selfcheck): frames may still
    flow at an edge (a DUT's deep queue draining into the tester)."""
    return None if first is None or second is None else InterfaceBracket(first, second)


class SwitchTrialRunner:
    """TrialRunner on a real tester switch.

    `ports`: where the tester ports' own counters come from; by default a BMv2
    lab's interfaces (tester port N is p4lt<N>). Ports without such counters give
    trials without a self-check. `dut`: a lab DUT on the same host to check after
    each trial (default: the topology's, see lab.dut_counters; None for loopback
    and external DUTs). A runner is one run: it draws the run value its frames carry
    (dataplane.run_identity), apart from the one the switch's previous run used.
    """

    def __init__(self, session: TesterSession, ports: PortCounterSource | None = None,
                 dut: DutCounterSource | None = None) -> None:
        self.session = session
        self.ports = ports or KernelInterfaceCounters(tester_iface)
        self.port_numbers = tuple(p.number for p in session.topology.ports)
        self.dut = dut if dut is not None else dut_counters_for(session.topology)
        self.run_value = draw_run_value(session.dataplane.run_values_in_use())
        # Frames per pass each stream's multicast group is wired for (the session wired
        # the profile's for one), and each TX port's queue rate as this runner set it
        # (none yet: another runner on the session may have shaped a port).
        self._wired = {stream.id: 1 for stream in session.profile.streams}
        self._shaped: dict[int, int] = {}

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        session = self.session
        dataplane = session.dataplane
        plans = plan_streams(session.profile, session.topology, spec)
        for plan in plans:
            for port in {plan.stream.tx_port, plan.stream.rx_port}:
                check_frame_fits(self.ports.interface(port), plan.stream.size_in(spec.frame_size),
                                 f"stream {plan.stream.id}, port {port}")
        epoch = spec.trial_index % EPOCHS
        started = time.time()
        reference = self._reference_plan(spec)
        # Before the opening snapshot: only frames of this run and epoch, on the
        # stream's RX port, with its template's IP version are the stream's from here
        # on, so a late frame of the previous trial or run counts as rx_stale, never
        # in this trial's RX.
        for plan in (*plans, *reference):
            dataplane.expect_stream(plan.stream.id, plan.stream.rx_port,
                                    ipv6=plan.stream.ipv6, epoch=epoch, run=self.run_value)
        cpu_before = read_cpu_times()
        # Interfaces on both sides of their programs' reads: see tester.selfcheck.
        ports_first = self.ports.read(self.port_numbers)
        dut_first = self.dut.read_interfaces() if self.dut else None
        before = CounterSnapshot.take(dataplane)
        dut_program = self.dut.read_program() if self.dut else None
        edge_before = _Edge(_bracket(ports_first, self.ports.read(self.port_numbers)),
                            _bracket(dut_first, self.dut.read_interfaces() if self.dut else None),
                            dut_program)
        try:
            return self._run_streams(spec, plans, reference, epoch, started, cpu_before,
                                     before, edge_before)
        except SwitchUnansweredError as unanswered:
            return self._unanswered_trial(spec, (*plans, *reference), started, cpu_before,
                                          str(unanswered))

    def _reference_plan(self, spec: TrialSpec) -> tuple[StreamPlan, ...]:
        """The trial's reference stream (tester.reference_stream), wired on first use;
        () when the trial is no latency trial, the profile turned it off (reference_pps
        0) or uses every stream id."""
        profile = self.session.profile
        rate = profile.trial.reference_pps
        stream_id = reference_stream_id(profile)
        if not spec.reference_loop or not rate or stream_id is None:
            return ()
        if stream_id not in self._wired:  # its group comes with the trial's (_run_streams)
            self.session.target.prepare([stream_id], [REFERENCE_LOOP_PORT])
        budget = max(1, round(rate * spec.duration_s))
        return (StreamPlan(reference_stream(profile, stream_id), rate, budget),)

    def _shape(self, rates: Mapping[int, int]) -> None:
        """Set the TX ports' queue rates that differ from what this runner set (every
        port, the first time)."""
        changed = {port: pps for port, pps in rates.items() if self._shaped.get(port) != pps}
        self.session.target.shape_ports(changed)
        self._shaped.update(changed)

    def _run_streams(self, spec: TrialSpec, plans: tuple[StreamPlan, ...],
                     reference: tuple[StreamPlan, ...], epoch: int, started: float,
                     cpu_before: CpuTimes | None, before: CounterSnapshot,
                     edge_before: _Edge) -> TrialResult:
        session = self.session
        dataplane = session.dataplane
        every = (*plans, *reference)
        for plan in every:
            if self._wired.get(plan.stream.id) != plan.frames_per_pass:
                dataplane.configure_stream(plan.stream.id, plan.stream.tx_port,
                                           plan.frames_per_pass)
                self._wired[plan.stream.id] = plan.frames_per_pass
        for plan in every:
            dataplane.clear_stream(plan.stream.id)
        # BMv2 paces the loops (passes/s); the TX ports' queues space what they make.
        session.target.set_stream_rates({p.stream.id: p.loop_pps for p in every})
        self._shape(port_shaping(every))
        for plan in every:
            dataplane.start_stream(plan.stream.id, plan.budget, epoch, self.run_value,
                                   plan.frames_per_pass)
        for plan in plans:
            dataplane.set_port_variation(plan.stream.id, plan.stream.field_cycle)
        for plan in every:
            template = build_template(
                frame_spec(plan.stream, plan.stream.size_in(spec.frame_size), epoch,
                           self.run_value))
            dataplane.seed_stream(plan.stream.id, template, seeds_for_rate(plan.loop_pps))
        behind = ""
        samples: dict[int, list[StreamSample]] = {}
        try:
            # The reference stream is not waited for: it watches the trial's streams
            # and stops with them.
            self._wait_until_sent(plans, samples)
        except GeneratorBehind as fell_behind:
            # What was sent is still counted exactly: read it, but the trial did not
            # offer the load it was asked for, so it is the tester's limit, not the DUT's.
            behind = str(fell_behind)
        finally:
            for plan in every:
                dataplane.stop_stream(plan.stream.id)
        time.sleep(session.profile.trial.drain_s)
        after, check, dut_check = self._settled_snapshot(before, edge_before)
        offered = [offered_load(samples.get(p.stream.id, ()), p.rate_pps, p.budget)
                   for p in plans]
        # A trial proves the load it offered (issue 21): one that fell behind its rate
        # or caught up in a burst is the tester's limit, never the DUT's result.
        behind = behind or "; ".join(
            reason for plan, load in zip(plans, offered, strict=True)
            if (reason := not_offered(plan.stream.id, load, plan.rate_pps, POLL_S)))
        streams = tuple(self._stream_stats(plan, plan.stream.size_in(spec.frame_size), before,
                                           after) for plan in plans)
        looped, lost = self._reference_latency(reference, streams, before, after)
        behind = behind or lost
        if behind:
            check = replace(check or SelfCheck(()), unvouched=_with_host_load(behind, cpu_before))
        error = None
        if check is not None and not check.ok:
            error = f"{TESTER_LIMITED}: {check.describe()}"
        elif dut_check is not None and dut_check.unvouched:
            error = f"{DUT_LIMITED}: {dut_check.unvouched}"
        elif dut_check is not None and not dut_check.ok:
            error = f"{DUT_LIMITED}: the DUT did not hold its configured behaviour: " \
                    f"{dut_check.describe()}"
        return TrialResult(
            experiment=spec.experiment,
            trial_index=spec.trial_index,
            offered_fraction=spec.offered_fraction,
            offered_pps=float(sum(p.rate_pps for p in plans)),
            duration_s=spec.duration_s,
            frame_size=spec.frame_size,
            streams=streams,
            started_at=started,
            rx_foreign=packets_between(before, after, names.RX_KIND, RX_KIND_FOREIGN),
            rx_stale=packets_between(before, after, names.RX_KIND, RX_KIND_STALE),
            rx_mismatched=packets_between(before, after, names.RX_KIND, RX_KIND_MISMATCHED),
            labels=spec.labels,
            offered_pps_measured=_measured_pps(offered),
            dut_buffering_us=_buffering(streams, samples),
            late_frames=_late(plans, streams, samples),
            reference=looped,
            max_burst_frames=max(load.max_burst_frames for load in offered),
            valid=error is None,
            error=error,
            self_check=check,
            dut_check=dut_check,
            host_load=host_load(cpu_before, read_cpu_times()),
        )

    def _unanswered_trial(self, spec: TrialSpec, plans: tuple[StreamPlan, ...],
                          started: float, cpu_before: CpuTimes | None, what: str,
                          ) -> TrialResult:
        """A trial the tester's switch did not answer an in-band request in: its figures
        cannot be read; tester-limited, never the DUT's loss."""
        for plan in plans:  # P4Runtime writes: served while the data plane is flooded
            self.session.dataplane.stop_stream(plan.stream.id)
        time.sleep(self.session.profile.trial.drain_s)
        reason = _with_host_load(what, cpu_before)
        return TrialResult(
            experiment=spec.experiment, trial_index=spec.trial_index,
            offered_fraction=spec.offered_fraction,
            offered_pps=float(sum(p.rate_pps for p in plans)), duration_s=spec.duration_s,
            frame_size=spec.frame_size, started_at=started, labels=spec.labels, valid=False,
            error=f"{TESTER_LIMITED}: {reason}", self_check=SelfCheck((), unvouched=reason),
            host_load=host_load(cpu_before, read_cpu_times()))

    def _settled_snapshot(self, before: CounterSnapshot, edge: _Edge,
                          ) -> tuple[CounterSnapshot, SelfCheck | None, SelfCheck | None]:
        """The trial's closing snapshot, self-check and DUT check; re-read (bounded)
        while frames the ports counted may still be on their way through a switch."""
        dataplane = self.session.dataplane
        check: SelfCheck | None = None
        dut_check: SelfCheck | None = None
        for attempt in range(SETTLE_READS + 1):
            if attempt:
                time.sleep(SETTLE_S)
            # Interfaces on both sides of their programs' reads: see tester.selfcheck.
            dut_first = self.dut.read_interfaces() if self.dut else None
            ports_first = self.ports.read(self.port_numbers)
            dut_program = self.dut.read_program() if self.dut else None
            dut_interfaces = _bracket(dut_first,
                                      self.dut.read_interfaces() if self.dut else None)
            after = CounterSnapshot.take(dataplane)
            ports_after = _bracket(ports_first, self.ports.read(self.port_numbers))
            if edge.ports is not None and ports_after is not None:
                check = build_self_check(
                    self._port_names(), edge.ports, ports_after, _program_ports(before),
                    _program_ports(after))
            if self.dut is not None:
                if (edge.dut_interfaces is not None and edge.dut_program is not None
                        and dut_interfaces is not None and dut_program is not None):
                    dut_check = build_self_check(self.dut.interfaces(), edge.dut_interfaces,
                                                 dut_interfaces, edge.dut_program, dut_program)
                elif self.dut.running():
                    dut_check = SelfCheck((), unvouched=DUT_UNCHECKED)
                else:
                    dut_check = None  # gone: no check; its trials show what it forwarded
            if (check is None or check.ok) and (dut_check is None or dut_check.ok):
                break
        if check is not None and edge.ports is not None and ports_after is not None:
            outside = sum(packets_between(before, after, names.RX_KIND, kind)
                          for kind in range(RX_KIND_COUNT) if kind != RX_KIND_STREAM)
            overcount = describe_overcount(self._port_names(), edge.ports, ports_after,
                                           _program_ports(before), _program_ports(after),
                                           outside)
            if overcount:
                # The tester counted frames from before the trial as a stream's (or sent
                # frames it did not make): its figures are not the DUT's (issue 21).
                check = replace(check, unvouched=overcount)
        return after, check, dut_check

    def _port_names(self) -> dict[int, str]:
        return {n: self.ports.interface(n) for n in self.port_numbers}

    def _wait_until_sent(self, plans: tuple[StreamPlan, ...],
                         samples: dict[int, list[StreamSample]]) -> None:
        """Wait (bounded) until every stream made its budget and its TX port let it
        all out (or stopped sending: a frame its full TX queue dropped is never
        numbered); each read of a stream goes into `samples` (the proof of what it
        offered: the frames that left, on the switch's clock)."""
        longest = max(p.budget / p.rate_pps for p in plans)
        deadline = time.monotonic() + longest * SEND_SLACK + SEND_GRACE_S
        waiting = {p.stream.id: p.budget for p in plans}
        last_sent: dict[int, int] = {}
        while waiting:
            if time.monotonic() > deadline:
                raise GeneratorBehind(
                    f"streams {sorted(waiting)} did not send their budgets within "
                    f"{longest * SEND_SLACK + SEND_GRACE_S:.1f} s: the switch is too slow "
                    "for this rate, or stopped"
                )
            time.sleep(POLL_S)
            for stream_id in list(waiting):
                registers = self.session.dataplane.read_stream_registers(stream_id)
                # Trials clear the sequence to 0: the next number is the frames sent.
                sent = registers.tx_next_seq
                samples.setdefault(stream_id, []).append(
                    StreamSample(registers.switch_time, sent, registers.rx_samples,
                                 registers.latency_sum))
                budget = waiting[stream_id]
                if registers.generated >= budget and (
                        sent >= budget or sent == last_sent.get(stream_id)):
                    del waiting[stream_id]
                last_sent[stream_id] = sent

    def _reference_latency(self, reference: tuple[StreamPlan, ...],
                           streams: tuple[StreamStats, ...], before: CounterSnapshot,
                           after: CounterSnapshot) -> tuple[ReferenceLatency | None, str]:
        """The reference stream's figures, and why the trial is not vouched for when
        it did not come back whole ("" when it did, or the trial ran none)."""
        if not reference:
            return None, ""
        sid = reference[0].stream.id
        tx = packets_between(before, after, names.TX_STREAM, sid)
        rx = packets_between(before, after, names.RX_STREAM, sid)
        largest = max((s.latency.max_us for s in streams if s.latency is not None),
                      default=None)
        registers = self.session.dataplane.read_stream_registers(sid)
        return reference_latency(sid, tx, rx, registers, largest), lost_reason(tx, rx)

    def _stream_stats(self, plan: StreamPlan, frame_size: int, before: CounterSnapshot,
                      after: CounterSnapshot) -> StreamStats:
        sid = plan.stream.id
        registers = self.session.dataplane.read_stream_registers(sid)
        rx = packets_between(before, after, names.RX_STREAM, sid)
        edges = self.session.profile.latency_bins_us
        cells = histogram_between(before, after, names.LATENCY_HIST, sid)
        histogram = Histogram(edges, tuple(cells[: len(edges) - 1]), cells[-1])
        qcells = histogram_between(before, after, names.QDEPTH_HIST, sid)
        queue = Histogram(QDEPTH_EDGES, tuple(qcells[: len(QDEPTH_EDGES) - 1]), qcells[-1])
        latency = None
        if registers.rx_samples:
            latency = latency_stats(registers.rx_samples, registers.latency_min,
                                    registers.latency_max, registers.latency_sum,
                                    registers.jitter_sum, histogram)
        return StreamStats(
            stream_id=sid,
            frame_size=frame_size,
            tx_frames=packets_between(before, after, names.TX_STREAM, sid),
            rx_frames=rx,
            # The switch counts frames without FCS; frame sizes include it.
            rx_bytes=bytes_between(before, after, names.RX_STREAM, sid) + FCS_BYTES * rx,
            gap_events=packets_between(before, after, names.RX_GAP_EVENTS, sid),
            lost_in_gaps=registers.rx_lost,
            reordered=packets_between(before, after, names.RX_REORDERED, sid),
            duplicates=packets_between(before, after, names.RX_DUPLICATE, sid),
            latency=latency,
            queue_depth=queue if queue.total else None,
        )


def _with_host_load(what: str, cpu_before: CpuTimes | None) -> str:
    """`what` the tester could not do, with the host's load and CPU steal since the trial
    began: what most often starves a BMv2 switch."""
    load = host_load(cpu_before, read_cpu_times())
    steal = "" if load.steal_fraction is None else f", CPU steal {load.steal_fraction:.0%}"
    return f"{what} (host load {load.load_1m:.2f} on {load.cpus} CPUs{steal})"


def _program_ports(snapshot: CounterSnapshot) -> ProgramPortCounts:
    return ProgramPortCounts(
        rx={port: cell.packets for port, cell in snapshot.cells[names.RX_PORT].items()},
        tx={port: cell.packets for port, cell in snapshot.cells[names.TX_PORT].items()},
    )


def _buffering(streams: tuple[StreamStats, ...],
               samples: Mapping[int, list[StreamSample]]) -> float | None:
    """The largest latency rise of a stream whose DUT buffer filled through the trial
    (tester.trial_course), None when no stream's did."""
    rises = []
    for stream in streams:
        if stream.latency is None:
            continue
        total = round(stream.latency.avg_us * stream.latency.samples)
        course = latency_course(samples.get(stream.stream_id, ()), stream.latency.samples,
                                total)
        if course is not None and course.buffering:
            rises.append(course.rise)
    return max(rises, default=None)


def _late(plans: tuple[StreamPlan, ...], streams: tuple[StreamStats, ...],
          samples: Mapping[int, list[StreamSample]]) -> int | None:
    """Frames all streams received after the trial's end (None: one stream's unknown)."""
    late = [late_frames(samples.get(plan.stream.id, ()), plan.budget,
                        stream.latency.samples if stream.latency else 0)
            for plan, stream in zip(plans, streams, strict=True)]
    known = [n for n in late if n is not None]
    return sum(known) if len(known) == len(late) else None


def _measured_pps(offered: list[OfferedLoad]) -> float | None:
    """All streams' measured rates together; None when one could not be measured."""
    known = [load.pps for load in offered if load.pps is not None]
    return sum(known) if len(known) == len(offered) else None


def frame_spec(stream: StreamConfig, frame_size: int, epoch: int, run: int = 0) -> FrameSpec:
    """The stream's template at this size, epoch and run value; a varying stream's template
    carries its first port pair (the data plane rewrites them frame by frame)."""
    addresses = stream.addresses
    encapsulation = stream.encapsulation
    cycle = stream.field_cycle
    if cycle:
        src, dst, vni = cycle[0]
        addresses = replace(addresses, udp_src_port=src, l4_dst_port=dst)
        if isinstance(encapsulation.tunnel, Vxlan):
            encapsulation = replace(encapsulation, tunnel=replace(encapsulation.tunnel, vni=vni))
    return FrameSpec(
        stream_id=stream.id, frame_size=frame_size, addresses=addresses, epoch=epoch, run=run,
        encapsulation=encapsulation, varies_ports=bool(cycle),
    )
