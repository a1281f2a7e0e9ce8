"""OTG flows across several testers (docs/several-testers.md): one flow engine
(tester.flow_engine) over the members' own, here or through their agents.

A flow is sent by the tester of its TX port and checked by the tester of its RX port,
with one run value and one sequence, so its counts are exact across both: what left
comes from the sender's counters, what arrived from the receiver's (merged_snapshot),
and its latency from the receiver. Before each start the clocks of every two testers
that exchange flows are measured by probes both ways (tester.group_clocks), and each
flow between two testers is stamped on its receiver's clock, the correction following
the drift every CORRECT_S while the flows run: its latency is one-way. The start's
self-check is the trial loop's over the members' checks (tester.tester_group).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Final, Protocol, cast

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig
from p4tester.tester.clock_probes import ProbeSide
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.flow_engine import CounterNames, FlowEngine, FlowLatency, FlowPlan
from p4tester.tester.group_clocks import GroupClocks, GroupPath
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.tester_group import (
    WRAPPED_NS,
    ClockedTarget,
    GroupMember,
    StreamRoles,
    TesterGroup,
    below_zero,
    merged_snapshot,
)
from p4tester.tester.trial_loop import TrialLoop

# How often a flow's stamp correction follows the clocks' drift; each is predicted for
# halfway to the next, so a flow's stamps are off by at most half of CORRECT_S's drift
# either way (61 ppm: 0.8 us), less than a path's delay on one host.
CORRECT_S: Final = 0.025


class MemberFlowEngine(FlowEngine, Protocol):
    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        """The flow's stamps from now on, plus correction_ns (its receiver's clock)."""


@dataclass(frozen=True, slots=True)
class FlowMember:
    name: str
    engine: MemberFlowEngine
    probes: ProbeSide
    ports: frozenset[int]
    close_probes: Callable[[], None] = lambda: None


class GroupFlowEngine:
    """Mutable: the start being run, and the thread that keeps its stamps corrected."""

    def __init__(self, members: Sequence[FlowMember], streams: Sequence[StreamConfig],
                 paths: Sequence[GroupPath], asymmetry_ns: float = 0.0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.members = tuple(members)
        # The members are of one target (eBPF, BMv2): its templates are theirs.
        self.stamp_counts_ports = self.members[0].engine.stamp_counts_ports
        self.streams = tuple(streams)
        self.roles = StreamRoles.of(self.streams, self.members)
        self.port_owners = {port: m.name for m in self.members for port in m.ports}
        self.by_name = {m.name: m for m in self.members}
        self.clocks = GroupClocks(tuple(paths), asymmetry_ns, clock, sleep)
        # The members' snapshots are merged under their names (one target's, one set).
        self.counters: CounterNames = self.members[0].engine.counters
        self._lock = threading.Lock()  # the corrections' thread and the driver's calls
        self._crossing: tuple[int, ...] = ()  # flows of the start between two testers
        # Per crossing flow: how late it is stamped on purpose (GroupClocks.guard_ns).
        self._guards_ns: dict[int, int] = {}
        self._sending: set[int] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.correction_error: str | None = None

    def _sender(self, stream_id: int) -> MemberFlowEngine:
        return self.by_name[self.roles.senders[stream_id]].engine

    def _receiver(self, stream_id: int) -> MemberFlowEngine:
        return self.by_name[self.roles.receivers[stream_id]].engine

    # ---- the testers -------------------------------------------------------
    def open(self) -> None:
        opened: list[FlowMember] = []
        try:
            for member in self.members:
                member.engine.open()
                opened.append(member)
        except BaseException:
            for member in reversed(opened):
                with suppress(Exception):
                    member.engine.close()
            raise

    def close(self) -> None:
        self._stop_corrections()
        for member in self.members:
            with suppress(Exception):  # an agent gone: nothing of it left to close
                member.close_probes()
            with suppress(Exception):
                member.engine.close()

    # ---- counters ----------------------------------------------------------
    def snapshot(self) -> CounterSnapshot:
        with self._lock:
            parts = {m.name: m.engine.snapshot() for m in self.members}
        return merged_snapshot(parts, self.roles, self.port_owners)

    def run_values_in_use(self) -> frozenset[int]:
        with self._lock:
            return frozenset(v for m in self.members for v in m.engine.run_values_in_use())

    def self_check(self, run_value: int, dut: DutCounterSource | None) -> TrialLoop:
        """The trial loop's edges over every member's own check."""
        with self._lock:
            # Each member's check target is its trial reads (the loop's target type,
            # with the stamp correction and received half every tester target has).
            checks = [GroupMember(m.name, cast(ClockedTarget,
                                               m.engine.self_check(run_value, None).target),
                                  m.probes, m.ports) for m in self.members]
        return TrialLoop(TesterGroup(tuple(checks), self.streams, ()), dut)

    # ---- a start -----------------------------------------------------------
    def expect(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        """Each member's part, then the clocks measured (before the opening edge: the
        probes' frames are in neither edge's difference)."""
        self._stop_corrections()
        with self._lock:
            for member in self.members:
                member.engine.expect(flows, epoch, run_value)
            self._crossing = tuple(f.stream_id for f in flows
                                   if self.roles.senders[f.stream_id]
                                   != self.roles.receivers[f.stream_id])
            if not self._crossing:
                return
            self.clocks.measure_start()
            if self.clocks.unmeasured:
                raise ConfigError("the flows' one-way latency cannot be measured: "
                                  + "; ".join(self.clocks.unmeasured))
            self._guards_ns = {sid: self.clocks.guard_ns(self.roles.senders[sid],
                                                         self.roles.receivers[sid])
                               for sid in self._crossing}
            self._correct()

    def _correct(self) -> None:
        """Each flow between two testers stamped on its receiver's clock, now, less its
        guard (taken back out of its latency)."""
        now_ns = (self.clocks.clock() + CORRECT_S / 2) * 1e9
        for stream_id in self._crossing:
            sender = self.roles.senders[stream_id]
            offset = self.clocks.offset_ns(sender, self.roles.receivers[stream_id], now_ns)
            if offset is not None:
                self.by_name[sender].engine.set_tx_clock_correction(
                    stream_id, round(offset) - self._guards_ns.get(stream_id, 0))

    def start(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        with self._lock:
            self._correct()
            for member in self.members:
                member.engine.start(flows, epoch, run_value)
            self._sending = {f.stream_id for f in flows}
        self._start_corrections()

    def _start_corrections(self) -> None:
        if not self._crossing:
            return
        self._stop.clear()
        self.correction_error = None
        self._thread = threading.Thread(target=self._follow_drift, name="otg-clocks",
                                        daemon=True)
        self._thread.start()

    def _follow_drift(self) -> None:
        while not self._stop.wait(CORRECT_S) and self._follow_drift_once():
            pass

    def _follow_drift_once(self) -> bool:
        """One correction; False when it failed (the start's verdict says so)."""
        try:
            with self._lock:
                self._correct()
        except Exception as failed:  # an agent gone: the driver's next read meets it too
            self.correction_error = str(failed)
            return False
        return True

    def _stop_corrections(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None

    def generated(self, stream_id: int) -> int:
        with self._lock:
            return self._sender(stream_id).generated(stream_id)

    def stop_flow(self, stream_id: int) -> None:
        with self._lock:
            self._sender(stream_id).stop_flow(stream_id)
            self._sending.discard(stream_id)
            idle = not self._sending
        if idle:
            self._stop_corrections()

    def pause(self, stream_ids: Sequence[int]) -> None:
        with self._lock:
            for member in self.members:
                own = [sid for sid in stream_ids if self.roles.senders[sid] == member.name]
                if own:
                    member.engine.pause(own)

    def resume(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        with self._lock:
            for member in self.members:
                own = [f for f in flows if self.roles.senders[f.stream_id] == member.name]
                if own:
                    member.engine.resume(own, epoch, run_value)

    def latency(self, stream_id: int) -> FlowLatency | None:
        with self._lock:
            measured = self._receiver(stream_id).latency(stream_id)
        guard = self._guards_ns.get(stream_id, 0) if stream_id in self._crossing else 0
        if measured is None or not guard:
            return measured
        return FlowLatency(measured.minimum_ns - guard, measured.maximum_ns - guard,
                           measured.average_ns - guard)

    def closing_verdict(self) -> str | None:
        """The probes again once the flows stopped, as after a trial: a clock that
        jumped, probes that did not come through or a delay below zero leaves the
        start's one-way latency unvouched, saying why."""
        if not self._crossing:
            return None
        with self._lock:
            records = self.clocks.end_records(0.0)
            wrapped = [sid for sid in self._crossing
                       if (latency := self._receiver(sid).latency(sid)) is not None
                       and latency.maximum_ns >= WRAPPED_NS]  # as measured: guard and all
        problems = self.clocks.reasons(records)
        if self.correction_error is not None:
            problems.append("the stamps stopped following the clocks' drift: "
                            f"{self.correction_error}")
        problems += [below_zero(sid) for sid in wrapped]
        return "; ".join(problems) or None

    def start_notes(self) -> tuple[str, ...]:
        """The offsets the start's one-way latencies rest on, one line per pair."""
        return tuple(self.clocks.notes()) if self._crossing else ()
