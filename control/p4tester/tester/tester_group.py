"""Several testers as one trial target (docs/several-testers.md): the one trial loop
runs a trial across them as across one switch.

Each member arms the streams it sends (its TX ports) and those it checks (its RX
ports); all start together and the skew between their starts is recorded; each edge
reads them all. A stream's figures come from two testers: what left from its sender's
counters, what arrived from its receiver's, one sequence and one run value across
both, so loss, duplicates and reordering stay exact. The snapshot the loop keeps is
the members' merged by those roles (merged_snapshot).

Clocks: before each trial, probes both ways between every two testers that exchange
streams measure their offset (tester.clock_probes); the sender's stamps of each such
stream are corrected by it, so the receiver's latency, histogram and jitter are
one-way. After the closing edge the probes run again: the drift, and a jump that
leaves the trial's one-way figures unvouched. Each trial's ClockRecords say what the
figures may be off by.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from typing import Final, Protocol

from p4tester.config.profile import StreamConfig
from p4tester.dataplane.constants import (
    CUT_BITS,
    HIST_CELLS_PER_STREAM,
    MAX_STREAMS,
    RX_KIND_STREAM,
)
from p4tester.experiments.errors import TesterUnanswered
from p4tester.experiments.runner import TrialSpec
from p4tester.p4rt import CounterValue
from p4tester.results.clocks import ClockRecord
from p4tester.results.latency import shifted_latency
from p4tester.results.model import LatencyStats, StreamStats
from p4tester.tester.clock_probes import ProbeSide
from p4tester.tester.group_clocks import NS_PER_US, GroupClocks, GroupPath
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.rate_schedule import RateSchedule
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_loop import ArmedTrial, Extras, RxKinds, TrialTarget

# Snapshot counters by whose they are in a group, by the last part of their name (the
# eBPF target's names are that part; BMv2's and Tofino's put their control's path
# before it). A Tofino snapshot has no port counters: its ports' come apart, by
# topology port (ProgramPortCounts).
SENT_COUNTERS: Final = frozenset({"tx_stream"})
PORT_COUNTERS: Final = frozenset({"rx_port", "tx_port"})
SUMMED_COUNTERS: Final = frozenset({"rx_kind"})
HISTOGRAMS: Final = frozenset({"latency_hist", "qdepth_hist"})
# BMv2's bytes random-size frames lost: a stream's cells, then a TX port's (the sender's).
CUT_COUNTERS: Final = frozenset({"tx_cut_bits"})
# A latency register at or above 2^31 ns holds a negative one-way delay, wrapped.
WRAPPED_NS: Final = 1 << 31


class ClockedTarget(TrialTarget, Protocol):
    """A member's trial target, with the stamp correction of the streams it sends and
    the receiving half of the samples of those it checks."""

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None: ...

    def read_received(self, stream_ids: Sequence[int]) -> Mapping[int, tuple[int, int]]:
        """Per stream: (frames received, their latencies' sum in us) so far this
        trial: the received half of the sender's sample (trial_course.StreamSample),
        whose guard comes off in us."""
        ...


class PortOwner(Protocol):
    """A member of a group by what the roles need: its name and its ports."""

    @property
    def name(self) -> str: ...

    @property
    def ports(self) -> frozenset[int]: ...


class ProbeOwner(PortOwner, Protocol):
    """A member by what the probes between members need: also its probe side."""

    @property
    def probes(self) -> ProbeSide: ...


@dataclass(frozen=True, slots=True)
class GroupMember:
    name: str
    target: ClockedTarget
    probes: ProbeSide
    ports: frozenset[int]


@dataclass(frozen=True, slots=True)
class StreamRoles:
    """Which member sends and which checks each stream (stream id -> member name)."""

    senders: Mapping[int, str]
    receivers: Mapping[int, str]

    @classmethod
    def of(cls, streams: Sequence[StreamConfig],
           members: Sequence[PortOwner]) -> StreamRoles:
        def owner(port: int) -> str:
            return next(m.name for m in members if port in m.ports)

        return cls({s.id: owner(s.tx_port) for s in streams},
                   {s.id: owner(s.rx_port) for s in streams})


def merged_snapshot(parts: Mapping[str, CounterSnapshot], roles: StreamRoles,
                    port_owners: Mapping[int, str], probe_frames: int = 0) -> CounterSnapshot:
    """One snapshot of the members' (member name -> its snapshot): a stream's TX
    counters from its sender, its RX counters and histograms from its receiver, a
    port's counters from the tester it belongs to, the frame kinds summed, less the
    clock probes' frames (probe_frames) among the streams' kind."""
    names = {name for part in parts.values() for name in part.cells}
    cells: dict[str, dict[int, CounterValue]] = {}
    for name in names:
        kind = counter_kind(name)
        merged: dict[int, CounterValue] = {}
        for member, part in parts.items():
            for index, value in part.cells.get(name, {}).items():
                if kind in SUMMED_COUNTERS:
                    held = merged.get(index, CounterValue(0, 0))
                    merged[index] = CounterValue(held.packets + value.packets,
                                                 held.bytes + value.bytes)
                    continue
                if kind in PORT_COUNTERS:
                    owner = port_owners.get(index)
                elif kind in CUT_COUNTERS:
                    cell = index // CUT_BITS
                    owner = (roles.senders.get(cell) if cell < MAX_STREAMS
                             else port_owners.get(cell - MAX_STREAMS))
                elif kind in SENT_COUNTERS:
                    owner = roles.senders.get(index)
                else:
                    stream = index // HIST_CELLS_PER_STREAM if kind in HISTOGRAMS else index
                    owner = roles.receivers.get(stream)
                if owner == member:
                    merged[index] = value
        cells[name] = merged
    kinds = next((cells[name] for name in cells if counter_kind(name) in SUMMED_COUNTERS), {})
    if probe_frames and RX_KIND_STREAM in kinds:
        held = kinds[RX_KIND_STREAM]
        kinds[RX_KIND_STREAM] = CounterValue(held.packets - probe_frames, held.bytes)
    return CounterSnapshot(cells)


def counter_kind(name: str) -> str:
    """A counter's name without its control's path ("TesterEgress.generator.tx_stream"
    -> "tx_stream"): the same on every target."""
    return name.rsplit(".", 1)[-1]


def _merged_ports(parts: Sequence[ProgramPortCounts]) -> ProgramPortCounts:
    rx: dict[int, int] = {}
    tx: dict[int, int] = {}
    for part in parts:
        rx.update(part.rx)
        tx.update(part.tx)
    again = [p.rx_at_end for p in parts]
    rx_at_end: dict[int, int] | None = None
    if all(a is not None for a in again):
        rx_at_end = {}
        for a in again:
            rx_at_end.update(a or {})
    return ProgramPortCounts(rx, tx, rx_at_end)


@dataclass
class TesterGroup:
    """The TrialTarget of several testers. Mutable: it keeps the trial being run (its
    members' armed trials, its clocks) between the loop's calls."""

    members: tuple[GroupMember, ...]
    streams: tuple[StreamConfig, ...]
    paths: tuple[GroupPath, ...]
    asymmetry_ns: float = 0.0
    clock: Callable[[], float] = field(default=time.monotonic)
    sleep: Callable[[float], None] = field(default=time.sleep)
    _armed: dict[str, ArmedTrial] = field(default_factory=dict, init=False)
    _skew_s: float = field(default=0.0, init=False)
    # Per stream between two testers: its guard this trial, us (GroupClocks.guard_ns).
    _guards_us: dict[int, int] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.roles = StreamRoles.of(self.streams, self.members)
        self.port_owners = {port: m.name for m in self.members for port in m.ports}
        self.by_name = {m.name: m for m in self.members}
        self.clocks = GroupClocks(self.paths, self.asymmetry_ns, self.clock, self.sleep)

    # ---- what the loop asks of a target ------------------------------------
    @property
    def poll_s(self) -> float:
        return min(m.target.poll_s for m in self.members)

    @property
    def drain_s(self) -> float:
        return max(m.target.drain_s for m in self.members)

    @property
    def settle_s(self) -> float:
        return max(m.target.settle_s for m in self.members)

    @property
    def settle_max_s(self) -> float:
        return max(m.target.settle_max_s for m in self.members)

    @property
    def host_bound(self) -> bool:
        return any(m.target.host_bound for m in self.members)

    @property
    def dut_between(self) -> bool:
        return any(m.target.dut_between for m in self.members)

    @property
    def queues_input(self) -> bool:
        return any(m.target.queues_input for m in self.members)

    def port_names(self) -> Mapping[int, str]:
        return {port: name for m in self.members for port, name in m.target.port_names().items()}

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        read = [m.target.read_ports() for m in self.members]
        if any(part is None for part in read):
            return None
        return {port: counters for part in read for port, counters in (part or {}).items()}

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return self._merged([m.target.read_program() for m in self.members])

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return self._merged([m.target.read_arrivals() for m in self.members])

    def _merged(self, reads: Sequence[tuple[CounterSnapshot, ProgramPortCounts]]
                ) -> tuple[CounterSnapshot, ProgramPortCounts]:
        parts = {m.name: snapshot for m, (snapshot, _) in zip(self.members, reads, strict=True)}
        merged = merged_snapshot(parts, self.roles, self.port_owners,
                                 sum(self.clocks.probe_frames.values()))
        return merged, _merged_ports([ports for _, ports in reads])

    # ---- a trial ---------------------------------------------------------------
    def arm(self, spec: TrialSpec) -> ArmedTrial:
        self._armed = {m.name: m.target.arm(spec) for m in self.members}
        self.clocks.measure_start()
        self._guards_us = {
            s.id: self.clocks.guard_ns(self.roles.senders[s.id],
                                       self.roles.receivers[s.id]) // NS_PER_US
            for s in self.streams if self.roles.senders[s.id] != self.roles.receivers[s.id]}
        self._correct_stamps()
        armed = list(self._armed.values())
        return ArmedTrial(tuple(s for a in armed for s in a.senders),
                          sum(a.offered_pps for a in armed), what=armed[0].what,
                          slow_hint=armed[0].slow_hint,
                          schedule=merged_schedule([a.schedule for a in armed
                                                    if a.schedule is not None]))

    def _correct_stamps(self) -> None:
        """Each stream between two testers is stamped on its receiver's clock: its
        offset from the sender's, as the start's estimate and the drift predict it
        halfway to the next correction (the next poll), so the stamps are off by at
        most half a poll's drift, either way. Less the stream's guard (the trial's
        constant, GroupClocks.guard_ns), taken back out of its figures."""
        now_ns = (self.clock() + self.poll_s / 2) * 1e9
        for member, armed in self._armed.items():
            # The trial's streams only: each correction is a write (a request to an agent).
            for sender in armed.senders:
                receiver = self.roles.receivers[sender.key]
                offset = (self.clocks.offset_ns(member, receiver, now_ns)
                          if receiver != member else None)
                if offset is not None:
                    guard_ns = self._guards_us.get(sender.key, 0) * NS_PER_US
                    self.by_name[member].target.set_tx_clock_correction(
                        sender.key, round(offset) - guard_ns)

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        self._correct_stamps()
        starts = []
        for member in self.members:
            member.target.start(self._armed[member.name], spec)
            starts.append(self.clock())
        self._skew_s = max(starts) - min(starts)

    def retune(self, trial: ArmedTrial, rates_pps: Mapping[int, float]) -> None:
        for member in self.members:
            armed = self._armed[member.name]
            if armed.schedule is not None:
                own = {s.key for s in armed.schedule.senders}
                member.target.retune(armed, {k: v for k, v in rates_pps.items() if k in own})

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        # Every poll: the stamps' correction follows the clocks' drift, so a stream's
        # one-way delay is off by at most the drift of one poll interval.
        self._correct_stamps()
        readings: dict[int, SentReading] = {}
        wanted = {s.key for s in senders}
        for member in self.members:
            own = [s for s in self._armed[member.name].senders if s.key in wanted]
            if own:
                readings.update(member.target.read_sent(own))
        # A stream checked on another tester: its sample's received half is that one's.
        for member in self.members:
            theirs = [key for key in readings
                      if self.roles.receivers.get(key) == member.name
                      and self.roles.senders.get(key) != member.name]
            if not theirs:
                continue
            for key, (frames, latency_sum) in member.target.read_received(theirs).items():
                reading = readings[key]
                if reading.sample is not None:
                    guard = self._guards_us.get(key, 0) * frames
                    readings[key] = replace(reading, sample=replace(
                        reading.sample, rx_samples=frames, latency_sum=latency_sum - guard))
        return readings

    def stop(self, trial: ArmedTrial) -> None:
        for member in self.members:
            member.target.stop(self._armed[member.name])

    def stop_what_answers(self) -> None:
        """After a tester stopped answering mid-trial: the others stop sending (an
        agent's that does not answer says TesterUnanswered, a switch's ConnectionError)."""
        for member in self.members:
            armed = self._armed.get(member.name)
            if armed is None:
                continue
            with suppress(TesterUnanswered, ConnectionError):
                member.target.stop(armed)

    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds:
        return self.members[0].target.rx_kinds(before, after)  # summed in the merge

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        for member in self.members:
            member.target.widen_latency_bins(edges_us)

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        figures = {stats.stream_id: self._unguarded(stats) for m in self.members
                   for stats in m.target.stream_stats(self._armed[m.name], spec, before, after)}
        return tuple(figures[s.id] for s in self.streams if s.id in figures)

    def _unguarded(self, stats: StreamStats) -> StreamStats:
        """A crossing stream's figures with its guard taken back out (one-way delays)."""
        guard = self._guards_us.get(stats.stream_id, 0)
        if not guard:
            return stats

        def shifted(latency: LatencyStats | None) -> LatencyStats | None:
            return None if latency is None else shifted_latency(latency, guard)

        return replace(stats, latency=shifted(stats.latency),
                       receivers=tuple(replace(r, latency=shifted(r.latency))
                                       for r in stats.receivers))

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras:
        parts = [(m.name, m.target.extras(self._armed[m.name], streams, before, after))
                 for m in self.members]
        clocks = tuple(self._directions(r) for r in self.clocks.end_records(self._skew_s))
        unvouched = [f"tester {name}: {extras.unvouched}" for name, extras in parts
                     if extras.unvouched]
        unvouched += self._below_zero(streams)
        unvouched += self.clocks.reasons(clocks)
        return Extras(reference=None, unvouched="; ".join(unvouched),
                      sender_bursts={k: v for _, extras in parts
                                     for k, v in extras.sender_bursts.items()},
                      clocks=clocks)

    def _below_zero(self, streams: Sequence[StreamStats]) -> list[str]:
        """A one-way delay below zero even with its guard (the latency register
        wrapped): the offset's estimate is off by more than its stated uncertainty,
        the figures are not delays."""
        return [below_zero(s.stream_id) for s in streams
                if s.stream_id in self._guards_us and s.latency is not None
                and (s.latency.max_us + self._guards_us[s.stream_id]) * NS_PER_US
                >= WRAPPED_NS]

    def _directions(self, record: ClockRecord) -> ClockRecord:
        armed = {s.key for a in self._armed.values() for s in a.senders}

        def way(sender: str, receiver: str) -> tuple[int, ...]:
            return tuple(s.id for s in self.streams if s.id in armed
                         and self.roles.senders[s.id] == sender
                         and self.roles.receivers[s.id] == receiver)

        return replace(record, a_to_b=way(record.a, record.b), b_to_a=way(record.b, record.a))


def below_zero(stream_id: int) -> str:
    """Why a stream between two testers whose latency register wrapped (at or above
    WRAPPED_NS, its guard included) has no one-way figures."""
    return (f"stream {stream_id}: a one-way delay below zero beyond the offset's stated "
            "uncertainty (asymmetry beyond asymmetry_us, or a clock stepped)")


def merged_schedule(schedules: Sequence[RateSchedule]) -> RateSchedule | None:
    """One schedule of the members' shaped senders: the same steps (one trial spec
    made them all), each member's senders."""
    if not schedules:
        return None
    first = schedules[0]
    for other in schedules[1:]:
        if other.steps != first.steps or other.leads_s != first.leads_s:
            raise ValueError("the testers' shaped streams step at different times; shape "
                             "the streams of one tester, or give them one shape")
    return replace(first, senders=tuple(s for schedule in schedules for s in schedule.senders))
