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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig
from p4tester.config.topology import Topology
from p4tester.experiments.runner import TrialSpec
from p4tester.targets.tofino.rates import TimerSchedule
from p4tester.tester.rate_schedule import RateSchedule
from p4tester.tester.stream_plan import trial_schedule

MIN_STEP_PPS: Final = 1.0


@dataclass(frozen=True, slots=True)
class ShapedTrial:
    """A shaped trial's schedule and each shaped stream's timer (each pipe's) in every
    step, for `pipes` generator pipes."""

    schedule: RateSchedule
    steps: Mapping[int, tuple[TimerSchedule, ...]]
    pipes: int

    def timers_at(self, rates_pps: Mapping[int, float]) -> dict[int, TimerSchedule]:
        """Each shaped stream's timer for its rate in a step (what the trial loop's
        retune gets: RateSchedule.rates_at)."""
        timers = {}
        for stream, rate in rates_pps.items():
            timer = next((t for t in self.steps.get(stream, ())
                          if t.achieved_pps * self.pipes == rate), None)
            if timer is None:
                raise ValueError(f"stream {stream}: {rate:.10g} frames/s is none of its steps' "
                                 "rates in this trial's schedule")
            timers[stream] = timer
        return timers


def plan_shaped(spec: TrialSpec, topology: Topology,
                chosen: Iterable[tuple[StreamConfig, float]], frame_sizes: Mapping[int, int],
                pipes: int, timer: Callable[[float, int, int], TimerSchedule],
                ) -> ShapedTrial | None:
    """The shaped trial of `spec` (None without shapes) over the trial's streams
    (`chosen`: stream and frames/s) of these frame sizes (stream -> bytes), made by
    `pipes` generator pipes; `timer(pps, frame_size, pipes)` is the target's
    (TofinoTarget.pipe_timer). Raises ConfigError for a bursts shape: a burst would be
    a batch of the application's timer at the port's line rate, not written yet."""
    bursty = sorted(sid for sid, shape in spec.shapes if shape.frames_per_burst > 1)
    if bursty:
        raise ConfigError(f"streams {bursty}: bursts shapes are not supported on Tofino yet "
                          "(BMv2 and eBPF send them); send the load smoothly, or run the "
                          "bursts on BMv2 or the eBPF tester")
    planned: dict[tuple[int, float], TimerSchedule] = {}

    def send_rate(stream: int, pps: float, ceiling: float) -> float:
        step = timer(max(MIN_STEP_PPS, min(pps, ceiling)), frame_sizes[stream], pipes)
        rate = step.achieved_pps * pipes
        planned.setdefault((stream, rate), step)
        return rate

    schedule = trial_schedule(spec, topology, chosen, send_rate)
    if schedule is None:
        return None
    steps = {sender.key: tuple(planned[sender.key, rate] for rate in sender.rates_pps)
             for sender in schedule.senders}
    return ShapedTrial(schedule, steps, pipes)
