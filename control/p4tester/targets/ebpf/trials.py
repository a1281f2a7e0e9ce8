"""Trials on the eBPF tester: its reads and writes for the one trial loop
(tester.trial_loop), and the TrialRunner experiments use.

Arming writes each stream's expectation (run value, epoch, RX port, IP version),
clears its registers and counters, and wires its replication: k copies per template
out of its TX port, k chosen so the sender writes at most TEMPLATE_PPS templates a
second (copies_per_template). Starting gives the generator each stream's budget (the
program numbers copies up to it and drops the rest: the count is exact whatever the
sender wrote) and starts the sender's thread. Each poll reads a stream's frames sent
(tx_stream) and its latency registers, timed on the kernel's monotonic clock, the
program's own: the proof of the load offered.

What the trial loop's self-check reads: the tester ports' kernel counters (a frame
the host's backlog dropped on the way into a tester port counts as the port's
rx_dropped: the tester's loss, never the DUT's) against the program's rx_port and
tx_port. The generator link's own losses show as frames short of the budget: the
trial fell behind, tester-limited, saying how many templates arrived.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import EPOCHS, HIST_CELLS_PER_STREAM, IP_VERSION_4, IP_VERSION_6
from p4tester.dataplane.headers import StreamRegisters, epoch_flags
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.lab.dut_counters import dut_counters_for
from p4tester.p4rt import CounterValue
from p4tester.results.model import StreamStats, TrialResult
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header
from p4tester.targets.ebpf.flow_templates import flow_frames
from p4tester.targets.ebpf.generator_tag import GENERATOR_TAG_BYTES, tag_template
from p4tester.targets.ebpf.sender import (
    SLOT_S,
    Feed,
    SendReport,
    TemplateSender,
    run_ahead_of_other_work,
    slot_share,
    stay_on_the_sender_cpu,
)
from p4tester.targets.ebpf.session import NS_PER_US, EbpfSession, set_profile_bins
from p4tester.targets.ebpf.tester import MAX_COPIES
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.link_frames import LINK_MTU_HINT, max_link_frame
from p4tester.tester.port_counters import InterfaceCounters, KernelInterfaceCounters
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import (
    CounterSnapshot,
)
from p4tester.tester.stream_figures import (
    LatencySums,
    StreamCounters,
    several_port_figures,
    stream_figures,
)
from p4tester.tester.stream_plan import trial_schedule, trial_streams
from p4tester.tester.trial_course import SWITCH_CLOCK_BITS, StreamSample, burst_allowed
from p4tester.tester.trial_loop import (
    QDEPTH_EDGES,
    ArmedTrial,
    Extras,
    GeneratorBehind,
    RxKinds,
    TrialLoop,
)

POLL_S: Final = 0.1
# Templates per second the sender is asked for, all streams together: a tenth of what
# it wrote on a 2-core host with one core busy (make bench-ebpf), so a trial keeps its
# schedule beside other work. Faster streams get more copies per template.
TEMPLATE_PPS: Final = 10_000
# The sender stops this long after the trial's time at the latest (the trial loop has
# given up on it by then).
SENDER_SLACK_S: Final = 10.0
# Polls without a frame sent after the sender finished before the trial is called behind.
STALLED_POLLS: Final = 3
_STREAM_COUNTERS: Final = ("rx_stream", "tx_stream", "rx_gap_events", "rx_reordered",
                           "rx_duplicate")
# The snapshot's names (read_program) of the counters stream_figures reads.
EBPF_STREAM_COUNTERS: Final = StreamCounters(*_STREAM_COUNTERS, "latency_hist", "qdepth_hist")


def copies_per_template(rate_pps: float, streams: int, burst: bool) -> int:
    """k frames per template: the fewest that keep the sender at TEMPLATE_PPS or
    below with `streams` streams sharing it; a burst (back-to-back trial) takes the
    most, so its frames leave as fast as the host makes them."""
    if burst:
        return MAX_COPIES
    return max(1, min(MAX_COPIES, math.ceil(rate_pps * streams / TEMPLATE_PPS)))


def check_burst_spacing(bursts: Mapping[int, int], rates_pps: Mapping[int, float]) -> None:
    """A bursts stream's burst is one template's copies, back to back; the sender
    sends the templates due in each slot (SLOT_S) together, so bursts closer than a
    slot would leave as one. Raises ConfigError naming the fix."""
    for sid, frames in sorted(bursts.items()):
        per_second = rates_pps[sid] / frames
        if per_second > 1 / SLOT_S:
            raise ConfigError(
                f"stream {sid}: bursts of {frames} frames at {rates_pps[sid]:.0f} frames/s "
                f"come every {1000 / per_second:.2f} ms; the eBPF sender sends in "
                f"{SLOT_S * 1000:g}-ms slots, so bursts that close would merge: use bursts of "
                f"at least {math.ceil(rates_pps[sid] * SLOT_S)} frames or a lower load")


def merged_bursts(plans: Sequence[EbpfStreamPlan], report: SendReport | None) -> str:
    """Why a trial did not offer its bursts ('' when it did): a bursts stream whose
    sender fell behind and wrote two of its templates (bursts) back to back, so the
    DUT saw a burst twice as long as asked."""
    if report is None or not report.most_at_once:
        return ""
    return "; ".join(
        f"stream {plan.stream.id}: the sender fell {report.worst_lag_s * 1000:.1f} ms behind "
        f"and wrote {together} of its bursts of {plan.copies} frames back to back"
        for plan, together in zip(plans, report.most_at_once, strict=True)
        if plan.bursts and together > 1)


def sender_bursts(plans: Sequence[EbpfStreamPlan],
                  report: SendReport | None) -> dict[int, int]:
    """Per constant-rate stream, the most frames its sender wrote at once beyond what
    one slot carries at its rate. The sender writes the templates due within the next
    slot, one more to round up; more than that means it fell behind and caught up, and
    the copies of what it wrote went out back to back: a burst a DUT's queue may drop
    (on the router lab, 55 templates of 3 copies at once, 7 ms behind at 20 208
    frames/s, lost 9 and 72 frames to a token bucket of 150 frames). It can start and
    end between two samples, which then show no burst at all."""
    if report is None or not report.most_at_once:
        return {}
    bursts = {}
    for plan, most in zip(plans, report.most_at_once, strict=True):
        if plan.bursts or plan.steps:
            continue  # by design not one rate: merged_bursts and the steps judge them
        beyond = most - slot_share(plan.rate_pps / plan.copies)
        bursts[plan.stream.id] = max(beyond, 0) * plan.copies
    return bursts


def catch_up_templates(rate_pps: float, copies: int, poll_s: float = POLL_S) -> int:
    """Templates the sender may write beyond its rate in one sample interval once it
    fell behind (Feed.catch_up): the burst a trial allows (trial_course.burst_allowed),
    in templates of `copies` frames, less one slot's share, which a sample interval
    can hold beyond the rate besides the catch-up (the slots' rounding up). Any less
    and the sender repays a lag slower than it could (on the router lab, one core
    busy, it fell 4 to 5 ms behind in every trial)."""
    return max(0, math.floor(burst_allowed(rate_pps, poll_s) / copies)
               - slot_share(rate_pps / copies))


@dataclass(frozen=True, slots=True)
class EbpfStreamPlan:
    stream: StreamConfig
    rate_pps: float  # a shaped stream's: its mean
    budget: int
    copies: int
    template: bytes  # tagged
    steps: tuple[tuple[float, float], ...] = ()  # a shaped stream's (start_s, frames/s)
    bursts: bool = False  # a bursts shape's stream: each template is one burst
    cycle: tuple[bytes, ...] = ()  # a varying stream's frames (tagged), one per template

    @property
    def feed(self) -> Feed:
        """A steady stream's sender catches up no more than its trial allows in any
        sample interval, and repays the rest of a lag in later ones (sender module
        doc). A bursts stream's and a shaped one's are judged by their own checks
        (merged_bursts, the steps' course)."""
        steady = not (self.bursts or self.steps)
        return Feed(self.template, math.ceil(self.budget / self.copies),
                    self.rate_pps / self.copies,
                    tuple((start, pps / self.copies) for start, pps in self.steps),
                    catch_up=catch_up_templates(self.rate_pps, self.copies) if steady else None,
                    repay_window_s=POLL_S, cycle=self.cycle)


def stream_frame(stream: StreamConfig, size: int, epoch: int, run: int) -> bytes:
    """A frame of the stream in a trial (its epoch) of a run (its run value)."""
    return build_template(FrameSpec(stream_id=stream.id, frame_size=size,
                                    addresses=stream.addresses, epoch=epoch, run=run,
                                    encapsulation=stream.encapsulation))


def tagged(stream: StreamConfig, frame: bytes) -> bytes:
    """A frame of the stream as the sender writes it into the generator interface."""
    return tag_template(frame, stream.id, offset_of_tester_header(stream.encapsulation),
                        stream.tx_port)


def switch_time_us() -> int:
    """The program's clock (CLOCK_MONOTONIC) in the trial loop's units, as BMv2 gives
    its own: microseconds, wrapping at 2^SWITCH_CLOCK_BITS."""
    return (time.monotonic_ns() // NS_PER_US) % (1 << SWITCH_CLOCK_BITS)


def stream_cells(session: EbpfSession, name: str) -> dict[int, CounterValue]:
    """One per-stream counter (EBPF_STREAM_COUNTERS) of the profile's streams, and of
    the checker slots of those received on several ports."""
    return {cell: session.tester.stream_counter(name, cell) for cell in _checker_cells(session)}


def _checker_cells(session: EbpfSession) -> list[int]:
    return [cell for s in session.profile.streams for cell in session.checker_cells(s.id)]


def port_cells(session: EbpfSession, direction: str) -> dict[int, CounterValue]:
    """rx_port or tx_port ("rx", "tx") of the topology's ports; tx bytes include the
    generator tag of each generated frame."""
    return {p: session.tester.port_counter(direction, p) for p in session.port_numbers}


def read_counters(session: EbpfSession) -> tuple[CounterSnapshot, ProgramPortCounts]:
    """The program's counters of the profile's streams and the topology's ports, as one
    snapshot (names: EBPF_STREAM_COUNTERS, rx_kind, rx_port, tx_port), and the ports'
    frame counts for the self-check."""
    tester = session.tester
    cells = {name: stream_cells(session, name) for name in _STREAM_COUNTERS}
    streams = _checker_cells(session)
    for name in ("latency_hist", "qdepth_hist"):
        cells[name] = {sid * HIST_CELLS_PER_STREAM + cell: CounterValue(packets, 0)
                       for sid in streams
                       for cell, packets in enumerate(tester.histogram(name, sid))}
    cells["rx_kind"] = {kind: CounterValue(packets, 0)
                        for kind, packets in enumerate(tester.rx_kinds())}
    for direction in ("rx", "tx"):
        cells[f"{direction}_port"] = port_cells(session, direction)
    return CounterSnapshot(cells), ProgramPortCounts(
        rx={p: c.packets for p, c in cells["rx_port"].items()},
        tx={p: c.packets for p, c in cells["tx_port"].items()})


def _latency_sums(registers: StreamRegisters) -> LatencySums:
    """A checker cell's latency registers (the program's clock counts nanoseconds)."""
    return LatencySums(registers.rx_samples, registers.latency_min / NS_PER_US,
                       registers.latency_max / NS_PER_US, registers.latency_sum / NS_PER_US,
                       registers.jitter_sum / NS_PER_US)


def check_frame_fits(session: EbpfSession, stream: StreamConfig, size: int) -> None:
    """A copy leaves the generator's ingress with its tag still on, and the kernel
    drops a redirected frame longer than the TX interface's MTU allows."""
    interface = session.interface(stream.tx_port)
    largest = max_link_frame(interface)
    if largest is not None and size + GENERATOR_TAG_BYTES > largest:
        raise ConfigError(
            f"stream {stream.id}: {size}-B frames do not fit {interface} on target ebpf "
            f"(frames up to {largest - GENERATOR_TAG_BYTES} B: the generator's "
            f"{GENERATOR_TAG_BYTES}-B tag rides on each copy to the TX port); "
            f"{LINK_MTU_HINT}")


def sender_thread(sender: TemplateSender, feeds: Sequence[Feed], stop: threading.Event,
                  done: Callable[[SendReport], None]) -> threading.Thread:
    """A started thread that writes the feeds (stopped by `stop`, or SENDER_SLACK_S
    after their schedule at the latest), pinned to the CPU it starts on and ahead of
    other work there, and hands its report to `done`."""
    limit = max((f.count / f.template_pps for f in feeds), default=0.0) + SENDER_SLACK_S

    def send() -> None:
        stay_on_the_sender_cpu()
        run_ahead_of_other_work()
        done(sender.send_feeds(feeds, limit, stop))

    thread = threading.Thread(target=send, name="ebpf-sender", daemon=True)
    thread.start()
    return thread


class EbpfTrials:
    """The eBPF tester's side of the trial loop. Mutable on purpose: it keeps the
    trial being run (one at a time) and its sender thread."""

    host_bound = True  # the kernel on this host carries the tester's frames
    queues_input = False  # the kernel runs the programs on a frame within its softirq
    poll_s = POLL_S

    def __init__(self, session: EbpfSession, run_value: int,
                 whole: Topology | None = None) -> None:
        self.session = session
        self.run_value = run_value
        # One of several testers (config.testers): the whole topology gives the streams'
        # line rates; this tester sends the streams whose TX port is its own and checks
        # those whose RX port is (tester.tester_group puts their figures together).
        self.whole = whole or session.topology
        self.ports = KernelInterfaceCounters(session.interface)
        self._plans: tuple[EbpfStreamPlan, ...] = ()
        self._received: tuple[StreamConfig, ...] = ()
        # Opened by the first start: a trials object that only serves a self-check's
        # reads (targets.ebpf.flows) opens no socket.
        self._sender: TemplateSender | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._report: SendReport | None = None
        self._stalled: dict[int, tuple[int, int]] = {}

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

    def close(self) -> None:
        self._stop_sender()
        if self._sender is not None:
            self._sender.close()

    # ---- edges -----------------------------------------------------------
    def port_names(self) -> Mapping[int, str]:
        return {n: self.session.interface(n) for n in self.session.port_numbers}

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        return self.ports.read(self.session.port_numbers)

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return read_counters(self.session)

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return self.read_program()  # all of them: a few map reads here

    # ---- sending ---------------------------------------------------------
    def arm(self, spec: TrialSpec) -> ArmedTrial:
        everywhere = trial_streams(self.session.profile, self.whole, spec)
        poisson = sorted(sid for sid, shape in spec.shapes if shape.passes_per_emit > 1)
        if poisson:
            raise ConfigError(f"streams {poisson}: Poisson arrivals are drawn frame by frame "
                              "in the generator, and the eBPF sender paces templates in "
                              f"{SLOT_S * 1000:g}-ms slots; run them on BMv2, or send the load "
                              "smoothly or in bursts here")
        local = set(self.session.port_numbers)
        chosen = tuple((s, pps) for s, pps in everywhere if s.tx_port in local)
        self._received = tuple(s for s, _ in everywhere if set(s.rx_ports) <= local)
        bursts = {sid: shape.frames_per_burst for sid, shape in spec.shapes
                  if shape.frames_per_burst > 1}
        check_burst_spacing(bursts, {s.id: pps for s, pps in chosen})

        def send_rate(sid: int, pps: float, ceiling: float) -> int:
            # Any whole rate of 1 frame/s or more: the sender paces templates, the
            # program counts the frames. A bursts stream: whole bursts (one template
            # each) per second.
            per = bursts.get(sid, 1)
            return min(per * max(1, round(pps / per)), per * max(1, math.floor(ceiling / per)))

        # One of several testers shapes the streams it sends (the group merges them).
        sent = {stream.id for stream, _ in chosen}
        schedule = trial_schedule(
            replace(spec, shapes=tuple((sid, shape) for sid, shape in spec.shapes
                                       if sid in sent)), self.whole, chosen, send_rate)
        epoch = spec.trial_index % EPOCHS
        plans = []
        for stream, pps in chosen:
            size = stream.size_in(spec.frame_size)
            check_frame_fits(self.session, stream, size)
            shaped = schedule.sender(stream.id) if schedule else None
            # A varying stream: one frame per template, each its flow's (flow_templates).
            copies = 1 if stream.vary else bursts.get(stream.id) or copies_per_template(
                pps if shaped is None else shaped.peak_pps, len(chosen), bool(spec.frame_count))
            budget = spec.frame_count or max(1, round(pps * spec.duration_s))
            steps: tuple[tuple[float, float], ...] = ()
            if schedule is not None and shaped is not None:
                budget, pps = shaped.budget, shaped.budget / spec.duration_s
                steps = tuple((step.start_s, float(rate))
                              for step, rate in zip(schedule.steps, shaped.rates_pps, strict=True))
            frame = stream_frame(stream, size, epoch, self.run_value)
            template = tagged(stream, frame)
            cycle = tuple(tagged(stream, f) for f in flow_frames(stream, frame))
            plans.append(EbpfStreamPlan(stream, pps, budget, copies, template, steps,
                                        bursts=stream.id in bursts, cycle=cycle))
        self._plans = tuple(plans)
        tester = self.session.tester
        for plan in self._plans:
            tester.stop_stream(plan.stream.id)
        for stream in self._received:
            tester.expect_stream(stream.id, run=self.run_value, epoch_flags=epoch_flags(epoch),
                                 rx_port=stream.rx_port,
                                 ip_version=IP_VERSION_6 if stream.ipv6 else IP_VERSION_4,
                                 several_ports=stream.receive is not None)
        # Before the opening edge: the trial's figures are differences from here.
        for sid in {p.stream.id for p in self._plans} | {s.id for s in self._received}:
            for cell in self.session.checker_cells(sid):
                tester.clear_stream(cell)
        for plan in self._plans:
            stream = plan.stream
            # Stamped on this tester's clock (a receiving tester's group corrects it).
            tester.set_tx_clock_correction(stream.id, 0)
            tester.set_replication(stream.id, self.session.pipeline.ifindex(
                self.session.interface(stream.tx_port)), plan.copies)
        return ArmedTrial(tuple(Sender(p.stream.id, p.budget, p.rate_pps) for p in self._plans),
                          float(sum(p.rate_pps for p in self._plans)),
                          slow_hint="the host did not run the sender or the program fast "
                          "enough for this rate (make bench-ebpf: its capacity)",
                          schedule=schedule)

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        epoch = spec.trial_index % EPOCHS
        for plan in self._plans:
            self.session.tester.start_stream(plan.stream.id, frames=plan.budget, initial_seq=0,
                                             run=self.run_value, epoch_flags=epoch_flags(epoch))
        self._stop.clear()
        self._report = None
        self._stalled = {}
        if not self._plans:
            return  # one of several testers, sending nothing in this trial
        if self._sender is None:
            self._sender = TemplateSender(self.session.sender_interface)
        self._thread = sender_thread(self._sender, [plan.feed for plan in self._plans],
                                     self._stop, self._reported)

    def read_received(self, stream_ids: Sequence[int]) -> Mapping[int, tuple[int, int]]:
        """Streams this tester checks for another that sends them: what arrived so
        far (the sample's received half, tester.tester_group)."""
        read = {sid: self.session.tester.read_stream_registers(sid) for sid in stream_ids}
        return {sid: (r.rx_samples, r.latency_sum // NS_PER_US) for sid, r in read.items()}

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        """After arm: the stream's stamps on its receiving tester's clock."""
        self.session.tester.set_tx_clock_correction(stream_id, correction_ns)

    def retune(self, trial: ArmedTrial, rates_pps: Mapping[int, float]) -> None:
        """Nothing to write: the sender paces each shaped feed by its steps itself."""
        del trial, rates_pps

    def _reported(self, report: SendReport) -> None:
        self._report = report

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        tester = self.session.tester
        readings = {}
        for sender in senders:
            # `generated` is tx_stream: the frames egress numbered and let out.
            registers = tester.read_stream_registers(sender.key)
            sent = registers.generated
            readings[sender.key] = SentReading(sent, sent, StreamSample(
                switch_time_us(), sent, registers.rx_samples,
                registers.latency_sum // NS_PER_US))
        self._check_stalled(readings, senders)
        return readings

    def _check_stalled(self, readings: Mapping[int, SentReading],
                       senders: Sequence[Sender]) -> None:
        """Once the sender has written everything, a stream whose frames stopped short
        of its budget lost templates on the generator link: say so now, with the
        counts, rather than wait out the trial loop's deadline."""
        report = self._report
        if report is None:
            return
        for sender in senders:
            sent = readings[sender.key].generated
            if sent >= sender.budget:
                continue
            last, polls = self._stalled.get(sender.key, (-1, 0))
            polls = polls + 1 if sent == last else 0
            self._stalled[sender.key] = (sent, polls)
            if polls >= STALLED_POLLS:
                plan = next(p for p in self._plans if p.stream.id == sender.key)
                arrived = self.session.tester.templates_received(sender.key)
                raise GeneratorBehind(
                    f"stream {sender.key} sent {sent} of its {sender.budget} frames: "
                    f"{arrived} of its {plan.feed.count} templates reached the program "
                    f"({report.refused} refused by the kernel, sender "
                    f"{'stopped early' if report.stopped else 'done'}, worst lag "
                    f"{report.worst_lag_s * 1000:.1f} ms): the host dropped templates on the "
                    "generator link")

    def stop(self, trial: ArmedTrial) -> None:
        self._stop_sender()
        for plan in self._plans:
            self.session.tester.stop_stream(plan.stream.id)

    def _stop_sender(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=SENDER_SLACK_S)
            self._thread = None

    # ---- figures ---------------------------------------------------------
    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds:
        return RxKinds.between(before, after, "rx_kind")

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        set_profile_bins(self.session.tester, edges_us)
        self.session.profile = replace(self.session.profile, latency_bins_us=edges_us)

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        return tuple(self._stream_stats(s.id, s.size_in(spec.frame_size), before, after)
                     for s in self._received)

    def _stream_stats(self, sid: int, frame_size: int, before: CounterSnapshot,
                      after: CounterSnapshot) -> StreamStats:
        read = {cell: self.session.tester.read_stream_registers(cell)
                for cell in self.session.checker_cells(sid)}
        edges = self.session.profile.latency_bins_us
        slots = self.session.receive.get(sid)
        if slots is not None:
            return several_port_figures(
                sid, frame_size, before, after, EBPF_STREAM_COUNTERS, slots,
                {cell: _latency_sums(r) for cell, r in read.items()},
                {cell: r.rx_lost for cell, r in read.items()}, edges, QDEPTH_EDGES)
        return stream_figures(sid, frame_size, before, after, EBPF_STREAM_COUNTERS,
                              _latency_sums(read[sid]), read[sid].rx_lost, edges, QDEPTH_EDGES)

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras:
        # No reference stream on this target: the program has no loop port.
        return Extras(unvouched=merged_bursts(self._plans, self._report),
                      sender_bursts=sender_bursts(self._plans, self._report))


class EbpfTrialRunner:
    """TrialRunner on the eBPF tester: the trial loop over EbpfTrials, with the lab
    DUT's check (lab.dut_counters) where the topology has one. One runner is one run:
    it draws the run value its frames carry."""

    def __init__(self, session: EbpfSession, dut: DutCounterSource | None = None) -> None:
        self.session = session
        self.run_value = draw_run_value(())
        self.trials = EbpfTrials(session, self.run_value)
        self.loop = TrialLoop(self.trials,
                              dut if dut is not None else dut_counters_for(session.topology))

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        return self.loop.run_trial(spec)

    def close(self) -> None:
        self.trials.close()


@contextmanager
def open_ebpf_trials(topology: Topology, profile: Profile, *,
                     push_pipeline: bool) -> Iterator[TrialRunner]:
    """The eBPF tester's trial runner: the program loaded onto the tester ports for the
    block (every run loads it afresh: push_pipeline changes nothing), removed after."""
    del push_pipeline
    with EbpfSession(topology, profile) as session:
        runner = EbpfTrialRunner(session)
        try:
            yield runner
        finally:
            runner.close()

