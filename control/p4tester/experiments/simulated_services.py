"""A TrialRunner over a simulated DUT with a policer per stream, so Y.1564 (and any
experiment that gives streams loads of their own, TrialSpec.stream_loads) can be
checked against a device whose bandwidth profiles are known exactly.

Each stream's policer passes at most `rate_bps` of L2 bits per second (whole frames per
second, rounded down) and drops the rest; a frame that passes waits `latency_us`, plus
a share of `spread_us` spread evenly over its frames. `outages` are whole seconds of a
trial in which the stream loses everything (a link down), for availability. Every
figure follows by hand; no wall time passes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final

from p4tester.results.latency import latency_stats, log_bin_edges
from p4tester.results.model import IntervalCounts, StreamStats, TrialResult
from p4tester.streams.rates import l2_frame_bits, line_rate_pps

from .runner import TrialSpec
from .simulated_runner import uniform_histogram

SECOND: Final = 1.0
DEFAULT_EDGES_US: Final = log_bin_edges(100_000)


@dataclass(frozen=True, slots=True)
class PolicedStream:
    """What the DUT does to one stream: police at `rate_bps` (L2), delay, outages."""

    stream_id: int
    rate_bps: float
    latency_us: float = 100.0
    spread_us: float = 0.0
    outages: tuple[int, ...] = ()  # seconds of a trial (0-based) that lose every frame

    def passed_per_s(self, frame_size: int) -> int:
        """Frames per second the policer lets through."""
        return math.floor(self.rate_bps / l2_frame_bits(frame_size) + 1e-9)


@dataclass
class SimulatedServicesRunner:
    """Runs TrialSpecs with stream_loads against policed streams on ports of one line
    rate. Mutable on purpose: it counts its trials."""

    line_rate_bps: float
    streams: tuple[PolicedStream, ...]
    edges_us: tuple[int, ...] = DEFAULT_EDGES_US
    calls: int = field(default=0, init=False)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        if not spec.stream_loads:
            raise ValueError("SimulatedServicesRunner runs streams with loads of their own "
                             "(TrialSpec.stream_loads); SimulatedRunner runs profile loads")
        self.calls += 1
        by_id = {s.stream_id: s for s in self.streams}
        figures = []
        offered = 0.0
        for stream_id, load in spec.stream_loads:
            pps = load * line_rate_pps(self.line_rate_bps, spec.frame_size)
            offered += pps
            figures.append(self._stream(by_id[stream_id], spec, pps))
        return TrialResult(
            experiment=spec.experiment, trial_index=spec.trial_index,
            offered_fraction=spec.offered_fraction, offered_pps=offered,
            duration_s=spec.duration_s, frame_size=spec.frame_size, streams=tuple(figures),
            labels=spec.labels)

    def _stream(self, policed: PolicedStream, spec: TrialSpec, pps: float) -> StreamStats:
        size = spec.frame_size
        seconds = math.ceil(spec.duration_s - 1e-9)
        budget = round(pps * spec.duration_s)
        # Frames sent by the end of each second, the last second taking what is left.
        by_end = [round(pps * min(second, spec.duration_s)) for second in range(seconds + 1)]
        sent = [later - earlier for earlier, later in pairwise(by_end)]
        passed = policed.passed_per_s(size)
        received = tuple(0 if second in policed.outages else min(frames, passed)
                         for second, frames in enumerate(sent))
        rx = sum(received)
        latency = None
        if rx:
            low = policed.latency_us
            high = low + policed.spread_us
            latency = latency_stats(rx, low, high, (low + high) / 2 * rx,
                                    policed.spread_us / 3 * (rx - 1),
                                    uniform_histogram(self.edges_us, low, high, rx))
        return StreamStats(
            stream_id=policed.stream_id, frame_size=size, tx_frames=budget, rx_frames=rx,
            rx_bytes=rx * size, gap_events=1 if rx < budget else 0,
            lost_in_gaps=budget - rx, reordered=0, duplicates=0, latency=latency,
            intervals=IntervalCounts(SECOND, tuple(sent), received))
