"""Trials on a Tofino switch: the TrialRunner the experiments use, over TofinoTarget.

Rates are not rounded to whole frames per second as on BMv2: the generator's timer
makes fractional rates, and each application reports the rate it really makes
(AppPlan.schedule), which is what TrialResult.offered_pps sums.

A shaped trial (issue 24, item 5) runs its shaped streams in steps: arm plans the
schedule as the other targets do, each step's rate the one its generator timer makes
(shaping.py), and retune changes the timers of their applications while they run. A
bursts stream's burst is one trigger's batch from one generator (shaping.py, apps.py);
a Poisson stream's arrivals are a fast grid thinned by a random draw in ingress
(poisson.py), its schedule's count variance the chance the trial allows.
Each read of the generators is a sample on the switch's clock (driver.generated), so
a trial proves its offered load and a shaped one's steps are measured, as on BMv2.

A trial runs through the one trial loop (tester.trial_loop), as on BMv2: it checks
itself (issue 10), the ports' MAC counters ($PORT_STAT, port_stats.MacPortCounters)
against the program's rx_port / tx_port, read on both sides of the program's at each
edge (tester.selfcheck says why) and re-read a few times before a difference is
believed. A trial where the tester lost frames itself, or whose generators did not
make their budgets in time, is invalid, "tester-limited".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import EPOCHS
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.results.model import StreamStats, TrialResult
from p4tester.streams.template import FrameSpec, build_template
from p4tester.targets.tofino import field_steps, names
from p4tester.targets.tofino.bfrt import BfrtClient
from p4tester.targets.tofino.chip import Chip, chip_named
from p4tester.targets.tofino.driver import ReceivedSoFar, StreamPorts, TofinoTarget
from p4tester.targets.tofino.port_stats import MacPortCounters
from p4tester.targets.tofino.ports import PortSettings
from p4tester.targets.tofino.shaping import ShapedTrial, plan_shaped
from p4tester.tester.port_counters import InterfaceCounters, PortCounterSource
from p4tester.tester.receive_slots import plan_receive_slots
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.stream_plan import trial_streams
from p4tester.tester.trial_course import StreamSample
from p4tester.tester.trial_loop import (
    QDEPTH_EDGES,
    ArmedTrial,
    Extras,
    RxKinds,
    TrialLoop,
)

POLL_S: Final = 0.2
# rx_lost is 32 bits: at 100G and 64 B, 2^32 lost frames take 29 s.
LOST_POLL_S: Final = 10.0


def target_from_config(client: BfrtClient, topology: Topology, profile: Profile,
                       whole: Topology | None = None) -> TofinoTarget:
    """The Tofino target of a topology's switch; with `whole`, of one of its several
    testers (`topology`: that tester's, Topology.tester): the profile's streams that
    leave from or arrive at its ports."""
    if topology.switch.target != "tofino":
        raise ConfigError(f"{topology.source or topology.name}: switch target is "
                          f"{topology.switch.target!r}; the Tofino runner needs target: tofino")
    where = f"{topology.source or topology.name}: switch"
    chip = chip_named(topology.switch.chip, where)
    check_stream_features(profile, chip)
    own = {p.number for p in topology.ports}
    elsewhere = {p.number for p in whole.ports} - own if whole is not None else set()
    touching = [s for s in profile.streams if s.tx_port in own or set(s.rx_ports) <= own]
    streams = [StreamPorts(s.id, s.tx_port, s.rx_port) for s in touching]
    # Slots are planned over every stream (their cells must not be another's id);
    # this tester writes those of the streams it checks.
    receive = plan_receive_slots(profile.streams, {s.id for s in profile.streams},
                                 cells=names.MAX_STREAMS, target="Tofino")
    checked_here = {s.id for s in touching if set(s.rx_ports) <= own}
    return TofinoTarget(client, streams, {p.number: p.front_panel for p in topology.ports},
                        receive={s: slots for s, slots in receive.items() if s in checked_here},
                        chip=chip, port_settings=port_settings(topology, chip),
                        elsewhere=elsewhere)


def unsupported_features(stream: StreamConfig, chip: Chip) -> list[str]:
    """What a stream asks for that the Tofino program does not do: its parser stops
    before a tunnel's inner headers (p4src/common/constants.p4), it varies addresses
    and ports on Tofino 2 only and no other field (field_steps.vary_problems), and it
    has no resizing of BMv2's generator (random frame sizes, v1model/generator.p4's
    tx_resize). Such frames would leave unstamped, or at the template's one size."""
    return [
        *(["a tunnel"] if stream.tunnel is not None else []),
        *field_steps.vary_problems(stream, chip.varies_fields),
        *(["random frame sizes (size.random)"] if stream.size_cut > 0 else [])]


