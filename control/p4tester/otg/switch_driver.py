"""OTG flows on the tester (BMv2 or eBPF, through the target's flow engine:
tester.flow_engine, runs.flow_engines): each flow one stream per frame size
(otg.mapping), each with its own rate and exact packet budget, run in a background
thread; a flow's figures are its streams' together.

Start: the engine writes what each stream's frames must be (epoch, RX port, IP
version), the opening edge snapshots the counters, and the engine starts every flow
with its budget (as a trial does, but every flow with its own budget, and stoppable).
The thread then waits (bounded) until each flow's budgets are sent or a
stop is asked, stops it, lets its frames drain (DRAIN_S, then until its RX count
stops moving, at most MAX_DRAIN_S) and reads its final figures: only then does
the flow read as stopped, so a client polling for `stopped and frames_rx ==
count` sees final counts. One lock serialises every use of the engine.

Each start checks itself as a trial does (tester.trial_loop, over the target's
trial reads): the tester ports' own counters and a lab DUT's are read around the
program's when the flows start and once they have all stopped; frames the tester
lost itself (or a lab DUT lost to the host) make the start unvouched, and the stop
request says why (an OTG warning), so its loss is never taken for the DUT's.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, TrialConfig
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import EPOCHS
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.lab.dut_counters import dut_counters_for
from p4tester.lab.ifaces import port_iface
from p4tester.results.checks import TESTER_LIMITED
from p4tester.results.settle import SettleRecord
from p4tester.runs.flow_engines import EngineFactory, flow_engine
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.streams.template import build_template
from p4tester.targets.bmv2_session import frame_spec
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.flow_engine import FlowEngine, FlowPlan
from p4tester.tester.send_watch import Sender, SendWatch, SentReading
from p4tester.tester.snapshot import CounterSnapshot, bytes_between, packets_between
from p4tester.tester.trial_loop import Edge, TrialLoop, not_drained, verdict

from .capture import PortCaptures
from .errors import OtgError, internal, validation
from .frames import ixia_layout
from .mapping import MAX_BUDGET, MappedConfig, MappedFlow, MappedPort
from .readings import FlowCounters, Latency, PortCounters, Reading, combined_latency

POLL_S: Final = 0.1
DRAIN_S: Final = 0.3
MAX_DRAIN_S: Final = 5.0
JOIN_S: Final = 30.0


@dataclass(frozen=True, slots=True)
class _Final:
    """A stopped flow's closing snapshot and latency."""

    after: CounterSnapshot
    latency: Latency | None
    ended: float


@dataclass(slots=True)
class _Run:
    flows: tuple[MappedFlow, ...]
    started: float
    # The self-check: its loop and the opening edge, whose snapshot every flow's
    # figures count from.
    checks: TrialLoop
    edge: Edge
    # The budgeted flows not yet sent, their deadline, and whether the run is paused
    # (paused time not counted).
    watch: SendWatch
    epoch: int
    run_value: int  # the header's run byte of this start's frames
    stop: threading.Event = field(default_factory=threading.Event)
    sent_at: dict[str, float] = field(default_factory=dict)  # budgets sent or stopped
    stopped: set[int] = field(default_factory=set)  # streams stopped (their budget sent)
    final: dict[str, _Final] = field(default_factory=dict)
    error: str | None = None
    plans: tuple[FlowPlan, ...] = ()  # what the engine started, to resume
    last_rx: dict[str, int] = field(default_factory=dict)  # RX count at the last poll
    unvouched: str | None = None  # the self-check's verdict once all flows stopped
    settle: SettleRecord | None = None  # the wait for earlier starts' frames
    ended: bool = False  # flows stopped and the start checked: the next may begin

    @property
    def before(self) -> CounterSnapshot:
        return self.edge.snapshot

    @property
    def done(self) -> bool:
        return len(self.final) == len(self.flows)


def _otg_error(exc: Exception, doing: str) -> OtgError:
    """What the client is told: a config the target refuses is the client's to change
    (validation, the message naming the fix); anything else is the server's."""
    if isinstance(exc, ConfigError):
        return validation(str(exc))
    return internal(f"{doing}: {exc}")


