"""Streams received on several ports (config.stream_receive) on the simulated switch:
what its DUT delivers on each RX port, counted as a switch's checker counts it
(tester.stream_figures.several_port_figures), so every front end shows per-port
figures for such a stream with no switch.

The simulated DUT drops what exceeds its capacity before it delivers a frame, so a
replicated stream comes back whole on every port, each copy short by the same loss;
a spread stream's frames are shared out as evenly as whole frames allow (ECMP over
many flows), the first ports taking the remainder. Latency on each port is spread
over the stream's [min, max] as the simulated runner spreads it; the stream's own
figures join its ports' (min of minima, the mean of every frame, histograms added).
"""

from __future__ import annotations

from dataclasses import replace

from p4tester.config.stream_receive import Receive
from p4tester.experiments.simulated_runner import uniform_histogram
from p4tester.results.latency import latency_stats
from p4tester.results.model import Histogram, LatencyStats, ReceiverStats, StreamStats


def _shares(total: int, parts: int) -> list[int]:
    share, rest = divmod(total, parts)
    return [share + (1 if i < rest else 0) for i in range(parts)]


def _port_latency(latency: LatencyStats | None, rx_frames: int) -> LatencyStats | None:
    """The stream's latency spread over `rx_frames` frames of one port."""
    if latency is None or latency.histogram is None or rx_frames < 1:
        return None
    low, high = latency.min_us, latency.max_us
    return latency_stats(rx_frames, low, high, latency.avg_us * rx_frames,
                         latency.jitter_us * (rx_frames - 1),
                         uniform_histogram(latency.histogram.edges, low, high, rx_frames))


def _joined_latency(ports: list[LatencyStats | None]) -> LatencyStats | None:
    """The ports' latency over all of them, as the switch joins its figure slots."""
    present = [p for p in ports if p is not None and p.histogram is not None]
    if not present:
        return None
    samples = sum(p.samples for p in present)
    return latency_stats(samples, min(p.min_us for p in present),
                         max(p.max_us for p in present),
                         sum(p.avg_us * p.samples for p in present),
                         sum(p.jitter_us * (p.samples - 1) for p in present),
                         _added([p.histogram for p in present if p.histogram is not None]))


def _added(histograms: list[Histogram]) -> Histogram:
    first = histograms[0]
    return Histogram(first.edges,
                     tuple(sum(cells) for cells in zip(*(h.counts for h in histograms),
                                                        strict=True)),
                     sum(h.outside for h in histograms))


def _split_histogram(histogram: Histogram | None, parts: int) -> list[Histogram | None]:
    """Each cell shared out over `parts` ports (the first taking the remainder)."""
    if histogram is None:
        return [None] * parts
    cells = [_shares(c, parts) for c in histogram.counts]
    outside = _shares(histogram.outside, parts)
    return [Histogram(histogram.edges, tuple(c[i] for c in cells), outside[i])
            for i in range(parts)]


def received_on_ports(stats: StreamStats, receive: Receive) -> StreamStats:
    """`stats` of one copy of the stream's frames (what the simulated DUT passed) as
    the stream's figures on each of `receive`'s ports and over all of them."""
    ports = receive.ports
    if receive.replicates:
        counts = [stats.rx_frames] * len(ports)
        queues: list[Histogram | None] = [stats.queue_depth] * len(ports)
    else:
        counts = _shares(stats.rx_frames, len(ports))
        queues = _split_histogram(stats.queue_depth, len(ports))
    latencies = [_port_latency(stats.latency, n) for n in counts]
    # A replicated stream's ports each keep a sequence of their own (each was due every
    # frame); a spread stream has one sequence over all its ports, kept by the stream.
    own = receive.replicates
    receivers = tuple(ReceiverStats(
        port=port, rx_frames=n, rx_bytes=n * stats.frame_size,
        gap_events=stats.gap_events if own else 0,
        lost_in_gaps=stats.lost_in_gaps if own else 0,
        reordered=stats.reordered if own else 0, duplicates=stats.duplicates if own else 0,
        latency=latency, queue_depth=queue)
        for port, n, latency, queue in zip(ports, counts, latencies, queues, strict=True))
    present_queues = [q for q in queues if q is not None]
    copies = len(ports) if own else 1
    return replace(
        stats, rx_frames=sum(counts), rx_bytes=sum(r.rx_bytes for r in receivers),
        gap_events=stats.gap_events * copies, lost_in_gaps=stats.lost_in_gaps * copies,
        reordered=stats.reordered * copies, duplicates=stats.duplicates * copies,
        latency=_joined_latency(latencies),
        queue_depth=_added(present_queues) if present_queues else None,
        receivers=receivers, replicated=receive.replicates)
