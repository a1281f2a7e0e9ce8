"""Traffic shapes: a stream's rate as a function of time (issue 24, item 5).

A shape multiplies a stream's load (its base rate) by m(t):

- constant: 1.
- sine: 1 + a sin(2 pi t / T): starts at the load, rising.
- triangle: from 1 - a up to 1 + a in half a period, and back down.
- sawtooth: from 1 - a up to 1 + a over each period, then drops.
- square: 1 + a for the first half of each period, 1 - a for the second.
- flash crowd: 1 until `start`, rises linearly to `peak` over `rise`, then decays back
  towards 1 with time constant `decay` (a surge of users: a news item, a sale).
- bursts: 1, offered as bursts of `frames` frames back to back at the port's line
  rate, one burst every frames / load seconds (micro-bursts: the mean is the load, the
  DUT must buffer each burst). The gap between bursts follows from the load, so a
  search or a soak over the load keeps the bursts and moves the gap.
- poisson: 1, offered as random arrivals: the generator's loop runs `grid` times
  faster than the load and each pass sends a frame with probability 1 / grid (a
  random draw in the data plane, as hardware testers thin a fast generator). Gaps are
  then geometric on the loop's grid: their mean is 1 / load and their coefficient of
  variation sqrt(1 - 1/grid) (0.87 at the default 4, 0.99 at 64; exponential gaps, a
  true Poisson process, have 1). The budget stays exact: a trial sends its frames,
  and its length varies by chance, as a Poisson process's count would.

The periodic shapes average exactly 1 over whole periods, so the load is their mean
rate; a flash crowd's load is its base. The amplitude a is a share of the load, 0..1
(1: the rate touches 0 in the troughs).

Targets offer a rate shape in steps of constant rate (a BMv2 queue rate, a Tofino
generator timer, the eBPF sender's pacing): each step's rate is the shape's mean over
that step (`cumulative`), so the frames a shaped trial sends are the frames the
shape asks for, whatever the step. Bursts are made by the generator itself: a burst is
the frames one generator loop pass makes (BMv2) or the copies of one template (eBPF),
so a burst is at most MAX_BURST_FRAMES frames.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise
from typing import Final

from p4tester.dataplane.constants import MAX_FRAMES_PER_PASS, MAX_PASSES_PER_EMIT


class ShapeError(ValueError):
    """A shape that does not parse or whose parameters are out of range."""


class ShapeKind(StrEnum):
    CONSTANT = "constant"
    SINE = "sine"
    TRIANGLE = "triangle"
    SAWTOOTH = "sawtooth"
    SQUARE = "square"
    FLASH_CROWD = "flash-crowd"
    BURSTS = "bursts"
    POISSON = "poisson"


# The largest burst: the most copies of one template the eBPF program makes (its
# multicast group's 64 entries less the list's head); one BMv2 loop pass makes up to
# MAX_FRAMES_PER_PASS (64).
MAX_BURST_FRAMES: Final = MAX_FRAMES_PER_PASS - 1

PERIODIC: Final = frozenset({ShapeKind.SINE, ShapeKind.TRIANGLE, ShapeKind.SAWTOOTH,
                             ShapeKind.SQUARE})
# Parameters each kind takes, as the text form names them (parse), and its field.
_PARAMETERS: Final = {
    ShapeKind.CONSTANT: {},
    **{kind: {"period": "period_s", "amplitude": "amplitude"} for kind in PERIODIC},
    ShapeKind.FLASH_CROWD: {"start": "start_s", "rise": "rise_s", "peak": "peak",
                            "decay": "decay_s"},
    ShapeKind.BURSTS: {"frames": "burst_frames"},
    ShapeKind.POISSON: {"grid": "poisson_grid"},
}
# A Poisson stream's loop passes per frame: the most the generator's draw takes
# (dataplane.constants.MAX_PASSES_PER_EMIT).
MAX_POISSON_GRID: Final = MAX_PASSES_PER_EMIT


@dataclass(frozen=True, slots=True)
class TrafficShape:
    """A rate over time, as a multiple of a stream's load. Times in seconds from the
    start of the trial."""

    kind: ShapeKind = ShapeKind.CONSTANT
    period_s: float = 1.0  # periodic kinds
    amplitude: float = 0.0  # periodic kinds: the swing around the load, a share of it
    start_s: float = 0.0  # flash crowd: when the surge begins
    rise_s: float = 1.0  # flash crowd: from the base to the peak
    peak: float = 2.0  # flash crowd: the rate at its peak, a multiple of the base
    decay_s: float = 1.0  # flash crowd: time constant of the return to the base
    burst_frames: float = 1  # bursts: frames per burst, a whole number 2..MAX_BURST_FRAMES
    poisson_grid: float = 4  # poisson: loop passes per frame, a whole number 2..64

    def __post_init__(self) -> None:
        where = f"{self.kind} shape"
        if not self.period_s > 0:
            raise ShapeError(f"{where}: period {self.period_s:g} s must be above 0")
        if not 0 <= self.amplitude <= 1:
            raise ShapeError(f"{where}: amplitude {self.amplitude:g} must be in 0..1 (a share "
                             "of the load: 0.5 swings from half the load to 1.5 times it)")
        if self.kind is ShapeKind.FLASH_CROWD:
            if self.start_s < 0 or not self.rise_s > 0 or not self.decay_s > 0:
                raise ShapeError(f"{where}: start {self.start_s:g} s must be 0 or more, rise "
                                 f"{self.rise_s:g} s and decay {self.decay_s:g} s above 0")
            if not self.peak >= 1:
                raise ShapeError(f"{where}: peak {self.peak:g} must be at least 1 (a multiple "
                                 "of the base rate)")
        if self.kind is ShapeKind.BURSTS and not _whole_in(self.burst_frames, 2,
                                                            MAX_BURST_FRAMES):
            raise ShapeError(f"{where}: frames={self.burst_frames:g} must be a whole number "
                             f"from 2 to {MAX_BURST_FRAMES} (the frames one generator pass "
                             "makes back to back); for single frames use constant")
        if self.kind is ShapeKind.POISSON and not _whole_in(self.poisson_grid, 2,
                                                             MAX_POISSON_GRID):
            raise ShapeError(f"{where}: grid={self.poisson_grid:g} must be a whole number from "
                             f"2 to {MAX_POISSON_GRID} (loop passes per frame: the larger, the "
                             "closer to exponential gaps, and the more the generator works)")

    @property
    def passes_per_emit(self) -> int:
        """Generator loop passes per frame sent: a Poisson shape's grid (each pass
        sends with probability 1 / grid), 1 for every other kind."""
        return int(self.poisson_grid) if self.kind is ShapeKind.POISSON else 1

    @property
    def count_variance(self) -> float:
        """The variance of the count of frames sent where n are due, over n: 1 - 1/grid
        for a Poisson shape (binomial thinning), 0 for the others (the count is the
        schedule's). A trial allows chance its standard deviations (tester.rate_course)."""
        return 1.0 - 1.0 / self.passes_per_emit

    @property
    def frames_per_burst(self) -> int:
        """Frames the generator sends back to back at a time: a bursts shape's frames,
        1 for every other kind (frames spread evenly at the step's rate)."""
        return int(self.burst_frames) if self.kind is ShapeKind.BURSTS else 1

    @property
    def highest(self) -> float:
        """The largest multiplier the shape reaches."""
        if self.kind is ShapeKind.FLASH_CROWD:
            return self.peak
        return 1.0 + self.amplitude if self.kind in PERIODIC else 1.0

    def multiplier(self, t: float) -> float:
        """m(t)."""
        if self.kind is ShapeKind.FLASH_CROWD:
            return 1.0 + (self.peak - 1.0) * _surge(self, t)
        if self.kind not in PERIODIC:
            return 1.0
        u = (t / self.period_s) % 1.0
        if self.kind is ShapeKind.SINE:
            wave = math.sin(2 * math.pi * u)
        elif self.kind is ShapeKind.TRIANGLE:
            wave = 4 * u - 1 if u < 0.5 else 3 - 4 * u
        elif self.kind is ShapeKind.SAWTOOTH:
            wave = 2 * u - 1
        else:
            wave = 1.0 if u < 0.5 else -1.0
        return 1.0 + self.amplitude * wave

    def cumulative(self, t: float) -> float:
        """The integral of m from 0 to t: the frames sent by t, in seconds of the load."""
        if self.kind is ShapeKind.FLASH_CROWD:
            return t + (self.peak - 1.0) * _surge_integral(self, t)
        if self.kind not in PERIODIC:
            return t
        periods, u = divmod(t / self.period_s, 1.0)
        del periods  # each whole period's wave integrates to 0
        return t + self.amplitude * self.period_s * _wave_integral(self.kind, u)

    def mean_between(self, start_s: float, end_s: float) -> float:
        """The mean multiplier over [start_s, end_s)."""
        if not end_s > start_s:
            raise ShapeError(f"an interval from {start_s:g} s to {end_s:g} s is empty")
        return (self.cumulative(end_s) - self.cumulative(start_s)) / (end_s - start_s)

    def describe(self) -> str:
        """The shape in its text form (parse reads it back)."""
        values = ",".join(f"{name}={getattr(self, field):g}"
                          for name, field in _PARAMETERS[self.kind].items())
        return f"{self.kind}" + (f",{values}" if values else "")

    @classmethod
    def parse(cls, text: str) -> TrafficShape:
        """'sine,period=4,amplitude=0.5', 'flash-crowd,start=2,rise=1,peak=3,decay=2',
        'constant'; parameters left out keep their defaults."""
        kind_text, *pairs = [part.strip() for part in text.split(",")]
        try:
            kind = ShapeKind(kind_text)
        except ValueError:
            raise ShapeError(f"shape {text!r}: unknown kind {kind_text!r}; give one of "
                             f"{', '.join(k.value for k in ShapeKind)}") from None
        known = _PARAMETERS[kind]
        values: dict[str, float] = {}
        for pair in pairs:
            name, _, value = pair.partition("=")
            if name not in known:
                expected = ", ".join(known) or "no parameters"
                raise ShapeError(f"shape {text!r}: {kind} takes {expected}, not {name!r}")
            try:
                values[known[name]] = float(value)
            except ValueError:
                raise ShapeError(f"shape {text!r}: {name}={value!r} is not a number") from None
        return cls(kind, **values)


def _whole_in(value: float, low: int, high: int) -> bool:
    return value == int(value) and low <= value <= high


def _wave_integral(kind: ShapeKind, u: float) -> float:
    """The integral of one period's wave (-1..1) from 0 to u (0 <= u < 1), in periods."""
    if kind is ShapeKind.SINE:
        return (1.0 - math.cos(2 * math.pi * u)) / (2 * math.pi)
    if kind is ShapeKind.TRIANGLE:
        return 2 * u * u - u if u < 0.5 else -2 * u * u + 3 * u - 1
    if kind is ShapeKind.SAWTOOTH:
        return u * u - u
    return u if u < 0.5 else 1.0 - u


def _surge(shape: TrafficShape, t: float) -> float:
    """A flash crowd's surge, 0..1: 0 before its start, 1 at its peak."""
    since = t - shape.start_s
    if since <= 0:
        return 0.0
    if since < shape.rise_s:
        return since / shape.rise_s
    return math.exp(-(since - shape.rise_s) / shape.decay_s)


def _surge_integral(shape: TrafficShape, t: float) -> float:
    since = t - shape.start_s
    if since <= 0:
        return 0.0
    if since < shape.rise_s:
        return since * since / (2 * shape.rise_s)
    decayed = since - shape.rise_s
    return shape.rise_s / 2 + shape.decay_s * (1.0 - math.exp(-decayed / shape.decay_s))


@dataclass(frozen=True, slots=True)
class ShapeStep:
    """One step of constant rate: from `start_s` for `duration_s`, at the shape's mean
    multiplier over it."""

    start_s: float
    duration_s: float
    multiplier: float


def shape_steps(shape: TrafficShape, duration_s: float, step_s: float) -> tuple[ShapeStep, ...]:
    """The shape over [0, duration_s) in steps of step_s; a last step shorter than half
    a step joins the one before."""
    if not duration_s > 0 or not step_s > 0:
        raise ShapeError(f"a shaped trial of {duration_s:g} s in steps of {step_s:g} s: both "
                         "must be above 0")
    bounds = [k * step_s for k in range(math.ceil(duration_s / step_s - 1e-9))] + [duration_s]
    if len(bounds) > 2 and bounds[-1] - bounds[-2] < step_s / 2:
        del bounds[-2]
    return tuple(ShapeStep(start, end - start, shape.mean_between(start, end))
                 for start, end in pairwise(bounds))