def flows_profile(config: MappedConfig, drain_s: float) -> Profile:
    """The streams of a config's flows as the profile its engine loads (an agent makes
    the same from the same config: otg.agent)."""
    # Between starts the DUT drains for as long as a start's flows may (no OTG setting
    # says more): the wait before the next start asks that much quiet.
    return Profile(name="otg", streams=tuple(m.stream for f in config.flows
                                             for m in f.members),
                   trial=TrialConfig(drain_s=drain_s, settle_s=drain_s,
                                     settle_max_s=MAX_DRAIN_S * 2),
                   source="OTG config")


class SwitchDriver:
    def __init__(self, topology: Topology, *, drain_s: float = DRAIN_S,
                 push_pipeline: bool = False, engine_factory: EngineFactory = flow_engine,
                 dut: DutCounterSource | None = None) -> None:
        self._topology = topology
        self._drain_s = drain_s
        self._lock = threading.RLock()
        self._engine: FlowEngine | None = None
        self._engine_factory = engine_factory
        self._config: MappedConfig | None = None
        self._port_base: CounterSnapshot | None = None
        self._run: _Run | None = None
        self._thread: threading.Thread | None = None
        self._trials = 0
        self._captures = PortCaptures(lambda port: port_iface(topology, port))
        # The self-check's DUT counters: the topology's lab DUT, as a trial's.
        self._dut = dut if dut is not None else dut_counters_for(topology)
        # --push-pipeline loads the tester program with the first config only: a push
        # resets the switch's state, the later configs reuse the program.
        self._push = push_pipeline

    # ---- configuration ---------------------------------------------------
    def apply(self, config: MappedConfig) -> None:
        """Stop what runs, then (re)open the engine with the config's streams."""
        self.stop()
        self._captures.clear()
        with self._lock:
            if self._engine is not None:
                self._engine.close()
                self._engine = None
            profile = flows_profile(config, self._drain_s)
            engine: FlowEngine | None = None
            try:
                engine = self._engine_factory(self._topology, profile,
                                              push_pipeline=self._push,
                                              otg_config=config.document)
                engine.open()
                self._port_base = engine.snapshot()
            except Exception as exc:
                if engine is not None:
                    engine.close()
                raise _otg_error(exc, f"switch ({self._topology.switch.target})") from exc
            self._engine = engine
            self._config = config
            self._run = None
            self._push = False

    # ---- traffic ---------------------------------------------------------
    def start(self, flows: tuple[MappedFlow, ...]) -> list[str]:
        """Started; what the client is told beside (the testers' clocks)."""
        with self._lock:
            engine = self._engine
            if engine is None:
                raise validation("no config: POST /config first")
            if self.running():
                raise validation("flows are transmitting: stop them before starting again")
            epoch = self._trials % EPOCHS
            self._trials += 1
            members = [m for flow in flows for m in flow.members]
            try:
                # Each start is a run of its own: frames of the start before, still
                # in a DUT, are stale (dataplane.run_identity).
                run_value = draw_run_value(engine.run_values_in_use())
                plans = tuple(FlowPlan(
                    m.stream, m.rate_pps, m.budget or MAX_BUDGET,
                    ixia_layout(build_template(frame_spec(
                        m.stream, m.frame_size, epoch, run_value,
                        stamp_counts_ports=engine.stamp_counts_ports)),
                                m.stream.encapsulation), m.burst_frames, m.burst_gap_bytes)
                    for m in members)
                engine.expect(plans, epoch, run_value)
                checks = engine.self_check(run_value, self._dut)
                # As a trial's (tester.settle): the frames of starts before have stopped
                # arriving; a DUT still delivering them leaves this start unvouched.
                settle = checks.wait_for_drain()
                edge = checks.opening_edge()
                engine.start(plans, epoch, run_value)
            except Exception as exc:
                for member in members:  # nothing of a start that failed goes on sending
                    with contextlib.suppress(Exception):
                        engine.stop_flow(member.stream_id)
                raise _otg_error(exc, "starting flows on the switch") from exc
            watch = SendWatch([Sender(m.stream_id, m.budget, m.rate_pps)
                               for m in members if m.budget is not None], time.monotonic())
            run = _Run(flows, time.time(), checks, edge, watch, epoch, run_value, plans=plans,
                       settle=settle)
            self._run = run
            self._thread = threading.Thread(target=self._follow, args=(engine, run),
                                            name="otg-flows", daemon=True)
            self._thread.start()
            return list(engine.start_notes())

    def _follow(self, engine: FlowEngine, run: _Run) -> None:
        """Each flow: wait (bounded) until its budget is sent or a stop is asked,
        stop it, let its frames drain, read its final figures. A continuous flow
        runs until the stop."""
        try:
            self._follow_flows(engine, run)
            self._check(engine, run)
        except Exception as exc:  # answered to the next metrics request, never lost
            run.error = f"flows stopped on an error: {exc}"
            try:
                with self._lock:
                    for flow in run.flows:
                        for stream_id in flow.stream_ids:
                            engine.stop_flow(stream_id)
                    after = engine.snapshot()
            except Exception:
                after = run.before
            for flow in run.flows:
                run.final.setdefault(flow.name, _Final(after, None, time.time()))
        finally:
            run.ended = True

    def _follow_flows(self, engine: FlowEngine, run: _Run) -> None:
        watch, names = run.watch, engine.counters
        while not run.done:
            if run.stop.is_set():  # stopped: only the drains are left to wait for
                time.sleep(POLL_S)
            stopping = run.stop.wait(POLL_S)
            with self._lock:
                sent: set[int] = set()
                if not stopping and not watch.paused and watch.waiting:
                    # Each budgeted flow by the one rule of tester.send_watch.
                    readings = {key: SentReading(engine.generated(key))
                                for key in watch.waiting}
                    sent = {sender.key for sender in watch.done(readings)}
                    late = watch.late(time.monotonic())
                    if late:
                        names_late = [f.name for f in run.flows
                                      if set(f.stream_ids) & set(late)]
                        raise RuntimeError(
                            f"flows {names_late} did not send their frames within "
                            f"{watch.allowed_s:.1f} s: the switch is too slow for these rates")
                for stream_id in sorted(sent):
                    engine.stop_flow(stream_id)
                    run.stopped.add(stream_id)
                for flow in run.flows:
                    # A flow is sent once each of its streams has sent its budget.
                    all_sent = flow.budget is not None \
                        and all(sid in run.stopped for sid in flow.stream_ids)
                    if flow.name in run.sent_at or not (stopping or all_sent):
                        continue
                    for stream_id in flow.stream_ids:
                        if stream_id not in run.stopped:
                            engine.stop_flow(stream_id)
                            run.stopped.add(stream_id)
                    run.sent_at[flow.name] = time.monotonic()
                draining = [f for f in run.flows if f.name not in run.final
                            and f.name in run.sent_at
                            and time.monotonic() - run.sent_at[f.name] >= self._drain_s]
                if not draining:
                    continue
                # Drained: the drain time is over and the flow's RX count has not moved
                # since the last poll (frames may wait in a busy BMv2's queues longer),
                # or MAX_DRAIN_S is over.
                snapshot = engine.snapshot()
                for flow in draining:
                    rx = sum(snapshot.cell(names.rx_stream, sid).packets
                             for sid in flow.stream_ids)
                    settled = run.last_rx.get(flow.name) == rx
                    run.last_rx[flow.name] = rx
                    if settled or time.monotonic() - run.sent_at[flow.name] > MAX_DRAIN_S:
                        latency = combined_latency(
                            [(engine.latency(sid),
                              packets_between(run.before, snapshot, names.rx_stream, sid))
                             for sid in flow.stream_ids])
                        run.final[flow.name] = _Final(snapshot, latency, time.time())

    def _check(self, engine: FlowEngine, run: _Run) -> None:
        """The start's self-check, once all its flows stopped (module docstring), and
        what the engine itself says of the start after it (clocks across testers)."""
        try:
            with self._lock:
                after, check, dut_check = run.checks.settled(run.edge)
                stale = run.checks.target.rx_kinds(run.edge.snapshot, after.snapshot).stale
                closing = engine.closing_verdict()
        except Exception as exc:  # counters unreadable: nothing vouches for the start
            run.unvouched = f"{TESTER_LIMITED}: the self-check could not read counters: {exc}"
            return
        run.unvouched = verdict(check, dut_check) or (
            not_drained(run.settle, stale, run.checks.target.dut_between)
            if run.settle is not None else None) or closing

    def pause(self) -> None:
        """The flows still sending stop where they are; counters and sequence numbers
        stay, so resume continues the same flows."""
        with self._lock:
            run, engine = self._run, self._engine
            if run is None or engine is None or run.done:
                raise validation("no flows are transmitting: nothing to pause")
            if run.watch.paused:
                return
            engine.pause(self._sending(run))
            run.watch.pause(time.monotonic())

    def resume(self) -> None:
        """The paused flows send what is left of their budgets."""
        with self._lock:
            run, engine = self._run, self._engine
            if run is None or engine is None or not run.watch.paused:
                raise validation("no flows are paused: nothing to resume")
            sending = set(self._sending(run))
            engine.resume([plan for plan in run.plans if plan.stream_id in sending],
                          run.epoch, run.run_value)
            run.watch.resume(time.monotonic())

    @staticmethod
    def _sending(run: _Run) -> list[int]:
        """The streams still sending: of flows not yet sent, those with budget left."""
        return [sid for f in run.flows if f.name not in run.sent_at
                for sid in f.stream_ids if sid not in run.stopped]

    def stop(self) -> None:
        """Stop the flows and wait (bounded) for their final figures."""
        run, thread = self._run, self._thread
        if run is None or thread is None:
            return
        run.stop.set()
        thread.join(JOIN_S)

    def running(self) -> bool:
        """Flows still transmitting or draining, or their start not yet checked (its
        closing edge must not count the next start's frames)."""
        return self._run is not None and not self._run.ended

    # ---- counters --------------------------------------------------------
    def read(self) -> Reading:
        with self._lock:
            config, engine, run = self._config, self._engine, self._run
            if config is None or engine is None or self._port_base is None:
                return Reading({}, {})
            now = engine.snapshot()
        names = engine.counters
        flows = {f.name: FlowCounters() for f in config.flows}
        if run is not None:
            for flow in run.flows:
                sids = flow.stream_ids
                final = run.final.get(flow.name)
                after = final.after if final is not None else now
                tx = sum(packets_between(run.before, after, names.tx_stream, s) for s in sids)
                rx = sum(packets_between(run.before, after, names.rx_stream, s) for s in sids)
                flows[flow.name] = FlowCounters(
                    frames_tx=tx, frames_rx=rx,
                    bytes_tx=sum(bytes_between(run.before, after, names.tx_stream, s)
                                 for s in sids) + FCS_BYTES * tx,
                    bytes_rx=sum(bytes_between(run.before, after, names.rx_stream, s)
                                 for s in sids) + FCS_BYTES * rx,
                    started=final is None,
                    paused=final is None and run.watch.paused,
                    elapsed_s=(final.ended if final is not None else time.time()) - run.started,
                    latency=final.latency if final is not None and flow.latency else None)
        ports = {}
        for port in config.ports:
            tx = packets_between(self._port_base, now, names.tx_port, port.number)
            rx = packets_between(self._port_base, now, names.rx_port, port.number)
            ports[port.name] = PortCounters(
                frames_tx=tx, frames_rx=rx,
                bytes_tx=bytes_between(self._port_base, now, names.tx_port, port.number)
                + FCS_BYTES * tx,
                bytes_rx=bytes_between(self._port_base, now, names.rx_port, port.number)
                + FCS_BYTES * rx)
        return Reading(flows, ports, run.error if run is not None else None,
                       run.unvouched if run is not None else None)

    # ---- capture ---------------------------------------------------------
    def start_capture(self, port: MappedPort) -> None:
        self._captures.start(port.number)

    def stop_capture(self, port: MappedPort) -> None:
        self._captures.stop(port.number)

    def capturing(self, port: MappedPort) -> bool:
        return self._captures.capturing(port.number)

    def read_capture(self, port: MappedPort) -> bytes:
        return self._captures.read(port.number)

    def close(self) -> None:
        self.stop()
        self._captures.close()
        with self._lock:
            if self._engine is not None:
                self._engine.close()
                self._engine = None
