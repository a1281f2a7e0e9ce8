"""One reading of the live counters: the `stats` command's per-stream figures plus
the per-port counters and the histograms, as typed values.

Counters (frames, bytes, histogram cells) count since the switch started (or the
simulated one did); the latency min/avg/max and lost_in_gaps come from the checker's
registers, which restart when a stream's trial begins, as `p4tester stats` says. The
server shows them over one window (server.live_scope).
"""

from __future__ import annotations

from dataclasses import dataclass

from p4tester.results.latency import P50, P99, P999, clamped_percentiles, percentile
from p4tester.results.model import Histogram


@dataclass(frozen=True, slots=True)
class StreamReading:
    stream: int
    tx_port: int
    rx_port: int
    tx_frames: int
    tx_bytes: int
    rx_frames: int
    rx_bytes: int
    lost_in_gaps: int | None  # None: registers not read (a trial was using the switch)
    reordered: int
    duplicates: int
    latency_min_us: float | None
    latency_avg_us: float | None
    latency_max_us: float | None
    latency_histogram_us: Histogram  # the switch's bins (profile latency_bins_us)
    queue_depth_frames: Histogram  # DUT-stamped queue depth, the session's bins

    @property
    def percentiles_us(self) -> tuple[float | None, float | None, float | None]:
        """p50, p99, p99.9 of the histogram (RFC 8219), clamped to the min and max
        beside them where the registers were read (the true value lies there); one
        beyond the last edge is that edge, a lower bound (percentiles_lower_bound).
        The histogram must cover the registers' window (server.live_scope)."""
        histogram = self.latency_histogram_us
        if self.latency_min_us is not None and self.latency_max_us is not None:
            return clamped_percentiles(histogram, self.latency_min_us, self.latency_max_us)
        return (percentile(histogram, P50), percentile(histogram, P99),
                percentile(histogram, P999))

    @property
    def percentiles_lower_bound(self) -> tuple[bool, bool, bool]:
        """Which of percentiles_us are only lower bounds: their rank lies among the
        samples at or above the histogram's last edge."""
        histogram = self.latency_histogram_us
        return (histogram.beyond_last_edge(P50), histogram.beyond_last_edge(P99),
                histogram.beyond_last_edge(P999))


@dataclass(frozen=True, slots=True)
class PortReading:
    """Frames the tester program counted in from and out to one front-panel port."""

    port: int
    rx_frames: int
    rx_bytes: int
    tx_frames: int
    tx_bytes: int


@dataclass(frozen=True, slots=True)
class LiveReading:
    time: float  # Unix time of the read
    streams: tuple[StreamReading, ...]
    ports: tuple[PortReading, ...]
    # The simulated switch's own clock (trial seconds it has run), which runs faster
    # than the wall clock (--sim-time-scale): rates are counter deltas over it.
    # None on a real switch, whose rates are deltas over `time`.
    sim_time_s: float | None = None