def check_stream_features(profile: Profile, chip: Chip) -> None:
    """Refuse a profile whose streams use what the Tofino program does not do."""
    for stream in profile.streams:
        unsupported = unsupported_features(stream, chip)
        if unsupported:
            raise ConfigError(f"{profile.source}: stream {stream.id}: {', '.join(unsupported)} "
                              f"not supported on {chip.label} (BMv2 supports it); "
                              "drop it from the stream")


def port_settings(topology: Topology, chip: Chip) -> dict[int, PortSettings] | None:
    """Each port's speed, FEC and lanes on a Tofino 2, from its line rate: 400G, or
    200G, 100G, 50G channels of a 400G cage. None on Tofino 1: every port at 100G with
    RS-FEC, whatever its line_rate says (the driver as it was written for Tofino 1)."""
    if chip.lanes_per_cage is None:
        return None
    settings = {}
    for port in topology.ports:
        try:
            speed = chip.port_speed(port.line_rate_bps, port.front_panel)
        except ConfigError as exc:
            raise ConfigError(f"{topology.source or topology.name}: port {port.number}: "
                              f"{exc}") from None
        settings[port.number] = PortSettings(speed.speed, speed.fec, lanes=speed.lanes)
    return settings


def stream_template(stream: StreamConfig, frame_size: int, epoch: int = 0,
                    run: int = 0) -> bytes:
    """The frame a stream's generator application sends. Egress stamps the stream id
    (the multicast rid), so every template carries id 0: equal streams share one. The
    run value and the trial's epoch go into the header: the checker counts frames of
    another run or trial as stale (the driver writes each stream's expectation from
    its template)."""
    return build_template(FrameSpec(stream_id=0, frame_size=frame_size,
                                    addresses=stream.addresses, epoch=epoch, run=run,
                                    encapsulation=stream.encapsulation))


