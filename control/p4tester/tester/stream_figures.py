"""One stream's figures of a trial (results.model.StreamStats) from what every target
reads: its counters as two snapshots (tester.snapshot), differenced, and its latency
registers, which the trial's start zeroed. Each target names its counters its own way
(StreamCounters) and converts its clock to microseconds (LatencySums)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from p4tester.results.latency import latency_stats
from p4tester.results.model import Histogram, ReceiverStats, StreamStats
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.tester.receive_slots import ReceiveSlots
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


def several_port_figures(stream_id: int, frame_size: int, before: CounterSnapshot,
                         after: CounterSnapshot, counters: StreamCounters,
                         slots: ReceiveSlots, latency: Mapping[int, LatencySums],
                         lost_in_gaps: Mapping[int, int], latency_edges_us: Sequence[int],
                         qdepth_edges: Sequence[int], *,
                         rx_bytes_include_fcs: bool = False) -> StreamStats:
    """A stream received on several ports (tester.receive_slots): its figures per port
    (ReceiverStats) and over all of them. `latency` and `lost_in_gaps`: each slot's
    registers. A replicated stream's ports each have a sequence of their own, and the
    stream's sequence figures add theirs up; a spread stream's sequence figures are its
    seq slot's (one sequence over every port). Latency over all ports joins the ports'
    sums and histograms: min of minima, max of maxima, the mean of every frame."""
    receivers = []
    for port in slots.ports:
        here = stream_figures(port.figure_slot, frame_size, before, after, counters,
                              latency.get(port.figure_slot),
                              lost_in_gaps.get(port.seq_slot, 0) if slots.replicated else 0,
                              latency_edges_us, qdepth_edges,
                              rx_bytes_include_fcs=rx_bytes_include_fcs)
        receivers.append(ReceiverStats(
            port=port.port, rx_frames=here.rx_frames, rx_bytes=here.rx_bytes,
            gap_events=here.gap_events, lost_in_gaps=here.lost_in_gaps,
            reordered=here.reordered, duplicates=here.duplicates,
            latency=here.latency, queue_depth=here.queue_depth))
    if slots.replicated:
        gap_events = sum(r.gap_events for r in receivers)
        lost = sum(r.lost_in_gaps for r in receivers)
        reordered = sum(r.reordered for r in receivers)
        duplicates = sum(r.duplicates for r in receivers)
    else:
        gap_events = packets_between(before, after, counters.gap_events, stream_id)
        lost = lost_in_gaps.get(stream_id, 0)
        reordered = packets_between(before, after, counters.reordered, stream_id)
        duplicates = packets_between(before, after, counters.duplicates, stream_id)
    figure_slots = [p.figure_slot for p in slots.ports]
    sums = [latency[s] for s in figure_slots if s in latency and latency[s].samples]
    latency_cells = _summed_cells(before, after, counters.latency_hist, figure_slots)
    joined = None
    if sums:
        joined = latency_stats(
            sum(s.samples for s in sums), min(s.min_us for s in sums),
            max(s.max_us for s in sums), sum(s.sum_us for s in sums),
            sum(s.jitter_sum_us for s in sums), histogram(latency_edges_us, latency_cells))
    queue = histogram(qdepth_edges,
                      _summed_cells(before, after, counters.qdepth_hist, figure_slots))
    return StreamStats(
        stream_id=stream_id,
        frame_size=frame_size,
        tx_frames=packets_between(before, after, counters.tx_stream, stream_id),
        rx_frames=sum(r.rx_frames for r in receivers),
        rx_bytes=sum(r.rx_bytes for r in receivers),
        gap_events=gap_events,
        lost_in_gaps=lost,
        reordered=reordered,
        duplicates=duplicates,
        latency=joined,
        queue_depth=queue if queue.total else None,
        receivers=tuple(receivers),
        replicated=slots.replicated,
    )


def _summed_cells(before: CounterSnapshot, after: CounterSnapshot, counter: str,
                  slots: Sequence[int]) -> list[int]:
    """Histogram cells of several slots added up, bin by bin."""
    per_slot = [histogram_between(before, after, counter, slot) for slot in slots]
    return [sum(cells) for cells in zip(*per_slot, strict=True)]
