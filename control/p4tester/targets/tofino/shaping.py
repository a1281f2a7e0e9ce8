"""A shaped trial on Tofino (issue 24, item 5): each step's rate as generator timers.

The schedule is built as on the other targets (tester.stream_plan.trial_schedule);
what Tofino sends for a step's rate is what a timer makes: the generator pipes of the
trial each run a timer (apps.pipe_timer) whose period is a whole number of core
cycles, so the stream gets achieved_pps x pipes, fractional and within the timer
search's tolerance of the shape's mean over the step. The schedule records that
rate as the step's intended rate, and its frames follow from it, so a stream's budget
is its steps' frames together, to the frame. The step timers are kept here, so a step
writes the very timer whose rate the schedule recorded.

A step's rate is at least MIN_STEP_PPS (a shape's trough may ask for none), as on
BMv2 and eBPF: an application keeps running between steps.

A bursts shape (micro-bursts) is one generator's timer (apps.py says why one): each
trigger one batch of N packets, back to back (no inter-packet gap: the generator makes
them at its port's 100 Gbit/s, and the TX port's queue lets them out at its line rate,
at most that), every N / load (rates.burst_schedule), so the rate is N per period:
whole bursts per period, fractional per second, as every Tofino rate is. Ingress
counts the budget per frame, so a budget that is not whole bursts ends with a short
one, as on BMv2 and eBPF. The largest burst is the shape's MAX_BURST_FRAMES (63, the
eBPF tester's limit, checked where the shape is parsed); Tofino's own bounds are far
above it: 65,536 packets per batch, and a burst must fit the TX port's queue.

A Poisson shape (poisson.py) runs a grid timer in each generator pipe, one packet per
trigger about K times faster than the stream's share, and ingress drops the packets
whose random draw is below the stream's drop_below: the schedule records the mean the
grid and the threshold make (the grid's rate x the share kept), and each sender's
count variance is the threshold's binomial 1 - kept share, so the trial allows its
count chance (tester.rate_course). The multiplier is 1, so every step has the same
timer and threshold: a Poisson stream is never retimed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig
from p4tester.config.stream_rates import port_line_pps
from p4tester.config.topology import Topology
from p4tester.experiments.runner import TrialSpec
from p4tester.streams.rates import format_bitrate
from p4tester.targets.tofino.hardware import PKTGEN_PORT_BPS
from p4tester.targets.tofino.poisson import ThinnedTimer, thinned_timer
from p4tester.targets.tofino.rates import TimerSchedule, pktgen_capacity_pps
from p4tester.tester.rate_schedule import RateSchedule
from p4tester.tester.stream_plan import trial_schedule

MIN_STEP_PPS: Final = 1.0


@dataclass(frozen=True, slots=True)
class ShapedTrial:
    """A shaped trial's schedule and each shaped stream's timer (each pipe's, for
    `pipes` generator pipes; a bursts stream's: its one generator's) in every step;
    `bursts`: each bursts stream's frames per burst; `thinning`: each Poisson stream's
    drop_below (poisson.py)."""

    schedule: RateSchedule
    steps: Mapping[int, tuple[TimerSchedule, ...]]
    pipes: int
    bursts: Mapping[int, int]
    thinning: Mapping[int, int] = field(default_factory=dict)

    def timers_at(self, rates_pps: Mapping[int, float]) -> dict[int, TimerSchedule]:
        """Each shaped stream's timer for its rate in a step (what the trial loop's
        retune gets: RateSchedule.rates_at)."""
        timers = {}
        for stream, rate in rates_pps.items():
            sender = self.schedule.sender(stream)
            rates = sender.rates_pps if sender is not None else ()
            timer = next((t for r, t in zip(rates, self.steps.get(stream, ()), strict=False)
                          if r == rate), None)
            if timer is None:
                raise ValueError(f"stream {stream}: {rate:.10g} frames/s is none of its steps' "
                                 "rates in this trial's schedule")
            timers[stream] = timer
        return timers


def plan_shaped(spec: TrialSpec, topology: Topology,
                chosen: Iterable[tuple[StreamConfig, float]], frame_sizes: Mapping[int, int],
                pipes: int, timer: Callable[[float, int, int], TimerSchedule],
                burst_timer: Callable[[float, int, int, float], TimerSchedule],
                poisson_timer: Callable[[float, int, int, int], ThinnedTimer] = thinned_timer,
                pktgen_bps: float = PKTGEN_PORT_BPS,
                ) -> ShapedTrial | None:
    """The shaped trial of `spec` (None without shapes) over the trial's streams
    (`chosen`: stream and frames/s) of these frame sizes (stream -> bytes), made by
    `pipes` generator pipes; `timer(pps, frame_size, pipes)` is the target's
    (TofinoTarget.pipe_timer), `burst_timer(pps, frame_size, frames, ceiling_pps)` its
    bursts' (TofinoTarget.burst_timer), `poisson_timer(pps, frame_size, grid, pipes)`
    its Poisson streams' (TofinoTarget.poisson_timer). Raises ConfigError for bursts
    on a TX port faster than a generator (`pktgen_bps`: the chip's, chip.Chip)."""
    streams = [(stream, pps) for stream, pps in chosen]
    bursts = {sid: shape.frames_per_burst for sid, shape in spec.shapes
              if shape.frames_per_burst > 1}
    grids = {sid: shape.passes_per_emit for sid, shape in spec.shapes
             if shape.passes_per_emit > 1}
    _check_burst_ports(spec, topology, [s for s, _ in streams if s.id in bursts], frame_sizes,
                       pktgen_bps)
    planned: dict[tuple[int, float], TimerSchedule] = {}
    thinned: dict[tuple[int, float], ThinnedTimer] = {}

    def send_rate(stream: int, pps: float, ceiling: float) -> float:
        wanted = max(MIN_STEP_PPS, min(pps, ceiling))
        if stream in grids:
            grid = poisson_timer(wanted, frame_sizes[stream], grids[stream], pipes)
            rate = grid.mean_pps * pipes
            thinned.setdefault((stream, rate), grid)
            planned.setdefault((stream, rate), grid.timer)
            return rate
        if stream in bursts:
            step = burst_timer(wanted, frame_sizes[stream], bursts[stream], ceiling)
            rate = step.achieved_pps  # one generator
        else:
            step = timer(wanted, frame_sizes[stream], pipes)
            rate = step.achieved_pps * pipes
        planned.setdefault((stream, rate), step)
        return rate

    schedule = trial_schedule(spec, topology, streams, send_rate)
    if schedule is None:
        return None
    steps = {sender.key: tuple(planned[sender.key, rate] for rate in sender.rates_pps)
             for sender in schedule.senders}
    thinning = {}
    senders = []
    for sender in schedule.senders:
        if sender.key in grids:
            # A Poisson shape's multiplier is 1: every step has the first step's grid.
            grid = thinned[sender.key, sender.rates_pps[0]]
            thinning[sender.key] = grid.drop_below
            # The chance the trial allows: the threshold's, not the grid's 1 - 1/K.
            sender = replace(sender, count_variance=grid.count_variance)
        senders.append(sender)
    return ShapedTrial(replace(schedule, senders=tuple(senders)), steps, pipes, bursts,
                       thinning)


def _check_burst_ports(spec: TrialSpec, topology: Topology, streams: Iterable[StreamConfig],
                       frame_sizes: Mapping[int, int], pktgen_bps: float) -> None:
    """A burst leaves back to back at its TX port's line rate only if one generator
    makes frames at least that fast: the generator's port is 100 Gbit/s on Tofino 1
    (400 Gbit/s assumed on Tofino 2)."""
    for stream in streams:
        size = frame_sizes[stream.id]
        line = port_line_pps(topology, stream, spec.frame_size)
        made = pktgen_capacity_pps(size, pktgen_bps)
        if line > made * (1 + 1e-9):
            raise ConfigError(
                f"stream {stream.id}: bursts on TX port {stream.tx_port} ({line:.0f} frames/s "
                f"of {size} B at line rate) would leave at one packet generator's "
                f"{made:.0f} frames/s, not back to back: send the bursts from a port of "
                f"{format_bitrate(pktgen_bps)} or less, or send this stream smoothly")
