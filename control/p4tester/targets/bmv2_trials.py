"""Trials on a BMv2 tester switch: its reads and writes for the one trial loop
(tester.trial_loop), and the TrialRunner experiments use.

Arming writes what each stream's frames must be (run value, epoch, RX port, IP
version) before the opening edge, so a late frame of the previous trial or run counts
as rx_stale, never in this trial's RX. Starting wires each stream for its frames per
loop pass, clears its registers in-band, sets the loops' pacing and the TX ports'
queue rates, arms the budgets and seeds the loops. Each poll reads a stream's
registers in-band: frames made, the next sequence number (frames that left) and the
switch's clock, the proof of the load it offered. A latency trial runs the reference
stream beside the streams (tester.reference_stream).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace

from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import Topology
from p4tester.dataplane import names
from p4tester.dataplane.constants import EPOCHS, REFERENCE_LOOP_PORT
from p4tester.dataplane.headers import StreamRegisters
from p4tester.dataplane.program import seeds_for_rate
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.lab.dut_counters import dut_counters_for
from p4tester.lab.ifaces import tester_iface
from p4tester.results.model import StreamStats, TrialResult
from p4tester.streams.field_patterns import data_plane_entries
from p4tester.streams.template import build_template
from p4tester.targets.bmv2_session import TesterSession, frame_spec
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.group_clocks import NS_PER_US
from p4tester.tester.link_frames import check_frame_fits
from p4tester.tester.port_counters import (
    InterfaceCounters,
    KernelInterfaceCounters,
    PortCounterSource,
)
from p4tester.tester.rate_schedule import RateSchedule
from p4tester.tester.receive_slots import checker_cells
from p4tester.tester.reference_stream import (
    lost_reason,
    reference_latency,
    reference_stream,
    reference_stream_id,
)
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import (
    CounterSnapshot,
    packets_between,
)
from p4tester.tester.stream_figures import (
    LatencySums,
    StreamCounters,
    several_port_figures,
    stream_figures,
)
from p4tester.tester.stream_plan import (
    SHAPING_HEADROOM,
    StreamPlan,
    plan_streams,
    port_shaping,
    seed_queue_leads,
    shaped_plans,
)
from p4tester.tester.trial_course import StreamSample
from p4tester.tester.trial_loop import (
    QDEPTH_EDGES,
    ArmedTrial,
    Extras,
    RxKinds,
    TrialLoop,
)

POLL_S = 0.1
BMV2_STREAM_COUNTERS = StreamCounters(names.RX_STREAM, names.TX_STREAM, names.RX_GAP_EVENTS,
                                      names.RX_REORDERED, names.RX_DUPLICATE,
                                      names.LATENCY_HIST, names.QDEPTH_HIST)
# What the waits before a trial compare (TrialTarget.read_arrivals).
ARRIVAL_COUNTERS = (names.RX_KIND, names.RX_PORT, names.TX_PORT)
# An edge's reads, one counter after another while the switch goes on (a full read
# takes about 0.5 s: the histograms). The port counts the self-check compares must
# bound the stream figures read with them: RX_PORT first, so every frame it counted
# is in the stream figures read after; TX_PORT last, so every frame in a stream's
# TX figure is in it. Read the other way round, a starved switch still working
# through frames during the read counted 861 frames at its port that its stream
# figure, read 0.5 s before, did not hold, and the self-check passed a trial short
# by them (a CI run on a busy host).
EDGE_COUNTERS = (names.RX_PORT,
                 *(name for name in names.ALL_COUNTERS
                   if name not in (names.RX_PORT, names.TX_PORT)),
                 names.TX_PORT)


class Bmv2Trials:
    """A BMv2 tester switch's side of the trial loop. Mutable on purpose: it keeps what
    it wired and shaped, and the trial being run (one at a time)."""

    host_bound = True  # BMv2 runs on this host: its load explains the switch's limits
    queues_input = True  # BMv2's input queue can hold frames across a trial's edge
    poll_s = POLL_S

    def __init__(self, session: TesterSession, ports: PortCounterSource,
                 run_value: int, whole: Topology | None = None) -> None:
        self.session = session
        self.ports = ports
        self.port_numbers = tuple(p.number for p in session.topology.ports)
        self.run_value = run_value
        # One of several testers (config.testers): the whole topology gives the streams'
        # line rates; this switch sends the streams whose TX port is its own and checks
        # those whose RX ports are (tester.tester_group puts their figures together).
        self.whole = whole or session.topology
        self.grouped = whole is not None
        # Per stream another tester checks: the TX stamps' correction (us), and the
        # streams running now (a correction rewrites their generator entry).
        self._corrections: dict[int, int] = {}
        self._running: dict[int, tuple[int, int, int, int]] = {}
        self._received: tuple[StreamConfig, ...] = ()
        # Frames per pass each stream's multicast group is wired for (the session wired
        # the profile's for one), and each TX port's queue rate as this runner set it
        # (none yet: another runner on the session may have shaped a port).
        self._wired = {stream.id: 1 for stream in session.profile.streams}
        self._shaped: dict[int, int] = {}
        self._plans: tuple[StreamPlan, ...] = ()
        self._reference: tuple[StreamPlan, ...] = ()
        self._schedule: RateSchedule | None = None

    @property
    def drain_s(self) -> float:
        return self.session.profile.trial.drain_s

    @property
    def settle_s(self) -> float:
        return self.session.profile.trial.settle_s

    @property
    def settle_max_s(self) -> float:
        return self.session.profile.trial.settle_max_s

    @property
    def dut_between(self) -> bool:
        return self.session.topology.dut.kind != "loopback"

    # ---- edges -----------------------------------------------------------
    def port_names(self) -> Mapping[int, str]:
        return {n: self.ports.interface(n) for n in self.port_numbers}

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        return self.ports.read(self.port_numbers)

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        snapshot, program = self._read(EDGE_COUNTERS)
        # RX_PORT again: what the switch took in while the edge was read.
        rx_at_end = self.session.dataplane.read_counter(names.RX_PORT)
        return snapshot, replace(program, rx_at_end={port: cell.packets
                                                     for port, cell in rx_at_end.items()
                                                     if port in self.port_numbers})

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        # Three small counters instead of all thirteen: each P4Runtime read of BMv2
        # returns every cell, and the histograms' thousands made a full snapshot take
        # about 0.5 s, five of them a trial (3.1 s a trial of 0.1 s, measured on the
        # RFC 2889 address lab, where a probe must finish within the DUT's ageing).
        return self._read(ARRIVAL_COUNTERS)

    def _read(self, counters: tuple[str, ...]) -> tuple[CounterSnapshot, ProgramPortCounts]:
        snapshot = CounterSnapshot.take(self.session.dataplane, counters)
        # This switch's ports only: one of several testers has cells for the others too.
        return snapshot, ProgramPortCounts(
            rx={port: cell.packets for port, cell in snapshot.cells[names.RX_PORT].items()
                if port in self.port_numbers},
            tx={port: cell.packets for port, cell in snapshot.cells[names.TX_PORT].items()
                if port in self.port_numbers})

    # ---- sending ---------------------------------------------------------
    def arm(self, spec: TrialSpec) -> ArmedTrial:
        everywhere = plan_streams(self.session.profile, self.whole, spec)
        local = set(self.port_numbers)
        sent = tuple(p for p in everywhere if p.stream.tx_port in local)
        self._received = tuple(p.stream for p in everywhere if set(p.stream.rx_ports) <= local)
        # One of several testers shapes the streams it sends (the group merges them).
        own = {p.stream.id for p in sent}
        plans, schedule = shaped_plans(sent, self.whole, replace(
            spec, shapes=tuple((sid, shape) for sid, shape in spec.shapes
                               if sid in own or not self.grouped)))
        checked = {s.id for s in self._received}
        for stream in (*(p.stream for p in plans if p.stream.id not in checked), *self._received):
            for port in {stream.tx_port, *stream.rx_ports} & local:
                check_frame_fits(self.ports.interface(port), stream.size_in(spec.frame_size),
                                 f"stream {stream.id}, port {port}")
        self._plans, self._reference = plans, self._reference_plan(spec)
        self._corrections = {}
        if schedule is not None:
            schedule = replace(schedule, leads_s=seed_queue_leads(schedule, plans))
        self._schedule = schedule
        epoch = spec.trial_index % EPOCHS
        for stream in (*self._received, *(p.stream for p in self._reference)):
            self.session.dataplane.expect_stream(stream.id, stream.rx_port, ipv6=stream.ipv6,
                                                 epoch=epoch, run=self.run_value)
        # The reference stream is not waited for: it watches the trial's streams and
        # stops with them.
        # A shaped stream's rate is its mean (its budget over the trial).
        senders = (*(Sender(p.stream.id, p.budget, p.budget / spec.duration_s
                            if schedule and schedule.sender(p.stream.id) else p.rate_pps)
                     for p in plans),
                   *(Sender(p.stream.id, p.budget, p.rate_pps, waited=False)
                     for p in self._reference))
        return ArmedTrial(senders, float(sum(s.rate_pps for s in senders if s.waited)),
                          schedule=schedule)

    @property
    def _every(self) -> tuple[StreamPlan, ...]:
        return (*self._plans, *self._reference)

    def _reference_plan(self, spec: TrialSpec) -> tuple[StreamPlan, ...]:
        """The trial's reference stream (tester.reference_stream), wired on first use;
        () when the trial is no latency trial, the profile turned it off (reference_pps
        0) or uses every stream id."""
        profile = self.session.profile
        rate = profile.trial.reference_pps
        stream_id = reference_stream_id(profile)
        if not spec.reference_loop or not rate or stream_id is None or self.grouped:
            return ()  # a tester of several: its streams' delays are one-way
        if stream_id not in self._wired:  # its group comes with the trial's (start)
            self.session.target.prepare([stream_id], [REFERENCE_LOOP_PORT])
        budget = max(1, round(rate * spec.duration_s))
        return (StreamPlan(reference_stream(profile, stream_id), rate, budget),)

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        dataplane = self.session.dataplane
        epoch = spec.trial_index % EPOCHS
        every = self._every
        for plan in every:
            if self._wired.get(plan.stream.id) != plan.frames_per_pass:
                dataplane.configure_stream(plan.stream.id, plan.stream.tx_port,
                                           plan.frames_per_pass)
                self._wired[plan.stream.id] = plan.frames_per_pass
        for sid in {p.stream.id for p in every} | {s.id for s in self._received}:
            for cell in checker_cells(self.session.receive, sid):
                dataplane.clear_stream(cell)
        # BMv2 paces the loops (passes/s); the TX ports' queues space what they make.
        self.session.target.set_stream_rates({p.stream.id: p.loop_pps for p in every})
        self._shape(self._port_rates())
        self._running = {p.stream.id: (p.budget, epoch, p.frames_per_pass, p.passes_per_emit)
                         for p in every}
        for sid in self._running:
            self._start_entry(sid)
        lengths = dict(spec.variation_lengths)
        for plan in self._plans:
            cycle = plan.stream.field_cycle
            dataplane.set_variation(plan.stream.id,
                                    cycle[:lengths.get(plan.stream.id, len(cycle))])
            dataplane.set_field_patterns(plan.stream.id,
                                         data_plane_entries(plan.stream.field_patterns))
        for plan in every:
            template = build_template(
                frame_spec(plan.stream, plan.stream.size_in(spec.frame_size), epoch,
                           self.run_value))
            dataplane.seed_stream(plan.stream.id, template, seeds_for_rate(self._peak_loop(plan)))

    def _start_entry(self, sid: int) -> None:
        budget, epoch, per_pass, passes = self._running[sid]
        self.session.dataplane.start_stream(sid, budget, epoch, self.run_value, per_pass, passes,
                                            tx_clock_correction_us=self._corrections.get(sid, 0))

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        """After arm: the stream's stamps on its receiving tester's clock (whole us,
        the switch's unit); a running stream's generator entry is rewritten when the
        correction changes (its budget and loop are untouched)."""
        correction = round(correction_ns / NS_PER_US)
        if self._corrections.get(stream_id, 0) == correction:
            return
        self._corrections[stream_id] = correction
        if stream_id in self._running:
            self._start_entry(stream_id)

    def read_received(self, stream_ids: Sequence[int]) -> Mapping[int, tuple[int, int]]:
        """Streams this tester checks for another that sends them: what arrived so
        far, latencies in us (the sample's received half, tester.tester_group)."""
        read = {sid: self.session.dataplane.read_stream_registers(sid) for sid in stream_ids}
        return {sid: (r.rx_samples, r.latency_sum) for sid, r in read.items()}

    def _peak_loop(self, plan: StreamPlan) -> int:
        """The fastest its loop runs this trial: a shaped stream's seeds must keep its
        pacing queue busy at its highest step."""
        shaped = self._schedule.sender(plan.stream.id) if self._schedule else None
        return plan.loop_pps if shaped is None else replace(
            plan, rate_pps=int(shaped.peak_pps)).loop_pps

    def retune(self, trial: ArmedTrial, rates_pps: Mapping[int, float]) -> None:
        """A shaped trial's next step: the streams' loops and their TX ports' queues
        (whole frames/s: the schedule's send_rate made them so).
        Ports open up before the loops speed up, and close after they slow down, so a
        port never holds back frames its loop makes at the step's rate."""
        faster = any(pps > p.rate_pps for p in self._plans
                     if (pps := rates_pps.get(p.stream.id)) is not None)
        self._plans = tuple(replace(p, rate_pps=int(rates_pps[p.stream.id]))
                            if p.stream.id in rates_pps else p for p in self._plans)
        loops = {p.stream.id: p.loop_pps for p in self._plans if p.stream.id in rates_pps}
        if faster:
            self._shape(self._port_rates())
        self.session.target.set_stream_rates(loops)
        if not faster:
            self._shape(self._port_rates())

    def _port_rates(self) -> dict[int, int]:
        """The TX ports' queue rates for the streams' current rates (stream_plan)."""
        return port_shaping(self._every, headroom=0.0 if self._schedule else SHAPING_HEADROOM)

    def _shape(self, rates: Mapping[int, int]) -> None:
        """Set the TX ports' queue rates that differ from what this runner set (every
        port, the first time)."""
        changed = {port: pps for port, pps in rates.items() if self._shaped.get(port) != pps}
        self.session.target.shape_ports(changed)
        self._shaped.update(changed)

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        readings = {}
        for sender in senders:
            registers = self.session.dataplane.read_stream_registers(sender.key)
            # Trials clear the sequence to 0: the next number is the frames sent.
            readings[sender.key] = SentReading(
                registers.generated, registers.tx_next_seq,
                StreamSample(registers.switch_time, registers.tx_next_seq,
                             registers.rx_samples, registers.latency_sum))
        return readings

    def stop(self, trial: ArmedTrial) -> None:
        self._running = {}
        for sender in trial.senders:  # P4Runtime writes: served while the data plane floods
            self.session.dataplane.stop_stream(sender.key)

    # ---- figures ---------------------------------------------------------
    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds:
        return RxKinds.between(before, after, names.RX_KIND)

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        self.session.dataplane.set_latency_bins(edges_us)
        self.session.profile = replace(self.session.profile, latency_bins_us=edges_us)

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        return tuple(self._stream_stats(stream.id, stream.size_in(spec.frame_size), before, after)
                     for stream in self._received)

    def _stream_stats(self, sid: int, frame_size: int, before: CounterSnapshot,
                      after: CounterSnapshot) -> StreamStats:
        slots = self.session.receive.get(sid)
        if slots is not None:
            read = {cell: self.session.dataplane.read_stream_registers(cell)
                    for cell in checker_cells(self.session.receive, sid)}
            return several_port_figures(
                sid, frame_size, before, after, BMV2_STREAM_COUNTERS, slots,
                {cell: _latency_sums(r) for cell, r in read.items()},
                {cell: r.rx_lost for cell, r in read.items()},
                self.session.profile.latency_bins_us, QDEPTH_EDGES)
        registers = self.session.dataplane.read_stream_registers(sid)
        latency = _latency_sums(registers)
        return stream_figures(sid, frame_size, before, after, BMV2_STREAM_COUNTERS, latency,
                              registers.rx_lost, self.session.profile.latency_bins_us,
                              QDEPTH_EDGES)

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras:
        """The reference stream's figures, and why the trial is not vouched for when
        it did not come back whole."""
        if not self._reference:
            return Extras()
        sid = self._reference[0].stream.id
        tx = packets_between(before, after, names.TX_STREAM, sid)
        rx = packets_between(before, after, names.RX_STREAM, sid)
        largest = max((s.latency.max_us for s in streams if s.latency is not None),
                      default=None)
        registers = self.session.dataplane.read_stream_registers(sid)
        return Extras(reference_latency(sid, tx, rx, registers, largest), lost_reason(tx, rx))


def _latency_sums(registers: StreamRegisters) -> LatencySums:
    """A checker slot's latency registers (BMv2's clock counts microseconds)."""
    return LatencySums(registers.rx_samples, registers.latency_min, registers.latency_max,
                       registers.latency_sum, registers.jitter_sum)


class SwitchTrialRunner:
    """TrialRunner on a BMv2 tester switch: the trial loop over Bmv2Trials.

    `ports`: where the tester ports' own counters come from; by default a BMv2 lab's
    interfaces (tester port N is p4lt<N>). Ports without such counters give trials
    without a self-check. `dut`: a lab DUT on the same host to check after each trial
    (default: the topology's, see lab.dut_counters; None for loopback and external
    DUTs). A runner is one run: it draws the run value its frames carry
    (dataplane.run_identity), apart from the one the switch's previous run used.
    """

    def __init__(self, session: TesterSession, ports: PortCounterSource | None = None,
                 dut: DutCounterSource | None = None) -> None:
        self.session = session
        self.run_value = draw_run_value(session.dataplane.run_values_in_use())
        self.trials = Bmv2Trials(session, ports or KernelInterfaceCounters(tester_iface),
                                 self.run_value)
        self.loop = TrialLoop(self.trials,
                              dut if dut is not None else dut_counters_for(session.topology))

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        return self.loop.run_trial(spec)


@contextmanager
def open_bmv2_trials(topology: Topology, profile: Profile, *,
                     push_pipeline: bool) -> Iterator[TrialRunner]:
    """A BMv2 tester's trial runner: its session opened (the program pushed if asked
    or missing), closed after the block."""
    with TesterSession(topology, profile, push_pipeline=push_pipeline) as session:
        yield SwitchTrialRunner(session)
