"""Tofino target (Tofino 1 or 2: chip.Chip): the TargetDriver protocol plus what a
trial needs on Tofino.

A trial (runner.py does this):
    target.prepare(ids, tx_ports)      ports up, generators on, apps off, old groups gone
    target.set_latency_bins(edges_us)  and set_qdepth_bins(edges)
    target.set_templates({id: frame})  frames without FCS (stream id in them is ignored);
                                       the checker's expectation of each (rx_expected)
    target.set_stream_rates({id: pps}) applications, timers, buffer, multicast groups
                                       (a shaped trial: with each shaped stream's step
                                       timers, from target.pipe_timer; a Poisson
                                       stream's from target.poisson_timer, with the
                                       draws its application drops)
    before = target.snapshot()
    target.start_trial({id: budget})   registers zeroed, budgets armed, apps enabled
    ... target.generated() until each app made its budget (each count with the switch
        clock it held), target.received(ids) beside it; target.poll_lost() now and
        then; a shaped trial's target.retime_streams({id: timer}) at each step
    target.stop_trial(); drain; after = target.snapshot(); target.stream_stats(before, after)
Around the snapshots target.port_counts() (the program's rx_port / tx_port) and the
ports' MAC counters (port_stats.MacPortCounters) give the trial's self-check.
Ports in the protocol are topology port numbers; front_panel maps them to "1/0" names.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from p4tester.results.model import StreamStats
from p4tester.streams.field_patterns import FieldPattern
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.targets.base import TargetDriver
from p4tester.targets.tofino import bins, field_steps, multicast, names, pktgen, state
from p4tester.targets.tofino.apps import (
    AppPlan,
    app_budget,
    generator_pipes,
    pipe_budgets,
    pipe_timer,
    plan_apps,
    retimed_apps,
)
from p4tester.targets.tofino.bfrt import BfrtClient
from p4tester.targets.tofino.chip import TOFINO1, Chip
from p4tester.targets.tofino.expectation import template_expectation, write_expectations
from p4tester.targets.tofino.hardware import pipe_of
from p4tester.targets.tofino.poisson import ThinnedTimer, thinned_timer
from p4tester.targets.tofino.port_stats import program_port_counts
from p4tester.targets.tofino.ports import PortSettings, bring_up_ports, check_front_panel_name
from p4tester.targets.tofino.rates import DEFAULT_TOLERANCE, TimerSchedule, burst_schedule
from p4tester.targets.tofino.readout import several_port_stats, stream_stats, take_snapshot
from p4tester.targets.tofino.switch_clock import TickWidener, ticks_to_switch_time
from p4tester.tester.receive_slots import ReceiveSlots
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.snapshot import CounterSnapshot

NS_PER_US: Final = 1000
STAMP_WRAP: Final = 1 << 32  # TX stamps: the switch's clock in ns, modulo 2^32


@dataclass(frozen=True, slots=True)
class GeneratorCount:
    """An application's packets this trial, all its pipes, and the switch clock (the
    trial loop's: tester.trial_course) when the last of them was counted; None before
    the first."""

    made: int
    switch_time: int | None


@dataclass(frozen=True, slots=True)
class ReceivedSoFar:
    """A stream's frames received this trial (all its figure slots) and their
    latencies' sum in nanoseconds (the switch's clock), as read after its generator's
    count."""

    frames: int
    latency_sum_ns: int

    @property
    def latency_sum_us(self) -> int:
        """The sum in microseconds (truncated): what the trial loop's samples hold."""
        return self.latency_sum_ns // NS_PER_US


@dataclass(frozen=True, slots=True)
class StreamPorts:
    """A stream's TX and RX ports, as topology port numbers."""

    stream_id: int
    tx_port: int
    rx_port: int


