"""One stream's figures of a trial (results.model.StreamStats) from what every target
reads: its counters as two snapshots (tester.snapshot), differenced, and its latency
registers, which the trial's start zeroed. Each target names its counters its own way
(StreamCounters) and converts its clock to microseconds (LatencySums)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p4tester.results.latency import latency_stats
from p4tester.results.model import Histogram, StreamStats
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.tester.snapshot import (
    CounterSnapshot,
    bytes_between,
    histogram_between,
    packets_between,
)


@dataclass(frozen=True, slots=True)
class StreamCounters:
    """A target's names of the per-stream counters."""

    rx_stream: str
    tx_stream: str
    gap_events: str
    reordered: str
    duplicates: str
    latency_hist: str
    qdepth_hist: str


@dataclass(frozen=True, slots=True)
class LatencySums:
    """A stream's latency registers at the trial's end, in microseconds."""

    samples: int
    min_us: float
    max_us: float
    sum_us: float
    jitter_sum_us: float


def histogram(edges: Sequence[int], cells: Sequence[int]) -> Histogram:
    """Cells of the bins, then the last cell: values outside every bin."""
    return Histogram(tuple(edges), tuple(cells[: len(edges) - 1]), cells[-1])


def stream_figures(stream_id: int, frame_size: int, before: CounterSnapshot,
                   after: CounterSnapshot, counters: StreamCounters,
                   latency: LatencySums | None, lost_in_gaps: int,
                   latency_edges_us: Sequence[int], qdepth_edges: Sequence[int], *,
                   rx_bytes_include_fcs: bool = False) -> StreamStats:
    """`latency` None or with no samples: the stream has no latency figures."""
    rx = packets_between(before, after, counters.rx_stream, stream_id)
    rx_bytes = bytes_between(before, after, counters.rx_stream, stream_id)
    if not rx_bytes_include_fcs:
        # Most switches count frames without FCS; frame sizes include it.
        rx_bytes += FCS_BYTES * rx
    latency_bins = histogram(latency_edges_us, histogram_between(
        before, after, counters.latency_hist, stream_id))
    queue = histogram(qdepth_edges, histogram_between(
        before, after, counters.qdepth_hist, stream_id))
    stats = None
    if latency is not None and latency.samples:
        stats = latency_stats(latency.samples, latency.min_us, latency.max_us, latency.sum_us,
                              latency.jitter_sum_us, latency_bins)
    return StreamStats(
        stream_id=stream_id,
        frame_size=frame_size,
        tx_frames=packets_between(before, after, counters.tx_stream, stream_id),
        rx_frames=rx,
        rx_bytes=rx_bytes,
        gap_events=packets_between(before, after, counters.gap_events, stream_id),
        lost_in_gaps=lost_in_gaps,
        reordered=packets_between(before, after, counters.reordered, stream_id),
        duplicates=packets_between(before, after, counters.duplicates, stream_id),
        latency=stats,
        queue_depth=queue if queue.total else None,
    )
