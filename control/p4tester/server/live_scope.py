"""What the live figures cover: the current (or last) trial, never a mix of windows.

The switch's counters and histogram cells count since it started, while the
checker's latency registers (min/avg/max, gaps) restart with each trial. Shown side
by side, a p99 from the histograms since the start sat above the trial's max (issue
43). So the server takes a reading as each trial begins (the baseline) and shows
every figure as the difference from it: the same window as the registers. Counters
that went below the baseline were cleared in between (a target that clears them
when it arms a trial): then they already count from the trial.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from p4tester.results.model import Histogram

from .readings import LiveReading, PortReading, StreamReading

SINCE_START: str = "since the switch started"


@dataclass(frozen=True, slots=True)
class LiveScope:
    """The window the live figures cover: from `baseline` (None: the switch's start)."""

    baseline: LiveReading | None = None
    run_id: str = ""
    trial_index: int | None = None

    def describe(self) -> str:
        if self.baseline is None or self.trial_index is None:
            return SINCE_START
        return f"trial {self.trial_index} of run {self.run_id}"

    def apply(self, reading: LiveReading) -> LiveReading:
        """`reading` as differences from the baseline (as it is, with no baseline)."""
        if self.baseline is None:
            return reading
        # By (stream, RX port): a stream received on several ports has a reading per port.
        before = {(s.stream, s.rx_port): s for s in self.baseline.streams}
        ports = {p.port: p for p in self.baseline.ports}
        return replace(
            reading,
            streams=tuple(_stream_since(s, before.get((s.stream, s.rx_port)))
                          for s in reading.streams),
            ports=tuple(_port_since(p, ports.get(p.port)) for p in reading.ports))


def _counted_since(now: int, then: int) -> int:
    return now - then if now >= then else now


def _histogram_since(now: Histogram, then: Histogram) -> Histogram:
    if now.edges != then.edges or now.total < then.total or any(
            a < b for a, b in zip(now.counts, then.counts, strict=True)) \
            or now.outside < then.outside:
        return now  # other bins, or cleared since: it already counts from the trial
    return Histogram(now.edges, tuple(a - b for a, b in zip(now.counts, then.counts,
                                                            strict=True)),
                     now.outside - then.outside)


def _stream_since(now: StreamReading, then: StreamReading | None) -> StreamReading:
    if then is None:
        return now
    received = _counted_since(now.rx_frames, then.rx_frames)
    if received == 0:
        # Nothing of the trial received yet: the registers beside the counters may still
        # hold the trial before (the switch clears them as the trial starts, after the
        # baseline is read; seen on the page: TX 0, RX 0 beside the last trial's max and
        # gaps). No frame of the window, no latency and no gap in it.
        now = replace(now, latency_min_us=None, latency_avg_us=None, latency_max_us=None,
                      lost_in_gaps=None if now.lost_in_gaps is None else 0)
    return replace(
        now,
        tx_frames=_counted_since(now.tx_frames, then.tx_frames),
        tx_bytes=_counted_since(now.tx_bytes, then.tx_bytes),
        rx_frames=received,
        rx_bytes=_counted_since(now.rx_bytes, then.rx_bytes),
        reordered=_counted_since(now.reordered, then.reordered),
        duplicates=_counted_since(now.duplicates, then.duplicates),
        latency_histogram_us=_histogram_since(now.latency_histogram_us,
                                              then.latency_histogram_us),
        queue_depth_frames=_histogram_since(now.queue_depth_frames, then.queue_depth_frames))


def _port_since(now: PortReading, then: PortReading | None) -> PortReading:
    if then is None:
        return now
    return replace(now, rx_frames=_counted_since(now.rx_frames, then.rx_frames),
                   rx_bytes=_counted_since(now.rx_bytes, then.rx_bytes),
                   tx_frames=_counted_since(now.tx_frames, then.tx_frames),
                   tx_bytes=_counted_since(now.tx_bytes, then.tx_bytes))
