"""What an experiment asks of the traffic source: one trial per TrialSpec.

A TrialRunner sets the streams of the profile to the spec's frame size and load,
runs them for the spec's duration (or exactly frame_count frames), waits for the
drain, reads every figure and returns one TrialResult. The switch-backed runner
is p4tester.targets.bmv2_trials.SwitchTrialRunner (Tofino: targets.tofino.runner), both
the one trial loop of tester.trial_loop; tests use simulated ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from p4tester.results.model import TrialResult
from p4tester.streams.rates import IFG_BITS, check_ifg_bits, gap_load
from p4tester.streams.shapes import TrafficShape

# Float conversions of a load to frames/s and back land a hair above its limit.
_LOAD_SLACK = 1e-9


@dataclass(frozen=True, slots=True)
class TrialSpec:
    """One trial to run.

    offered_fraction: load per TX port as a fraction of its nominal line rate.
    duration_s: trial length; with frame_count set it is only an upper bound.
    frame_count: send exactly this many frames per stream (bursts, RFC 2544 26.4).
    labels: experiment parameters recorded with the result, e.g. (("buffer_pct", "40"),).
    reference_loop: a latency trial: run a reference stream looped inside the tester
    switch beside the streams, where the target can (results.reference), so the trial
    says how much of its latency the tester caused.
    stream_loads: (stream id, load) pairs: only these streams run, each at its own load
    as a fraction of its TX port's line rate (its `share` does not apply), e.g. one
    Y.1564 service at a step of its CIR. Empty: every stream of the profile, at
    offered_fraction x its share. offered_fraction then says the busiest TX port's load.
    variation_lengths: (stream id, n) pairs: the stream's frames cycle through only the
    first n entries of its per-frame variation (e.g. the first n of the addresses an
    RFC 2889 address test may use); a stream not named uses its whole cycle.
    inter_frame_gap_bits: the gap the TX ports may send with. Loads are shares of line
    rate (96 bit times), so they stop at 1 (100 %); RFC 2889's forward pressure trial
    gives 88 and may go up to its gap's load (streams.rates.gap_load: 84/83 at 64 B),
    the only way a trial offers more than line rate.
    """

    experiment: str
    trial_index: int
    frame_size: int
    offered_fraction: float
    duration_s: float
    frame_count: int | None = None
    labels: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    reference_loop: bool = False
    stream_loads: tuple[tuple[int, float], ...] = ()
    shapes: tuple[tuple[int, TrafficShape], ...] = ()
    shape_step_s: float = 0.5
    variation_lengths: tuple[tuple[int, int], ...] = ()
    inter_frame_gap_bits: int = IFG_BITS

    def __post_init__(self) -> None:
        check_ifg_bits(self.inter_frame_gap_bits)
        most = self.most_load(self.frame_size)
        if not 0.0 < self.offered_fraction <= most + _LOAD_SLACK:
            raise ValueError(
                f"offered load {self.offered_fraction:.4f} of line rate must be in "
                f"(0, {most:.6g}]{self._gap_note}"
            )
        if self.duration_s <= 0:
            raise ValueError(f"trial duration {self.duration_s} s must be positive")
        if self.frame_count is not None and self.frame_count <= 0:
            raise ValueError(f"frame count {self.frame_count} must be positive")
        ids = [stream_id for stream_id, _ in self.stream_loads]
        if len(set(ids)) != len(ids):
            raise ValueError(f"stream loads name a stream twice: {self.stream_loads}")
        for stream_id, load in self.stream_loads:
            if not 0.0 < load <= most + _LOAD_SLACK:
                raise ValueError(f"stream {stream_id}'s load {load:.4f} of line rate must be "
                                 f"in (0, {most:.6g}]{self._gap_note}")
        for stream_id, length in self.variation_lengths:
            if length < 1:
                raise ValueError(f"stream {stream_id}'s variation length {length} must be at "
                                 "least 1")
        shaped = [stream_id for stream_id, _ in self.shapes]
        if len(set(shaped)) != len(shaped):
            raise ValueError(f"shapes name a stream twice: {shaped}")
        if self.shapes and self.frame_count is not None:
            raise ValueError("a trial of frame_count frames (a burst) takes no shape")
        if self.shapes and not 0 < self.shape_step_s <= self.duration_s:
            raise ValueError(f"shape step {self.shape_step_s:g} s must be above 0 and at most "
                             f"the trial's {self.duration_s:g} s")

    def most_load(self, frame_size: float) -> float:
        """The highest load a TX port may be given at `frame_size`, a share of its line
        rate: 1, or above it with a gap shorter than 96 bit times."""
        return gap_load(frame_size, self.inter_frame_gap_bits)

    @property
    def _gap_note(self) -> str:
        if self.inter_frame_gap_bits == IFG_BITS:
            return ""
        return f" with {self.inter_frame_gap_bits}-bit gaps at {self.frame_size} B"


class TrialRunner(Protocol):
    """A traffic source that runs trials."""

    def run_trial(self, spec: TrialSpec) -> TrialResult: ...
