"""RFC 2544 section 26.4 back-to-back frames, with the RFC 9004 buffer-time correction.

A trial is one burst at line rate (TrialSpec.frame_count = burst length per TX
port, offered_fraction 1.0, duration = the trial length, at least 2 s in RFC 2544).
A binary search over whole burst lengths finds the longest burst the DUT forwards
without loss; the search is repeated `repetitions` times (RFC 2544: at least 50)
and the benchmark is the average longest burst.

RFC 9004 section 6.4 (Benchmark Calculations) then turns the burst into a buffer:

    Implied DUT buffer time   = B / R_line
    Corrected DUT buffer time = B / R_line - (B / R_line) x (R_tput / R_line)
                              = (B / R_line) x (1 - R_tput / R_line)

with B the average longest burst in frames, R_line the maximum theoretical frame
rate of the port (frames/s) and R_tput the measured RFC 2544 throughput (frames/s).
While the burst comes in, the DUT already forwards at its throughput, so that share
of the burst never sat in the buffer; the correction takes it out. The same
correction in frames is the implied buffer size:

    buffer frames = B x (1 - R_tput / R_line)

When the throughput is line rate the buffer never fills (the correction is 0):
RFC 9004 (section 6.1) runs the test at frame sizes whose throughput is below line
rate. Such a result is flagged (buffer_not_exercised) rather than refused.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Final

from p4tester.results.model import TrialResult
from p4tester.streams.rates import line_rate_pps

from .recording import DEFAULT_ATTEMPTS, Labels, Recorder
from .validation import (
    check_count,
    check_fraction,
    check_frame_size,
    check_labels,
    check_name,
    check_positive,
)

RFC2544_REPETITIONS: Final = 50
RFC2544_MIN_TRIAL_S: Final = 2.0
_BURST_LOAD: Final = 1.0  # bursts go at line rate with minimum inter-frame gaps
_OWNER: Final = "BackToBackConfig"


@dataclass(frozen=True, slots=True)
class BackToBackConfig:
    """line_rate_bps: the TX port's L1 line rate. throughput_fraction: the RFC 2544
    throughput of this frame size as a share of line rate (run_throughput's NDR).
    max_burst_frames: the longest burst tried; default = line-rate frames in one trial
    (a burst must fit its trial). resolution_frames: the search stops once the longest
    passing and shortest failing bursts are this close (1 = exact)."""

    frame_size: int
    line_rate_bps: float
    throughput_fraction: float
    repetitions: int = RFC2544_REPETITIONS
    trial_duration_s: float = RFC2544_MIN_TRIAL_S
    max_burst_frames: int | None = None
    resolution_frames: int = 1
    attempts: int = DEFAULT_ATTEMPTS
    experiment: str = "rfc2544-back-to-back"
    labels: Labels = ()

    def __post_init__(self) -> None:
        check_frame_size(_OWNER, "frame_size", self.frame_size)
        check_positive(_OWNER, "line_rate_bps", self.line_rate_bps, "bit/s (e.g. 10e9)")
        check_fraction(_OWNER, "throughput_fraction", self.throughput_fraction)
        check_count(_OWNER, "repetitions", self.repetitions)
        check_positive(_OWNER, "trial_duration_s", self.trial_duration_s, "seconds")
        if self.max_burst_frames is not None:
            check_count(_OWNER, "max_burst_frames", self.max_burst_frames)
        check_count(_OWNER, "resolution_frames", self.resolution_frames)
        check_count(_OWNER, "attempts", self.attempts)
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)

    @property
    def line_rate_pps(self) -> float:
        """RFC 9004's Max Theoretical Frame Rate."""
        return line_rate_pps(self.line_rate_bps, self.frame_size)

    @property
    def burst_limit(self) -> int:
        if self.max_burst_frames is not None:
            return self.max_burst_frames
        return max(1, math.floor(self.line_rate_pps * self.trial_duration_s))


@dataclass(frozen=True, slots=True)
class BackToBackResult:
    """bursts: the longest loss-free burst of each repetition, in frames.
    limited_by_max_burst: some repetition passed even the longest burst tried, so the
    buffer is at least what is reported, not exactly it."""

    config: BackToBackConfig
    bursts: tuple[int, ...]
    average_frames: float  # the benchmark
    min_frames: int
    max_frames: int
    stdev_frames: float  # sample standard deviation, 0 for one repetition
    line_rate_pps: float
    throughput_pps: float
    implied_buffer_time_s: float  # RFC 9004 6.4
    corrected_buffer_time_s: float  # RFC 9004 6.4
    corrected_buffer_frames: float  # B x (1 - R_tput / R_line)
    limited_by_max_burst: bool
    trial_count: int

    @property
    def buffer_not_exercised(self) -> bool:
        """Throughput is line rate: bursts never fill the buffer (RFC 9004 6.1)."""
        return self.throughput_pps >= self.line_rate_pps


def corrected_buffer_time_s(average_burst: float, line_pps: float, throughput_pps: float) -> float:
    """RFC 9004 section 6.4: implied time minus the part the DUT forwarded meanwhile."""
    implied = average_burst / line_pps
    return implied - implied * (throughput_pps / line_pps)


def _passes(trial: TrialResult) -> bool:
    # Every frame of every stream's burst came back (RFC 2544 26.4): per stream, so
    # one stream's duplicates cannot pass another stream's lost frames.
    return trial.lost == 0


def _longest_burst(
    config: BackToBackConfig, recorder: Recorder, repetition: int
) -> tuple[int, bool]:
    """(longest loss-free burst, whether that was the limit itself)."""

    def burst(frames: int) -> bool:
        trial = recorder.valid_trial(
            config.experiment,
            config.frame_size,
            _BURST_LOAD,
            config.trial_duration_s,
            frame_count=frames,
            labels=(
                *config.labels,
                ("repetition", str(repetition)),
                ("burst_frames", str(frames)),
            ),
            attempts=config.attempts,
            fails_above=0.0,  # a burst passes only when every frame came back
        )
        return _passes(trial)

    limit = config.burst_limit
    if burst(limit):
        return limit, True
    # Invariant: `passing` passed (0 frames trivially does), `failing` failed; halving
    # ends after about log2(limit) trials.
    passing, failing = 0, limit
    while failing - passing > config.resolution_frames:
        middle = (passing + failing) // 2
        if burst(middle):
            passing = middle
        else:
            failing = middle
    return passing, False


def run_back_to_back(config: BackToBackConfig, recorder: Recorder) -> BackToBackResult:
    """Search the longest burst `repetitions` times and apply RFC 9004's correction."""
    first_index = recorder.next_index(config.experiment)
    found = [_longest_burst(config, recorder, rep) for rep in range(config.repetitions)]
    bursts = tuple(frames for frames, _ in found)
    average = statistics.fmean(bursts)
    line_pps = config.line_rate_pps
    throughput_pps = config.throughput_fraction * line_pps
    implied = average / line_pps
    return BackToBackResult(
        config=config,
        bursts=bursts,
        average_frames=average,
        min_frames=min(bursts),
        max_frames=max(bursts),
        stdev_frames=statistics.stdev(bursts) if len(bursts) > 1 else 0.0,
        line_rate_pps=line_pps,
        throughput_pps=throughput_pps,
        implied_buffer_time_s=implied,
        corrected_buffer_time_s=corrected_buffer_time_s(average, line_pps, throughput_pps),
        corrected_buffer_frames=average * (1.0 - config.throughput_fraction),
        limited_by_max_burst=any(at_limit for _, at_limit in found),
        trial_count=recorder.next_index(config.experiment) - first_index,
    )
