"""A shaped run (issue 24, item 5): streams whose rate follows a shape (sine, triangle,
sawtooth, square, flash crowd; streams.shapes) around a load, in one trial, and what
the DUT did with each step: the rate each step was to send, what it sent (measured on
the switch's clock) and what came back. A DUT that forwards up to some rate loses
frames only in the steps above it; a DUT whose buffer absorbs a peak shows it as
latency, not loss.

The trial is one trial of the one trial loop: loss is judged per stream over the whole
trial (TX - RX after the drain), each step's sent and received rates come from the
samples read inside it (tester.rate_course), and a step the tester did not offer as
asked leaves the trial tester-limited (repeated, as every experiment's trials are).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p4tester.results.model import StreamStats, TrialResult
from p4tester.streams.shapes import TrafficShape

from .recording import Labels, Recorder
from .validation import (
    check_fraction,
    check_frame_size,
    check_labels,
    check_name,
    check_positive,
)

# Steps the tester can follow and measure: a step needs at least two reads inside it
# (every 0.1 s on BMv2 and eBPF, 0.2 s on Tofino).
MIN_STEP_S: Final = 0.25
MAX_STEPS: Final = 10_000


@dataclass(frozen=True, slots=True)
class ShapeConfig:
    """`shapes`: (stream id, shape) pairs; `offered_fraction`: the load the shapes swing
    around, per TX port (the busiest), a share of line rate."""

    frame_size: int
    offered_fraction: float
    duration_s: float
    shapes: tuple[tuple[int, TrafficShape], ...]
    step_s: float = 0.5
    experiment: str = "shape"
    labels: Labels = ()

    def __post_init__(self) -> None:
        owner = "ShapeConfig"
        check_frame_size(owner, "frame_size", self.frame_size)
        check_fraction(owner, "offered_fraction", self.offered_fraction)
        check_positive(owner, "duration_s", self.duration_s, "seconds")
        check_name(owner, "experiment", self.experiment)
        check_labels(owner, self.labels)
        if not self.shapes:
            raise ValueError(f"{owner}: no stream has a shape; give one (--shape)")
        if not MIN_STEP_S <= self.step_s <= self.duration_s:
            raise ValueError(f"{owner}: step {self.step_s:g} s must be at least {MIN_STEP_S:g} s "
                             "(two reads of the switch inside each step) and at most the "
                             f"duration, {self.duration_s:g} s")
        if self.duration_s / self.step_s > MAX_STEPS:
            raise ValueError(f"{owner}: {self.duration_s / self.step_s:.0f} steps is more than "
                             f"{MAX_STEPS}; use a longer step")
        for stream_id, shape in self.shapes:
            peak = self.offered_fraction * shape.highest
            if peak > 1.0 + 1e-9:
                raise ValueError(
                    f"{owner}: stream {stream_id}'s shape {shape.describe()} peaks at "
                    f"{shape.highest:g} x the load {self.offered_fraction:.2%} = {peak:.2%} of "
                    f"line rate; lower the load to at most {1 / shape.highest:.2%} or the shape")


@dataclass(frozen=True, slots=True)
class ShapeResult:
    config: ShapeConfig
    trial: TrialResult

    def shaped_streams(self) -> tuple[StreamStats, ...]:
        return tuple(s for s in self.trial.streams if s.rate_course)

    def lossy_steps(self, stream: StreamStats, tolerance: float = 0.01) -> tuple[int, ...]:
        """The steps of a stream that received less than they sent by more than
        `tolerance` of it (measured rates; a step without figures is left out). A bursts
        stream's step may also end with one burst still in the DUT (its queue holds up to
        a burst when the step's last read comes): that many frames more are not a loss."""
        burst = dict(self.config.shapes)[stream.stream_id].frames_per_burst
        in_flight = burst if burst > 1 else 0
        return tuple(index for index, step in enumerate(stream.rate_course)
                     if (lost := step.lost_share) is not None and step.sent_pps is not None
                     and lost * step.sent_pps * step.measured_s
                     > tolerance * step.sent_pps * step.measured_s + in_flight)


def run_shape(config: ShapeConfig, recorder: Recorder) -> ShapeResult:
    trial = recorder.valid_trial(
        config.experiment, config.frame_size, config.offered_fraction, config.duration_s,
        labels=(*config.labels, *(("shape", f"{sid}:{shape.describe()}")
                                  for sid, shape in config.shapes)),
        shapes=config.shapes, shape_step_s=config.step_s)
    return ShapeResult(config, trial)