class TofinoTarget:
    """The tester program on a Tofino switch (`chip`: Tofino 1 by default), over a BfRt
    client."""

    def __init__(self, client: BfrtClient, streams: Sequence[StreamPorts],
                 front_panel: Mapping[int, str], *,
                 port_settings: PortSettings | Mapping[int, PortSettings] | None = None,
                 tolerance: float = DEFAULT_TOLERANCE, clock_hz: int | None = None,
                 receive: Mapping[int, ReceiveSlots] | None = None,
                 chip: Chip = TOFINO1, elsewhere: Collection[int] = ()) -> None:
        """`receive`: the checker slots of the streams received on several ports
        (tester.receive_slots), by stream id; a stream without is received on rx_port.
        `port_settings`: one for every port, or each's by topology port number.
        `clock_hz`: the core clock if the part is fused below the chip's.
        `elsewhere`: the ports of the other testers of a group (tester.tester_group): a
        stream whose TX port is one of them is only checked here, one whose RX port
        is, only sent from here."""
        self._streams = {s.stream_id: s for s in streams}
        self._receive = dict(receive or {})
        stray = sorted(set(self._receive) - set(self._streams))
        if stray:
            raise ValueError(f"receive slots for streams {stray} that this target does not have")
        if len(self._streams) != len(streams):
            raise ValueError("stream ids must be unique")
        for s in streams:
            if not 0 <= s.stream_id < names.MAX_STREAMS:
                raise ValueError(f"stream id {s.stream_id} is outside 0..{names.MAX_STREAMS - 1}"
                                 " (MAX_STREAMS of the Tofino program)")
            for port in (s.tx_port, *self._rx_ports(s.stream_id)):
                if port not in front_panel and port not in elsewhere:
                    raise ValueError(f"stream {s.stream_id}: port {port} has no front-panel "
                                     "name; give it one (topology port front_panel: '1/0')")
        # A stream's generator side runs where its TX port is, its checker side where
        # its RX ports are: both here, or one here and the other on another tester.
        self._sent = frozenset(s.stream_id for s in streams if s.tx_port in front_panel)
        self._checked = frozenset(
            s.stream_id for s in streams
            if all(port in front_panel for port in self._rx_ports(s.stream_id)))
        for s in streams:
            rx_here = {p in front_panel for p in self._rx_ports(s.stream_id)}
            if len(rx_here) > 1:
                raise ValueError(f"stream {s.stream_id} is received on ports of this tester "
                                 "and of another: one tester checks a stream; give its RX "
                                 "ports to one")
            if s.stream_id not in self._sent | self._checked:
                raise ValueError(f"stream {s.stream_id} neither leaves from nor arrives at "
                                 f"this tester (ports {s.tx_port} -> "
                                 f"{', '.join(str(p) for p in self._rx_ports(s.stream_id))}): "
                                 "give the target only the streams of its ports")
        unchecked = sorted(set(self._receive) - self._checked)
        if unchecked:
            raise ValueError(f"receive slots for streams {unchecked} that another tester "
                             "checks")
        # One of several testers keeps its chip's last generator application for the
        # clock probes (targets.tofino.probes), which run while a trial's are set up.
        self._grouped = bool(elsewhere)
        for name in front_panel.values():
            check_front_panel_name(name)
        self.client = client
        self._front_panel = dict(front_panel)
        self._port_settings = port_settings
        self._tolerance = tolerance
        self.chip = chip
        self._clock_hz = chip.clock_hz if clock_hz is None else clock_hz
        self._dev_ports: dict[int, int] = {}
        self._templates: dict[int, bytes] = {}
        self._apps: tuple[AppPlan, ...] = ()
        self._gen_entries: set[tuple[int, int]] = set()  # (pipe, app) in gen_apps
        self._expected: set[int] = set()  # streams with an rx_expected entry
        # The trial's streams this tester checks (their expectations, last written).
        self._checking: tuple[int, ...] = ()
        self._stepped: dict[int, tuple[str, ...]] = {}  # stream -> its varied fields
        self._corrected: set[int] = set()  # streams with a tx_clock_correction entry
        self._latency_edges_us: tuple[int, ...] | None = None
        self._qdepth_edges: tuple[int, ...] | None = None
        self._lost = state.LostTotals()
        self._ticks = TickWidener()
        self._rx_at_start: dict[int, int] = {}  # figure slot -> rx_stream at the start

    @property
    def name(self) -> str:
        return "tofino"

    @property
    def front_panel(self) -> Mapping[int, str]:
        """Topology port -> front-panel name ("1/0")."""
        return dict(self._front_panel)

    @property
    def dev_ports(self) -> Mapping[int, int]:
        """Topology port -> dev port of every port the streams use (empty until prepare)."""
        return dict(self._dev_ports)

    @property
    def apps(self) -> tuple[AppPlan, ...]:
        """The generator applications of the current rates (achieved rate, error)."""
        return self._apps

    @property
    def probe_app_id(self) -> int | None:
        """The generator application kept for clock probes (one of several testers),
        else None: the trials' applications are the others."""
        return self.chip.pktgen_apps - 1 if self._grouped else None

    @property
    def sent(self) -> frozenset[int]:
        """The streams that leave from this tester's ports (its generator's)."""
        return self._sent

    @property
    def checked(self) -> frozenset[int]:
        """The streams that arrive at this tester's ports (its checker's)."""
        return self._checked

    # ---- TargetDriver ------------------------------------------------------------------
    def prepare(self, stream_ids: Iterable[int], tx_ports: Iterable[int]) -> None:
        unknown = sorted(set(stream_ids) - set(self._streams))
        if unknown:
            raise ValueError(f"streams {unknown} are not among this target's streams")
        stray = sorted(set(tx_ports) - {self._streams[s].tx_port for s in self._sent})
        if stray:
            raise ValueError(f"TX ports {stray} carry none of the streams this target sends")
        used = sorted({*(self._streams[s].tx_port for s in self._sent),
                       *(p for s in self._checked for p in self._rx_ports(s))})
        settings = self._port_settings
        by_name = ({self._front_panel[p]: settings[p] for p in used if p in settings}
                   if isinstance(settings, Mapping) else settings)
        dev = bring_up_ports(self.client, [self._front_panel[p] for p in used], by_name)
        self._dev_ports = {p: dev[self._front_panel[p]] for p in used}
        self._write_receive_slots()
        pktgen.disable_all_apps(self.client, self.chip)
        pktgen.enable_generator_ports(self.client, self._pipes("tx").values(), self.chip)
        self.client.clear_table(names.GEN_APPS)
        self._gen_entries.clear()
        self.client.clear_table(names.RX_EXPECTED)
        self._expected.clear()
        self._checking = ()
        self.client.clear_table(names.TX_CLOCK_CORRECTION)
        self._corrected.clear()
        if self.chip.varies_fields:
            field_steps.clear_field_steps(self.client)
        self._stepped.clear()
        multicast.remove_groups(self.client, self._groups)
        self._apps = ()

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        """Add `correction_ns` (modulo 2^32) to the stream's TX stamps: the offset of
        the clock of the tester that checks it (several testers in one test); 0 stamps
        the switch's clock as it is (the table's default: the entry goes)."""
        if stream_id not in self._sent:
            raise ValueError(f"stream {stream_id} is not among the streams this target sends")
        key = {names.TX_CLOCK_CORRECTION_KEY: stream_id}
        correction = correction_ns % STAMP_WRAP
        if correction == 0:
            if stream_id in self._corrected:
                self.client.delete_entry(names.TX_CLOCK_CORRECTION, key)
                self._corrected.discard(stream_id)
            return
        data = {names.STAMP_WITH_CORRECTION: correction}
        if stream_id in self._corrected:
            self.client.modify_entry(names.TX_CLOCK_CORRECTION, key, data,
                                     action=names.STAMP_WITH)
        else:
            self.client.add_entry(names.TX_CLOCK_CORRECTION, key, data, action=names.STAMP_WITH)
            self._corrected.add(stream_id)

    def set_stream_rates(self, rates_pps: Mapping[int, float],
                         steps: Mapping[int, Sequence[TimerSchedule]] | None = None,
                         bursts: Mapping[int, int] | None = None,
                         thinning: Mapping[int, int] | None = None) -> None:
        """The trial's streams at these rates. `steps`: a shaped trial's timers (each
        pipe's, from pipe_timer) of each shaped stream in every step: it starts at the
        first, retime_streams moves it on (apps.plan_apps). `bursts`: the frames per
        burst of its bursts streams, whose timers are burst_timer's. `thinning`: the
        drop_below of its Poisson streams, whose timers are poisson_timer's grids."""
        if not self._dev_ports:
            raise RuntimeError("prepare() the target before setting rates: ports come first")
        elsewhere = sorted(set(rates_pps) - self._sent)
        if elsewhere:
            raise ValueError(f"streams {elsewhere} leave from another tester's ports: their "
                             "rates are set there")
        apps = plan_apps(rates_pps, self._templates, self._pipes("tx"),
                         tolerance=self._tolerance, clock_hz=self._clock_hz, steps=steps,
                         bursts=bursts, thinning=thinning, apps_per_pipe=self._trial_apps,
                         pktgen_bps=self.chip.pktgen_bps,
                         chip_label=self.chip.label if not self._grouped else
                         f"{self.chip.label}, less the one kept for clock probes,")
        self.stop_trial()
        pktgen.program_apps(self.client, apps, self.chip)
        tx_dev = {s: self._dev_ports[self._streams[s].tx_port] for s in rates_pps}
        multicast.write_groups(self.client, apps, tx_dev, self._groups)
        self._apps = apps

    def generator_pipes(self, stream_ids: Iterable[int]) -> tuple[int, ...]:
        """The pipes whose generators make these streams together (their TX pipes)."""
        return generator_pipes(self._pipes("tx"), stream_ids)

    def pipe_timer(self, rate_pps: float, frame_size: int, pipes: int) -> TimerSchedule:
        """Each pipe's timer for a stream at rate_pps made by `pipes` generators, with
        this target's clock and tolerance: the stream gets achieved_pps x pipes."""
        return pipe_timer(rate_pps, frame_size, pipes, tolerance=self._tolerance,
                          clock_hz=self._clock_hz, pktgen_bps=self.chip.pktgen_bps)

    def burst_timer(self, rate_pps: float, frame_size: int, frames: int,
                    ceiling_pps: float) -> TimerSchedule:
        """One generator's timer for bursts of `frames` at rate_pps (rates.burst_schedule),
        with this target's clock, at most ceiling_pps."""
        return burst_schedule(rate_pps, frame_size, frames, ceiling_pps=ceiling_pps,
                              clock_hz=self._clock_hz, pktgen_bps=self.chip.pktgen_bps)

    def poisson_timer(self, rate_pps: float, frame_size: int, grid: int,
                      pipes: int) -> ThinnedTimer:
        """Each of `pipes` generators' grid and threshold for Poisson arrivals at
        rate_pps with `grid` packets per frame (poisson.thinned_timer), with this
        target's clock."""
        return thinned_timer(rate_pps, frame_size, grid, pipes, clock_hz=self._clock_hz)

    def retime_streams(self, timers: Mapping[int, TimerSchedule]) -> None:
        """A shaped trial's next step while its applications run: each shaped stream's
        new timer (one of its steps'), written to its application in every pipe it
        runs in (pktgen.retime_app says what the hardware does meanwhile). An
        application whose timer stays is not written. The streams of one application
        move together: all of them, to one timer."""
        moved = {app.app_id: app for app in retimed_apps(self._apps, timers)}
        slots = pktgen.buffer_slots(self._apps)
        for app in moved.values():
            for pipe in app.pipes:
                pktgen.retime_app(self.client, app, slots[pipe][app.app_id], pipe, self.chip)
        self._apps = tuple(moved.get(a.app_id, a) for a in self._apps)

    def shape_ports(self, rates_pps: Mapping[int, int]) -> None:
        """Nothing to do: the packet generator's timers space every frame."""

    def clear_stream_rates(self, stream_ids: Iterable[int]) -> None:
        """Stop the applications serving these streams (with all their streams)."""
        ids = set(stream_ids)
        affected = [a for a in self._apps if ids & set(a.stream_ids)]
        self._stop(affected)
        multicast.remove_app_groups(self.client, affected)
        self._apps = tuple(a for a in self._apps if a not in affected)

    # ---- Tofino trial ------------------------------------------------------------------
    def set_templates(self, templates: Mapping[int, bytes]) -> None:
        unknown = sorted(set(templates) - set(self._streams))
        if unknown:
            raise ValueError(f"templates for streams {unknown} that this target does not have")
        if not self._dev_ports:
            raise RuntimeError("prepare() the target before setting templates: the "
                               "checker's expectations need the RX ports")
        self._templates.update(templates)
        # The checker takes a frame as stream s's only with the epoch and IP version of
        # s's template, on s's RX port: written before the trial's opening snapshot, so
        # a late frame of the previous trial counts as stale, never in this trial's RX.
        # A stream another tester checks has its expectation there.
        self._checking = tuple(sorted(set(templates) & self._checked))
        write_expectations(self.client, {
            s: template_expectation(templates[s], self._dev_ports[self._streams[s].rx_port])
            for s in self._checking}, self._expected)

    def set_field_steps(self, patterns: Mapping[int, Sequence[FieldPattern]]) -> None:
        """The varied fields of these streams (targets.tofino.field_steps: what the
        program varies; a stream without patterns varies nothing). After
        set_templates: the checksum word comes from each stream's template."""
        wanted = {s: field_steps.step_entries(p) for s, p in patterns.items() if p}
        if wanted and not self.chip.varies_fields:
            raise ValueError(f"streams {sorted(wanted)} vary fields; {self.chip.label}'s "
                             "program varies none (Tofino 2's does)")
        missing = sorted(set(wanted) - set(self._templates))
        if missing:
            raise RuntimeError(f"set_templates() before set_field_steps(): streams {missing} "
                               "have no template")
        for stream_id in sorted(set(patterns) & set(self._stepped)):
            field_steps.remove_field_steps(self.client, stream_id, self._stepped.pop(stream_id))
        for stream_id, entries in sorted(wanted.items()):
            field_steps.write_field_steps(self.client, stream_id, entries,
                                          self._templates[stream_id])
            self._stepped[stream_id] = tuple(e.field for e in entries)

    def set_latency_bins(self, edges_us: Sequence[int]) -> int:
        """Bins for all streams, edges in us; returns the ternary entries written."""
        written = bins.set_bins(self.client, bins.LATENCY, bins.latency_edges_ns(edges_us))
        self._latency_edges_us = tuple(edges_us)
        return written

    def set_qdepth_bins(self, edges: Sequence[int]) -> int:
        written = bins.set_bins(self.client, bins.QDEPTH, edges)
        self._qdepth_edges = tuple(edges)
        return written

    def start_trial(self, budgets: Mapping[int, int], initial_seq: int = 0) -> None:
        """Zero the trial's registers, arm each application's budget and start it."""
        if not self._apps and not self._checking:
            raise RuntimeError("set_stream_rates() or set_templates() before start_trial(): "
                               "no application runs and no stream is checked here")
        app_budgets = {a.app_id: app_budget(a, budgets) for a in self._apps}
        streams = [s for a in self._apps for s in a.stream_ids]
        cells = sorted(self._rx_cells(self._checking))
        state.zero_streams(self.client, sorted({*streams, *cells}), initial_seq)
        state.zero_generated(self.client, app_budgets)
        field_steps.zero_offsets(self.client, {s: f for s, f in self._stepped.items()
                                               if s in streams})
        self._lost.reset(cells)
        self._ticks.reset()
        # rx_stream is a counter, never cleared: received() counts from here (no frame
        # of this trial exists yet; an earlier trial's count as stale, not here).
        self._rx_at_start = {slot: frames for slot, (frames, _) in state.read_received(
            self.client, self._figure_pipes(self._checking)).items()}
        for app in self._apps:
            for pipe, share in pipe_budgets(app, app_budgets[app.app_id]).items():
                # Every field, drop_below too: an entry's field left out is 0 (the
                # SDE's default), which keeps every packet only by that accident.
                data = {names.GEN_RUN_GROUP: app.mcast_group, names.GEN_RUN_BUDGET: share,
                        names.GEN_RUN_DROP_BELOW: app.drop_below}
                self._write_gen_app(pipe, app.app_id, data, names.GEN_RUN)
        for app in self._apps:
            for pipe in app.pipes:
                pktgen.set_app_enabled(self.client, app.app_id, True, pipe, self.chip)

    def generated(self) -> dict[int, GeneratorCount]:
        """Packets each application made this trial, all its pipes, and when (app id ->
        count). Each pipe's cell holds its count and the tick of its last packet: after
        that tick, up to the read, the pipe counted nothing, so the sum of the pipes'
        counts is what they held at the latest of their ticks (exactly, if the switch
        reads the pipes at one moment; a pipe read earlier may have counted a few more
        packets by then)."""
        counts = {}
        for app, cells in state.read_generated(self.client,
                                               [a.app_id for a in self._apps]).items():
            ticks = [self._ticks.widen((app, pipe), cell.last_tick)
                     for pipe, cell in enumerate(cells) if cell.made]
            counts[app] = GeneratorCount(sum(cell.made for cell in cells),
                                         ticks_to_switch_time(max(ticks)) if ticks else None)
        return counts

    def received(self, stream_ids: Iterable[int]) -> dict[int, ReceivedSoFar]:
        """Frames of each stream received this trial, over its figure slots (a
        several-port stream's ports together, as its latency samples are counted),
        and their latency sum. Read after generated(): a frame counted here may have
        been sent after that count's time, never the other way round."""
        streams = sorted(set(stream_ids))
        elsewhere = sorted(set(streams) - self._checked)
        if elsewhere:
            raise ValueError(f"streams {elsewhere} arrive at another tester's ports: what "
                             "they received is read there")
        slots = {s: self._figure_pipes([s]) for s in streams}
        read = state.read_received(self.client, {c: p for cells in slots.values()
                                                 for c, p in cells.items()})
        return {s: ReceivedSoFar(
            sum(read[c][0] - self._rx_at_start.get(c, 0) for c in slots[s]),
            sum(read[c][1] for c in slots[s])) for s in streams}

    def stop_trial(self) -> None:
        self._stop(self._apps)

    def poll_lost(self) -> None:
        """Widen rx_lost: call at least every ~20 s during a trial."""
        self._lost.update(state.read_lost(self.client, self._rx_cells(self._checking)))

    def snapshot(self) -> CounterSnapshot:
        """The counters of the streams sent from here and of the checker cells of those
        checked here."""
        return take_snapshot(self.client, {*self._app_streams(),
                                           *self._rx_cells(self._checking)})

    def port_counts(self) -> ProgramPortCounts:
        """Frames the program counted from (rx_port) and out of (tx_port) each port the
        streams use, all pipes, keyed by topology port."""
        if not self._dev_ports:
            raise RuntimeError("prepare() the target first: dev ports are not known yet")
        return program_port_counts(self.client, self._dev_ports)

    def stream_stats(self, before: CounterSnapshot, after: CounterSnapshot,
                     ) -> tuple[StreamStats, ...]:
        if self._latency_edges_us is None or self._qdepth_edges is None:
            raise RuntimeError("set_latency_bins() and set_qdepth_bins() before reading "
                               "statistics: histograms need their edges")
        cells = self._rx_cells(self._checking)
        states = state.read_streams(self.client, cells)
        self._lost.update({cell: st.rx_lost for cell, st in states.items()})
        lost = {cell: self._lost.total(cell) for cell in cells}
        edges = (self._latency_edges_us, self._qdepth_edges)
        # The frame size is the template's (the checker's side has no application when
        # another tester sends the stream).
        sizes = {s: len(self._templates[s]) + FCS_BYTES for s in self._checking}
        return tuple(
            several_port_stats(self._receive[s], states, sizes[s], lost, before, after,
                               *edges) if s in self._receive
            else stream_stats(states[s], sizes[s], lost[s], before, after, *edges)
            for s in self._checking)

    # ---- helpers -----------------------------------------------------------------------
    @property
    def _trial_apps(self) -> int:
        """Generator applications per pipe the trials' streams may use."""
        return self.chip.pktgen_apps - (1 if self._grouped else 0)

    @property
    def _groups(self) -> range:
        """The multicast groups the tester owns on this chip (one per application)."""
        return multicast.tester_groups(self.chip.pktgen_apps)

    def _stop(self, apps: Iterable[AppPlan]) -> None:
        for app in apps:
            for pipe in app.pipes:
                pktgen.set_app_enabled(self.client, app.app_id, False, pipe, self.chip)
                if (pipe, app.app_id) in self._gen_entries:
                    self._write_gen_app(pipe, app.app_id, {}, names.GEN_STOPPED)

    def _write_gen_app(self, pipe: int, app_id: int, data: Mapping[str, int],
                       action: str) -> None:
        key = {names.GEN_APPS_PIPE_KEY: pipe, names.GEN_APPS_KEY: app_id}
        if (pipe, app_id) in self._gen_entries:
            self.client.modify_entry(names.GEN_APPS, key, data, action=action)
        else:
            self.client.add_entry(names.GEN_APPS, key, data, action=action)
            self._gen_entries.add((pipe, app_id))

    def _app_streams(self) -> list[int]:
        return [s for a in self._apps for s in a.stream_ids]

    def _rx_ports(self, stream_id: int) -> tuple[int, ...]:
        slots = self._receive.get(stream_id)
        if slots is None:
            return (self._streams[stream_id].rx_port,)
        return tuple(port.port for port in slots.ports)

    def _figure_pipes(self, stream_ids: Iterable[int]) -> dict[int, int]:
        """Figure slot -> the pipe that keeps it, for these streams (_rx_cells without
        a several-port stream's sequence slots)."""
        return self._rx_cells(stream_ids, sequences=False)

    def _rx_cells(self, stream_ids: Iterable[int], *, sequences: bool = True,
                  ) -> dict[int, int]:
        """Checker cell -> the pipe that keeps it, for these streams: a stream's own id
        in its RX port's pipe, a several-port stream's slots (its sequence slots too,
        unless `sequences` is False) in their ports' pipes."""
        cells = {}
        for s in stream_ids:
            slots = self._receive.get(s)
            if slots is None:
                cells[s] = pipe_of(self._dev_ports[self._streams[s].rx_port])
                continue
            for port in slots.ports:
                pipe = pipe_of(self._dev_ports[port.port])
                if sequences:
                    cells[port.seq_slot] = pipe
                cells[port.figure_slot] = pipe
        return cells

    def _write_receive_slots(self) -> None:
        """The rx_port_slots entries of the several-port streams (after the ports are up:
        the keys are dev ports), every other entry gone. A spread stream's sequence is
        one register cell, and registers are per pipe: its RX ports must share a pipe."""
        self.client.clear_table(names.RX_PORT_SLOTS)
        for s, slots in sorted(self._receive.items()):
            pipes = {port.port: pipe_of(self._dev_ports[port.port]) for port in slots.ports}
            if not slots.replicated and len(set(pipes.values())) > 1:
                shown = ", ".join(f"{port} (pipe {pipe})" for port, pipe in pipes.items())
                raise ValueError(
                    f"stream {s} spreads over ports {shown}: Tofino keeps a register cell "
                    "per pipe, so one sequence over several pipes cannot be checked; give a "
                    "spread stream RX ports of one pipe (or replicate: a sequence per port)")
            for port in slots.ports:
                self.client.add_entry(
                    names.RX_PORT_SLOTS,
                    {names.RX_PORT_SLOTS_STREAM: s,
                     names.RX_PORT_SLOTS_PORT: self._dev_ports[port.port]},
                    {names.RECEIVE_AS_SEQ: port.seq_slot,
                     names.RECEIVE_AS_FIGURES: port.figure_slot},
                    action=names.RECEIVE_AS)

    def _pipes(self, side: Literal["tx", "rx"],
               stream_ids: Iterable[int] | None = None) -> dict[int, int]:
        """stream -> pipe of its TX or RX port (by default, of every stream sent or
        checked here)."""
        if not self._dev_ports:
            raise RuntimeError("prepare() the target first: dev ports are not known yet")
        here = self._sent if side == "tx" else self._checked
        pipes = {}
        for s in sorted(here) if stream_ids is None else stream_ids:
            ports = self._streams[s]
            pipes[s] = pipe_of(self._dev_ports[ports.tx_port if side == "tx" else ports.rx_port])
        return pipes



if TYPE_CHECKING:  # mypy (make lint) checks that TofinoTarget is a TargetDriver

    def _is_target_driver(target: TofinoTarget) -> TargetDriver:
        return target