class TofinoTrials:
    """A Tofino tester's side of the trial loop (tester.trial_loop). Mutable on purpose:
    it keeps the budgets of the trial being run and when rx_lost was last polled."""

    host_bound = False  # the switch's ASIC, not this host, carries the traffic
    queues_input = False  # the pipeline counts a frame as its MAC delivers it
    poll_s = POLL_S

    def __init__(self, target: TofinoTarget, topology: Topology, profile: Profile,
                 ports: PortCounterSource, run_value: int,
                 clock: Callable[[], float], whole: Topology | None = None) -> None:
        """`whole`: the topology of several testers this one belongs to (its streams'
        line rates); this switch sends the streams whose TX port is its own and checks
        those whose RX ports are (tester.tester_group puts their figures together)."""
        self.target = target
        self.topology = topology
        self.whole = whole or topology
        self.grouped = whole is not None
        self.profile = profile
        self.ports = ports
        self.run_value = run_value
        self._clock = clock
        self._budgets: dict[int, int] = {}
        self._shaped: ShapedTrial | None = None
        self._last_lost_poll = 0.0

    @property
    def drain_s(self) -> float:
        return self.profile.trial.drain_s

    @property
    def settle_s(self) -> float:
        return self.profile.trial.settle_s

    @property
    def settle_max_s(self) -> float:
        return self.profile.trial.settle_max_s

    @property
    def dut_between(self) -> bool:
        return self.topology.dut.kind != "loopback"

    def _port_numbers(self) -> tuple[int, ...]:
        return tuple(sorted(self.target.dev_ports))

    def port_names(self) -> Mapping[int, str]:
        return {p: self.ports.interface(p) for p in self._port_numbers()}

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        return self.ports.read(self._port_numbers())

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return self.target.snapshot(), self.target.port_counts()

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return self.read_program()  # all of them, as the edges read them

    def arm(self, spec: TrialSpec) -> ArmedTrial:
        everywhere = trial_streams(self.profile, self.whole, spec)
        here = self.target.sent | self.target.checked
        sizes = {stream.id: stream.size_in(spec.frame_size) for stream, _ in everywhere}
        # The driver writes each stream's expectation from its template (those this
        # tester checks): before the opening edge, so only this trial's frames count
        # from then on.
        self.target.set_templates({
            stream.id: stream_template(stream, sizes[stream.id], spec.trial_index % EPOCHS,
                                       self.run_value)
            for stream, _ in everywhere if stream.id in here})
        chosen = [(stream, pps) for stream, pps in everywhere if stream.id in self.target.sent]
        # One of several testers shapes the streams it sends (the group merges them).
        own = {stream.id for stream, _ in chosen}
        if self.grouped:
            spec = replace(spec, shapes=tuple((sid, shape) for sid, shape in spec.shapes
                                              if sid in own))
        shaped = plan_shaped(spec, self.whole, chosen, sizes,
                             len(self.target.generator_pipes(own)), self.target.pipe_timer,
                             self.target.burst_timer, self.target.poisson_timer,
                             self.target.chip.pktgen_bps)
        self._shaped = shaped
        rates = {stream.id: pps for stream, pps in chosen}
        self._budgets = {sid: spec.frame_count or max(1, round(pps * spec.duration_s))
                         for sid, pps in rates.items()}
        means: dict[int, float] = {}
        if shaped is not None:
            for sender in shaped.schedule.senders:
                self._budgets[sender.key] = sender.budget
                means[sender.key] = sender.budget / spec.duration_s
        self.target.set_stream_rates(rates, shaped.steps if shaped else None,
                                     shaped.bursts if shaped else None,
                                     shaped.thinning if shaped else None)
        # One sender per stream (its application's packets are each of its streams'
        # frames): a shaped stream's rate is its mean (a Poisson one's: what its draw
        # keeps of its grid), the others' what their timers make.
        senders = tuple(Sender(s, self._budgets[s], means.get(s, app.achieved_pps))
                        for app in self.target.apps for s in app.stream_ids)
        return ArmedTrial(
            senders, sum(s.rate_pps for s in senders),
            what="streams",
            slow_hint="is the program loaded and the pktgen port enabled?",
            schedule=shaped.schedule if shaped else None)

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        self._last_lost_poll = self._clock()
        self.target.start_trial(self._budgets)

    def retune(self, trial: ArmedTrial, rates_pps: Mapping[int, float]) -> None:
        """A shaped trial's next step: the timers of the shaped streams' applications,
        changed while they run (pktgen.retime_app says what the hardware does)."""
        if self._shaped is None:
            raise RuntimeError("retune() of a trial without shapes: arm() planned none")
        self.target.retime_streams(self._shaped.timers_at(rates_pps))

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        made = self.target.generated()
        # A stream another tester checks: its sample's received half is read there
        # (tester.tester_group); here it is none.
        received = self.target.received(s.key for s in senders
                                        if s.key in self.target.checked)
        now = self._clock()
        if now - self._last_lost_poll >= LOST_POLL_S:
            self.target.poll_lost()
            self._last_lost_poll = now
        # The pktgen port sends what an application makes, and each of its packets is
        # one frame of each of its streams: made is sent. Each count comes with the
        # switch clock it held (driver.generated): the sample that proves the load.
        app_of = {s: a.app_id for a in self.target.apps for s in a.stream_ids}
        readings = {}
        for sender in senders:
            count = made.get(app_of[sender.key])
            if count is None or count.switch_time is None:
                readings[sender.key] = SentReading(0)  # nothing counted yet: no time
                continue
            rx = received.get(sender.key, ReceivedSoFar(0, 0))
            readings[sender.key] = SentReading(count.made, sample=StreamSample(
                count.switch_time, count.made, rx.frames, rx.latency_sum_us))
        return readings

    def stop(self, trial: ArmedTrial) -> None:
        self.target.stop_trial()

    # ---- as one tester of several (tester.tester_group.ClockedTarget) -----------
    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        """The receiving tester's clock offset, added to the stream's TX stamps."""
        self.target.set_tx_clock_correction(stream_id, correction_ns)

    def read_received(self, stream_ids: Sequence[int]) -> Mapping[int, tuple[int, int]]:
        """Streams this tester checks for another that sends them: what arrived so
        far, and their latencies' sum in us (what the trial loop's samples hold, as
        this tester's own samples and the other targets' do)."""
        return {sid: (rx.frames, rx.latency_sum_us)
                for sid, rx in self.target.received(stream_ids).items()}

    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds:
        return RxKinds.between(before, after, names.RX_KIND)

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        self.target.set_latency_bins(edges_us)  # the readout bins by what was written

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        return self.target.stream_stats(before, after)

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras:
        return Extras()


