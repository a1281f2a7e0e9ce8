"""A shaped trial's steps: each shaped stream's rate and frames per step, as its target
sends them (issue 24, item 5).

A trial whose spec gives streams a shape (streams.shapes) runs each of them in steps
of constant rate. The target decides how a rate is sent (BMv2 in whole frames per
second, multiples of a loop's frames per pass, never above the stream's line rate
share; Tofino the rate a generator timer makes, fractional); the schedule keeps the
rate it will send as the step's intended rate, and the
frames of each step follow from the rates by cumulative rounding, so a stream's budget
is its steps' frames together, to the frame. The trial loop (tester.trial_loop) moves
the target from step to step; the course (tester.rate_course) measures each step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from p4tester.streams.shapes import ShapeStep, TrafficShape, shape_steps


@dataclass(frozen=True, slots=True)
class ScheduledSender:
    """One shaped stream: its rate and frames in each step of the schedule."""

    key: int
    rates_pps: tuple[float, ...]
    frames: tuple[int, ...]
    burst_frames: int = 1  # frames it sends back to back at a time (a bursts shape's)
    # The variance of its count where n frames are due, over n (a Poisson shape's
    # thinning: 1 - 1/grid); 0: the count is the schedule's.
    count_variance: float = 0.0

    @property
    def budget(self) -> int:
        return sum(self.frames)

    @property
    def peak_pps(self) -> float:
        return max(self.rates_pps)


@dataclass(frozen=True, slots=True)
class RateSchedule:
    """The steps of one shaped trial (from its senders' start), and its shaped senders.
    `leads_s`: how long before its start each step must be applied for its rate to take
    hold at its start (a target whose rate changes only after frames it already
    scheduled went out; () for none)."""

    steps: tuple[ShapeStep, ...]
    senders: tuple[ScheduledSender, ...]
    leads_s: tuple[float, ...] = ()

    def applied_from(self, step: int) -> float:
        """When (since the senders started) the loop applies `step`."""
        lead = self.leads_s[step] if self.leads_s else 0.0
        return max(0.0, self.steps[step].start_s - lead)

    def rates_at(self, step: int) -> dict[int, float]:
        """Each shaped sender's rate in `step` (0-based)."""
        return {sender.key: sender.rates_pps[step] for sender in self.senders}

    def sender(self, key: int) -> ScheduledSender | None:
        return next((s for s in self.senders if s.key == key), None)


def build_schedule(shapes: Mapping[int, TrafficShape], base_pps: Mapping[int, float],
                   ceilings_pps: Mapping[int, float], duration_s: float, step_s: float,
                   send_rate: Callable[[int, float], float]) -> RateSchedule:
    """The schedule of the streams in `shapes` (key -> shape) around their base rates
    (`base_pps`, the load); `send_rate(key, pps)` is the rate the target sends for
    `pps` (at least 1). All shapes step together, every `step_s`. Raises ValueError
    for a shape whose highest rate is above the stream's ceiling (its share of line
    rate), naming the load that would fit."""
    for key, shape in sorted(shapes.items()):
        peak = base_pps[key] * shape.highest
        if peak > ceilings_pps[key] * (1 + 1e-9):
            raise ValueError(
                f"stream {key}: the shape {shape.describe()} peaks at {shape.highest:g} x its "
                f"load of {base_pps[key]:.0f} frames/s = {peak:.0f} frames/s, above its "
                f"{ceilings_pps[key]:.0f} frames/s of line rate; lower the load to at most "
                f"{ceilings_pps[key] / shape.highest:.0f} frames/s or the shape's "
                f"{'peak' if shape.kind == 'flash-crowd' else 'amplitude'}")
    steps = shape_steps(next(iter(shapes.values())), duration_s, step_s) if shapes else ()
    senders = []
    for key, shape in sorted(shapes.items()):
        rates = tuple(send_rate(key, base_pps[key] * shape.mean_between(
            step.start_s, step.start_s + step.duration_s)) for step in steps)
        frames = []
        cumulative = 0.0
        for rate, step in zip(rates, steps, strict=True):
            before = round(cumulative)
            cumulative += rate * step.duration_s
            frames.append(round(cumulative) - before)
        if sum(frames) < 1:
            frames[-1] = 1
        senders.append(ScheduledSender(key, rates, tuple(frames), shape.frames_per_burst,
                                       shape.count_variance))
    return RateSchedule(steps, tuple(senders))
