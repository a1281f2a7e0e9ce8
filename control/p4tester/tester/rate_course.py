"""What a shaped stream offered and received, step by step (issue 24, item 5).

The trial loop moves the target to each step of the schedule (tester.rate_schedule)
when the step is due and notes when it did; it reads every stream's registers each
poll, as for any trial (tester.trial_course), and notes when it read them. A step's
figures come from the samples read inside it (after it was applied, before the next
one was): frames sent and received between the first and the last of them, over the
switch's clock between them. A step with fewer than two samples inside has no
figures. The first moments of a step (up to one poll) are left out: frames the
previous rate still sent.

A shaped trial proves its load step by step: each step's measured rate within the
tolerances a constant trial's rate has (tester.trial_course), and no burst beyond the
step's rate; a step that did not is the tester's limit, never the DUT's result. A
generator a few frames behind at a step's end (within tolerance) repays them in the
next step's first moments: those frames are the earlier step's, not the next one's
excess (a CI run under load: 1592 of 1600 frames/s, then 410 of 400).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from p4tester.results.model import RateStep
from p4tester.streams.shapes import ShapeStep
from p4tester.tester.rate_schedule import ScheduledSender
from p4tester.tester.trial_course import (
    BURST_TOLERANCE,
    BURST_TOLERANCE_FRAMES,
    RATE_TOLERANCE,
    RATE_TOLERANCE_FRAMES,
    StreamSample,
    switch_seconds,
)

# A random count (Poisson arrivals) is off its mean by more than 4 standard deviations
# once in 16 000 reads: a trial of a few hundred reads almost never calls chance a stall.
CHANCE_SDS: Final = 4.0


@dataclass(frozen=True, slots=True)
class TimedSample:
    """A stream's sample, with when the trial loop read it (seconds since the senders
    started, on the controller's clock)."""

    at_s: float
    sample: StreamSample


def rate_course(sender: ScheduledSender, steps: Sequence[ShapeStep], held_s: Sequence[float],
                samples: Sequence[TimedSample]) -> tuple[RateStep, ...]:
    """Each step of `sender`: the schedule's start, duration and rate, and what the
    samples read while it held show. `held_s`: when each step's rate took hold (a step
    never applied, because the senders finished first, has no figures)."""
    course = []
    for index, step in enumerate(steps):
        inside: list[StreamSample] = []
        if index < len(held_s):
            begin = held_s[index]
            end = held_s[index + 1] if index + 1 < len(held_s) else float("inf")
            inside = [t.sample for t in samples
                      if begin < t.at_s < end and t.sample.sent < sender.budget]
        course.append(_step(step.start_s, step.duration_s, sender.rates_pps[index], inside))
    return tuple(course)


def _step(start: float, duration: float, rate: float,
          inside: Sequence[StreamSample]) -> RateStep:
    if len(inside) < 2:
        return RateStep(start, duration, float(rate), None, None)
    span = switch_seconds(inside[0], inside[-1])
    if span <= 0:
        return RateStep(start, duration, float(rate), None, None)
    burst = max((later.sent - earlier.sent) - rate * switch_seconds(earlier, later)
                for earlier, later in pairwise(inside))
    return RateStep(start, duration, float(rate), (inside[-1].sent - inside[0].sent) / span,
                    (inside[-1].rx_samples - inside[0].rx_samples) / span, span,
                    max(int(burst), 0))


def course_not_offered(stream_id: int, course: Sequence[RateStep], poll_s: float,
                       burst_frames: int = 1, count_variance: float = 0.0) -> str:
    """Why a shaped stream did not offer its steps ('' when it did): the first step
    whose measured rate missed its rate, or that burst beyond it, over the tolerances
    of a constant trial. A stream sending bursts of `burst_frames` may be a burst ahead
    of (or behind) its rate at any sample, by design: that much more is allowed. A
    stream whose count is random (`count_variance` per frame due: Poisson arrivals)
    may be off by chance: CHANCE_SDS standard deviations of the count more. Frames a
    step fell short of its rate (within its tolerance) may come in the next step's
    first moments, as a constant trial's lag is repaid later in it: that step may send
    that many more."""
    designed = burst_frames if burst_frames > 1 else 0

    def chance(frames: float) -> float:
        return CHANCE_SDS * math.sqrt(max(frames, 0.0) * count_variance)

    owed = 0.0
    for index, step in enumerate(course):
        if step.sent_pps is None:
            owed = 0.0
            continue
        span = step.measured_s
        asked = step.intended_pps * span
        sent = step.sent_pps * span
        # Samples fall anywhere in a burst: the frames between two are off by up to one.
        allowed = max(RATE_TOLERANCE * asked, RATE_TOLERANCE_FRAMES) + designed + chance(asked)
        # What the step before fell short (within its tolerance) leaves in the first
        # moments of this one: its frames, not this step's excess. Never a shortfall's
        # excuse: a step short of its rate is short whatever came before.
        excess_allowed = allowed + owed
        if sent - asked > excess_allowed or asked - sent > allowed:
            return (f"stream {stream_id} offered {step.sent_pps:.0f} frames/s in step {index} "
                    f"(from {step.start_s:g} s), not its {step.intended_pps:g} (measured on "
                    f"the switch's clock over {span:.2f} s)")
        burst_allowed = _step_burst_allowed(step, poll_s, burst_frames, count_variance)
        if step.max_burst_frames > burst_allowed:
            return (f"stream {stream_id} sent {step.max_burst_frames} frames beyond its "
                    f"{step.intended_pps:g} frames/s in one {poll_s:g}-s interval of step "
                    f"{index} (its generator stalled and caught up; {burst_allowed:.0f} allowed)")
        owed = max(asked - sent, 0.0)
    return ""


def _step_burst_allowed(step: RateStep, poll_s: float, burst_frames: int,
                        count_variance: float) -> float:
    """Frames a step may send beyond its rate in one sample interval: a constant
    trial's tolerance, plus the bursts and the chance it has by design (above)."""
    designed = burst_frames if burst_frames > 1 else 0
    chance = CHANCE_SDS * math.sqrt(max(step.intended_pps * poll_s, 0.0) * count_variance)
    return max(BURST_TOLERANCE * step.intended_pps * poll_s, BURST_TOLERANCE_FRAMES) \
        + designed + chance


def course_overdriven(course: Sequence[RateStep], poll_s: float, burst_frames: int = 1,
                      count_variance: float = 0.0) -> bool:
    """A step burst beyond what it allows (course_not_offered): traffic harsher than
    asked."""
    return any(step.sent_pps is not None
               and step.max_burst_frames > _step_burst_allowed(step, poll_s, burst_frames,
                                                               count_variance)
               for step in course)