class TofinoTrialRunner:
    """TrialRunner on a Tofino tester: the trial loop over TofinoTrials; open() once
    before the first trial.

    `ports`: where the tester ports' own counters come from; by default their MAC
    counters through the target's BfRt client. A port without them (None from the
    source) gives trials without a self-check. `run_value`: the header's run byte
    for this run's frames (dataplane.run_identity; drawn at random by default).
    """

    def __init__(self, target: TofinoTarget, topology: Topology, profile: Profile, *,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 ports: PortCounterSource | None = None,
                 run_value: int | None = None) -> None:
        self.target = target
        self.run_value = draw_run_value(()) if run_value is None else run_value
        self.profile = profile
        self.ports: PortCounterSource = ports or MacPortCounters(
            target.client, lambda: target.dev_ports, target.front_panel)
        self.loop = TrialLoop(TofinoTrials(target, topology, profile, self.ports,
                                           self.run_value, clock), sleep=sleep, clock=clock)

    def open(self) -> None:
        open_target(self.target, self.profile)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        return self.loop.run_trial(spec)


def open_target(target: TofinoTarget, profile: Profile) -> None:
    """The target's ports up and its tables cleared for a run, its bins written."""
    sent = [s for s in profile.streams if s.id in target.sent]
    target.prepare([s.id for s in sent], [s.tx_port for s in sent])
    target.set_latency_bins(profile.latency_bins_us)
    target.set_qdepth_bins(QDEPTH_EDGES)


@contextmanager
def open_tofino_trials(topology: Topology, profile: Profile, *,
                       push_pipeline: bool) -> Iterator[TrialRunner]:
    """A Tofino tester's trial runner over the SDE's BfRt client (imported only now);
    bf_switchd loads the program from its --conf-file: there is nothing to push, and a
    request to is refused rather than ignored."""
    if push_pipeline:
        raise ConfigError(
            "--push-pipeline: a Tofino switch runs the program bf_switchd loaded from its "
            "--conf-file, which no client can replace; start bf_switchd with the tester's "
            "program (docs/tofino.md) and run without --push-pipeline")
    from p4tester.targets.tofino.sde_client import SdeBfrtClient

    client = SdeBfrtClient(topology.switch.grpc, device_id=topology.switch.device_id)
    try:
        runner = TofinoTrialRunner(target_from_config(client, topology, profile),
                                   topology, profile)
        runner.open()
        yield runner
    finally:
        client.close()
