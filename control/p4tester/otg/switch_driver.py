"""OTG flows on the tester switch (BMv2): each flow a stream with its own rate
and exact packet budget, run in a background thread.

Start: write what each stream's frames must be (epoch, RX port, IP version),
snapshot the counters, clear the streams' registers in-band, set the pacing
rates, arm the budgets, write the port variations and seed the loops (as
SwitchTrialRunner.run_trial does, but every flow with its own budget, and
stoppable). The thread then waits (bounded) until each flow's budget is sent or a
stop is asked, stops it, lets its frames drain (DRAIN_S, then until its RX count
stops moving, at most MAX_DRAIN_S) and reads its final figures: only then does
the flow read as stopped, so a client polling for `stopped and frames_rx ==
count` sees final counts. One lock serialises every use of the P4Runtime session.

Each start checks itself as a trial does (tester.trial_loop, over the BMv2 trial
target's reads): the tester ports' own counters and a lab DUT's are read around the
program's when the flows start and once they have all stopped; frames the tester
lost itself (or a lab DUT lost to the host) make the start unvouched, and the stop
request says why (an OTG warning), so its loss is never taken for the DUT's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.dataplane import names
from p4tester.dataplane.constants import EPOCHS
from p4tester.dataplane.program import seeds_for_rate
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.lab.dut_counters import dut_counters_for
from p4tester.lab.ifaces import tester_iface
from p4tester.results.checks import TESTER_LIMITED
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.streams.template import build_template
from p4tester.targets.bmv2_session import TesterSession, frame_spec
from p4tester.targets.bmv2_trials import Bmv2Trials
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.port_counters import KernelInterfaceCounters, PortCounterSource
from p4tester.tester.send_watch import Sender, SendWatch, SentReading
from p4tester.tester.snapshot import CounterSnapshot, bytes_between, packets_between
from p4tester.tester.trial_loop import Edge, TrialLoop, verdict

from .capture import PortCaptures
from .errors import internal, validation
from .frames import ixia_layout
from .mapping import MAX_BUDGET, MappedConfig, MappedFlow, MappedPort
from .readings import FlowCounters, Latency, PortCounters, Reading

POLL_S: Final = 0.1
DRAIN_S: Final = 0.3
MAX_DRAIN_S: Final = 5.0
JOIN_S: Final = 30.0
NS_PER_BMV2_TICK: Final = 1000.0  # BMv2 timestamps are microseconds


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
    sent_at: dict[str, float] = field(default_factory=dict)  # budget sent or stopped
    final: dict[str, _Final] = field(default_factory=dict)
    error: str | None = None
    templates: dict[int, bytes] = field(default_factory=dict)  # to seed again on resume
    last_rx: dict[str, int] = field(default_factory=dict)  # RX count at the last poll
    unvouched: str | None = None  # the self-check's verdict once all flows stopped
    ended: bool = False  # flows stopped and the start checked: the next may begin

    @property
    def before(self) -> CounterSnapshot:
        return self.edge.snapshot

    @property
    def done(self) -> bool:
        return len(self.final) == len(self.flows)


class SwitchDriver:
    def __init__(self, topology: Topology, *, drain_s: float = DRAIN_S,
                 push_pipeline: bool = False,
                 session_factory: Callable[..., TesterSession] = TesterSession,
                 ports: PortCounterSource | None = None,
                 dut: DutCounterSource | None = None) -> None:
        if topology.switch.target != "bmv2":
            raise validation(f"p4tester otg drives BMv2 switches for now, not "
                             f"{topology.switch.target}")
        self._topology = topology
        self._drain_s = drain_s
        self._lock = threading.RLock()
        self._session: TesterSession | None = None
        self._config: MappedConfig | None = None
        self._port_base: CounterSnapshot | None = None
        self._run: _Run | None = None
        self._thread: threading.Thread | None = None
        self._trials = 0
        self._captures = PortCaptures()
        self._session_factory = session_factory
        # The self-check's counters: the tester ports' interfaces (tester port N is
        # p4lt<N> in the labs) and the topology's lab DUT, as a trial's.
        self._ports = ports or KernelInterfaceCounters(tester_iface)
        self._dut = dut if dut is not None else dut_counters_for(topology)
        # --push-pipeline loads the tester program with the first config only: a push
        # resets the switch's state, the later configs reuse the program.
        self._push = push_pipeline

    # ---- configuration ---------------------------------------------------
    def apply(self, config: MappedConfig) -> None:
        """Stop what runs, then (re)open the session with the config's streams."""
        self.stop()
        self._captures.clear()
        with self._lock:
            if self._session is not None:
                self._session.close()
                self._session = None
            profile = Profile(name="otg", streams=tuple(f.stream for f in config.flows),
                              source="OTG config")
            session = self._session_factory(self._topology, profile,
                                            push_pipeline=self._push)
            try:
                session.open()
                self._port_base = CounterSnapshot.take(session.dataplane)
            except Exception as exc:
                session.close()
                raise internal(f"switch {self._topology.switch.grpc}: {exc}") from exc
            self._session = session
            self._config = config
            self._run = None
            self._push = False

    # ---- traffic ---------------------------------------------------------
    def start(self, flows: tuple[MappedFlow, ...]) -> None:
        with self._lock:
            session = self._session
            if session is None:
                raise validation("no config: POST /config first")
            if self.running():
                raise validation("flows are transmitting: stop them before starting again")
            dataplane = session.dataplane
            epoch = self._trials % EPOCHS
            self._trials += 1
            try:
                # Each start is a run of its own: frames of the start before, still
                # in a DUT, are stale (dataplane.run_identity).
                run_value = draw_run_value(dataplane.run_values_in_use())
                for flow in flows:
                    dataplane.expect_stream(flow.stream_id, flow.stream.rx_port,
                                            ipv6=flow.stream.ipv6, epoch=epoch, run=run_value)
                checks = TrialLoop(Bmv2Trials(session, self._ports, run_value), self._dut)
                edge = checks.opening_edge()
                for flow in flows:
                    dataplane.clear_stream(flow.stream_id)
                session.target.set_stream_rates({f.stream_id: f.rate_pps for f in flows})
                for flow in flows:
                    dataplane.start_stream(flow.stream_id, flow.budget or MAX_BUDGET, epoch,
                                           run_value)
                for flow in flows:
                    dataplane.set_port_variation(flow.stream_id, flow.stream.field_cycle)
                watch = SendWatch([Sender(f.stream_id, f.budget, f.rate_pps)
                                   for f in flows if f.budget is not None], time.monotonic())
                run = _Run(flows, time.time(), checks, edge, watch, epoch, run_value)
                for flow in flows:
                    template = ixia_layout(
                        build_template(frame_spec(flow.stream, flow.frame_size, epoch,
                                                  run_value)),
                        flow.stream.encapsulation)
                    run.templates[flow.stream_id] = template
                    dataplane.seed_stream(flow.stream_id, template, seeds_for_rate(flow.rate_pps))
            except Exception as exc:
                for flow in flows:
                    dataplane.stop_stream(flow.stream_id)
                raise internal(f"starting flows on the switch: {exc}") from exc
            self._run = run
            self._thread = threading.Thread(target=self._follow, args=(session, run),
                                            name="otg-flows", daemon=True)
            self._thread.start()

    def _follow(self, session: TesterSession, run: _Run) -> None:
        """Each flow: wait (bounded) until its budget is sent or a stop is asked,
        stop it, let its frames drain, read its final figures. A continuous flow
        runs until the stop."""
        try:
            self._follow_flows(session, run)
            self._check(run)
        except Exception as exc:  # answered to the next metrics request, never lost
            run.error = f"flows stopped on an error: {exc}"
            try:
                with self._lock:
                    for flow in run.flows:
                        session.dataplane.stop_stream(flow.stream_id)
                    after = CounterSnapshot.take(session.dataplane)
            except Exception:
                after = run.before
            for flow in run.flows:
                run.final.setdefault(flow.name, _Final(after, None, time.time()))
        finally:
            run.ended = True

    def _follow_flows(self, session: TesterSession, run: _Run) -> None:
        dataplane = session.dataplane
        watch = run.watch
        while not run.done:
            if run.stop.is_set():  # stopped: only the drains are left to wait for
                time.sleep(POLL_S)
            stopping = run.stop.wait(POLL_S)
            with self._lock:
                sent: set[int] = set()
                if not stopping and not watch.paused and watch.waiting:
                    # Each budgeted flow by the one rule of tester.send_watch.
                    readings = {key: SentReading(dataplane.read_stream_registers(key).generated)
                                for key in watch.waiting}
                    sent = {sender.key for sender in watch.done(readings)}
                    late = watch.late(time.monotonic())
                    if late:
                        names_late = [f.name for f in run.flows if f.stream_id in late]
                        raise RuntimeError(
                            f"flows {names_late} did not send their frames within "
                            f"{watch.allowed_s:.1f} s: the switch is too slow for these rates")
                for flow in run.flows:
                    if flow.name in run.sent_at or not (stopping or flow.stream_id in sent):
                        continue
                    dataplane.stop_stream(flow.stream_id)
                    run.sent_at[flow.name] = time.monotonic()
                draining = [f for f in run.flows if f.name not in run.final
                            and f.name in run.sent_at
                            and time.monotonic() - run.sent_at[f.name] >= self._drain_s]
                if not draining:
                    continue
                # Drained: the drain time is over and the flow's RX count has not moved
                # since the last poll (frames may wait in a busy BMv2's queues longer),
                # or MAX_DRAIN_S is over.
                snapshot = CounterSnapshot.take(dataplane)
                for flow in draining:
                    rx = snapshot.cell(names.RX_STREAM, flow.stream_id).packets
                    settled = run.last_rx.get(flow.name) == rx
                    run.last_rx[flow.name] = rx
                    if settled or time.monotonic() - run.sent_at[flow.name] > MAX_DRAIN_S:
                        run.final[flow.name] = _Final(snapshot, self._latency(session, flow),
                                                      time.time())

    def _check(self, run: _Run) -> None:
        """The start's self-check, once all its flows stopped (module docstring)."""
        try:
            with self._lock:
                _, check, dut_check = run.checks.settled(run.edge)
        except Exception as exc:  # counters unreadable: nothing vouches for the start
            run.unvouched = f"{TESTER_LIMITED}: the self-check could not read counters: {exc}"
            return
        run.unvouched = verdict(check, dut_check)

    @staticmethod
    def _latency(session: TesterSession, flow: MappedFlow) -> Latency | None:
        registers = session.dataplane.read_stream_registers(flow.stream_id)
        if not registers.rx_samples:
            return None
        return Latency(
            minimum_ns=registers.latency_min * NS_PER_BMV2_TICK,
            maximum_ns=registers.latency_max * NS_PER_BMV2_TICK,
            average_ns=registers.latency_sum / registers.rx_samples * NS_PER_BMV2_TICK)

    def pause(self) -> None:
        """The flows still sending stop where they are (their seeds die); counters
        and sequence numbers stay, so resume continues the same flows."""
        with self._lock:
            run, session = self._run, self._session
            if run is None or session is None or run.done:
                raise validation("no flows are transmitting: nothing to pause")
            if run.watch.paused:
                return
            for flow in run.flows:
                if flow.name not in run.sent_at:
                    session.dataplane.stop_stream(flow.stream_id)
            run.watch.pause(time.monotonic())

    def resume(self) -> None:
        """Arm the paused flows again with their budgets and seed their loops: they
        send what is left of their budgets."""
        with self._lock:
            run, session = self._run, self._session
            if run is None or session is None or not run.watch.paused:
                raise validation("no flows are paused: nothing to resume")
            for flow in run.flows:
                if flow.name not in run.sent_at:
                    session.dataplane.start_stream(flow.stream_id, flow.budget or MAX_BUDGET,
                                                   run.epoch, run.run_value)
                    session.dataplane.seed_stream(flow.stream_id, run.templates[flow.stream_id],
                                                  seeds_for_rate(flow.rate_pps))
            run.watch.resume(time.monotonic())

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
            config, session, run = self._config, self._session, self._run
            if config is None or session is None or self._port_base is None:
                return Reading({}, {})
            now = CounterSnapshot.take(session.dataplane)
        flows = {f.name: FlowCounters() for f in config.flows}
        if run is not None:
            for flow in run.flows:
                sid = flow.stream_id
                final = run.final.get(flow.name)
                after = final.after if final is not None else now
                tx = packets_between(run.before, after, names.TX_STREAM, sid)
                rx = packets_between(run.before, after, names.RX_STREAM, sid)
                flows[flow.name] = FlowCounters(
                    frames_tx=tx, frames_rx=rx,
                    bytes_tx=bytes_between(run.before, after, names.TX_STREAM, sid)
                    + FCS_BYTES * tx,
                    bytes_rx=bytes_between(run.before, after, names.RX_STREAM, sid)
                    + FCS_BYTES * rx,
                    started=final is None,
                    paused=final is None and run.watch.paused,
                    elapsed_s=(final.ended if final is not None else time.time()) - run.started,
                    latency=final.latency if final is not None and flow.latency else None)
        ports = {}
        for port in config.ports:
            tx = packets_between(self._port_base, now, names.TX_PORT, port.number)
            rx = packets_between(self._port_base, now, names.RX_PORT, port.number)
            ports[port.name] = PortCounters(
                frames_tx=tx, frames_rx=rx,
                bytes_tx=bytes_between(self._port_base, now, names.TX_PORT, port.number)
                + FCS_BYTES * tx,
                bytes_rx=bytes_between(self._port_base, now, names.RX_PORT, port.number)
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
            if self._session is not None:
                self._session.close()
                self._session = None
