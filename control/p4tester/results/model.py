"""Typed results of a trial. Every experiment, report and search works on these.

Units are in the names: *_us for microseconds (BMv2 clock), *_pps for frames per
second, frame sizes in bytes including FCS (RFC 2544).

Loss is judged per stream (design.md section 4, issue 21): a stream's loss is its
TX - RX after the drain, never below zero (RX above TX means duplicates, which do not
undo a loss), and a trial's loss is the sum of its streams' losses. Never the
trial's total TX - total RX: one stream's duplicates would cancel another stream's
loss, and a DUT losing frames would pass NDR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from p4tester.results.checks import (
    DUT_LIMITED,
    DUT_NOT_DRAINED,
    TESTER_LIMITED,
    TRIAL_ERROR,
    HostLoad,
    SelfCheck,
)
from p4tester.results.clocks import ClockRecord
from p4tester.results.reference import ReferenceLatency
from p4tester.results.settle import SettleRecord


def frames_lost(tx_frames: int, rx_frames: int) -> int:
    """One stream's authoritative loss: TX - RX after the drain, 0 when RX is above TX
    (the DUT duplicated frames; duplicates are counted apart and never a negative loss)."""
    return max(tx_frames - rx_frames, 0)


def loss_ratio_of(lost: int, tx_frames: int) -> float:
    """`lost` over the frames sent; 0.0 when nothing was sent (nothing could be lost)."""
    return lost / tx_frames if tx_frames else 0.0


@dataclass(frozen=True, slots=True)
class StreamLoss:
    """Frames one stream lost in a trial (StreamStats.lost), for naming the streams
    that failed a trial without carrying all their figures along."""

    stream_id: int
    lost: int

    @classmethod
    def of(cls, stream: StreamStats) -> StreamLoss:
        return cls(stream.stream_id, stream.lost)


# The percentiles LatencyStats holds (RFC 8219: median and 99.9th, with the 99th between)
# as quantiles, and by the name of the field that holds each.
P50: Final = 0.5
P99: Final = 0.99
P999: Final = 0.999
PERCENTILE_FIELDS: Final = (("p50_us", P50), ("p99_us", P99), ("p999_us", P999))


@dataclass(frozen=True, slots=True)
class Histogram:
    """Counts per bin; bin i covers [edges[i], edges[i+1]); `outside` counts the rest."""

    edges: tuple[int, ...]
    counts: tuple[int, ...]
    outside: int = 0

    def __post_init__(self) -> None:
        if len(self.edges) != len(self.counts) + 1:
            raise ValueError(
                f"histogram: {len(self.counts)} bins need {len(self.counts) + 1} edges, "
                f"got {len(self.edges)}"
            )

    @property
    def total(self) -> int:
        return sum(self.counts) + self.outside

    def beyond_last_edge(self, quantile: float) -> bool:
        """Whether the rank of `quantile` (0 < q <= 1) falls among the `outside` samples,
        above every sample in the bins: that percentile is then only known to be at
        least the last edge. The one rule results.latency.percentile and the lower-bound
        flags share, so a value and its flag never disagree."""
        in_bins = self.total - self.outside
        return self.outside > 0 and quantile * self.total > in_bins


@dataclass(frozen=True, slots=True)
class LatencyStats:
    """One stream's latency over a trial (switch clock units, BMv2: microseconds).

    A percentile whose rank lies beyond the histogram's last edge holds that edge
    (clamped to [min_us, max_us]): a proven lower bound, the true value lies between it
    and max_us. `is_lower_bound` tells which percentiles are such bounds.
    """

    samples: int
    min_us: float
    max_us: float
    avg_us: float
    jitter_us: float  # mean |latency difference| of consecutive frames (RFC 3393 IPDV)
    # From the histogram (RFC 8219 median); None without bins or samples, a lower bound
    # where is_lower_bound(P50).
    p50_us: float | None = None
    p99_us: float | None = None
    p999_us: float | None = None
    histogram: Histogram | None = None
    # Derived from the histogram in __post_init__, never passed: fields, not properties,
    # so that JSON written field by field (the API, summary.json) carries them; derived,
    # so that they never disagree with the histogram however the stats were built.
    beyond_histogram: int = field(init=False)  # samples at or above the last edge
    lower_bounds: tuple[str, ...] = field(init=False)  # fields holding one, ("p999_us",)

    def __post_init__(self) -> None:
        beyond = 0 if self.histogram is None else self.histogram.outside
        bounds = tuple(name for name, quantile in PERCENTILE_FIELDS
                       if self.percentile_us(quantile) is not None
                       and self.is_lower_bound(quantile))
        # Frozen: a derived field can only be set this way, once, here.
        object.__setattr__(self, "beyond_histogram", beyond)
        object.__setattr__(self, "lower_bounds", bounds)

    def percentile_us(self, quantile: float) -> float | None:
        """The percentile field of `quantile`: p50_us for P50, p99_us for P99, p999_us
        for P999."""
        values = {P50: self.p50_us, P99: self.p99_us, P999: self.p999_us}
        if quantile not in values:
            raise ValueError(f"latency holds the percentiles {sorted(values)}, not {quantile}")
        return values[quantile]

    def is_lower_bound(self, quantile: float) -> bool:
        """Whether the percentile at `quantile` (P50, P99, P999) is only its lower bound:
        its rank is above the samples inside the bins."""
        return self.histogram is not None and self.histogram.beyond_last_edge(quantile)


@dataclass(frozen=True, slots=True)
class IntervalCounts:
    """One stream's frames sent and received in consecutive intervals of about
    `interval_s` through a trial (tester.trial_course.interval_counts), for
    availability (results.availability): sent[i] and received[i] are interval i's."""

    interval_s: float
    sent: tuple[int, ...]
    received: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.sent) != len(self.received):
            raise ValueError(f"interval counts: {len(self.sent)} sent against "
                             f"{len(self.received)} received intervals")


@dataclass(frozen=True, slots=True)
class RateStep:
    """One step of a shaped stream's trial (streams.shapes, tester.rate_course): the rate
    it was to send from `start_s` (seconds since its senders started) for `duration_s`,
    and what it sent and received meanwhile, measured on the switch's clock between the
    samples read inside the step (None: fewer than two were), over `measured_s` of
    it. `max_burst_frames`: the most frames sent in one sample interval beyond the
    step's rate."""

    start_s: float
    duration_s: float
    intended_pps: float
    sent_pps: float | None = None
    received_pps: float | None = None
    measured_s: float = 0.0
    max_burst_frames: int = 0

    @property
    def lost_share(self) -> float | None:
        """The share of what the step sent that it did not receive (0 when it received
        more: frames a DUT's queue held from the step before); None without figures."""
        if self.sent_pps is None or self.received_pps is None or self.sent_pps <= 0:
            return None
        return max(0.0, 1.0 - self.received_pps / self.sent_pps)


@dataclass(frozen=True, slots=True)
class ReceiverStats:
    """A stream's figures on one of its RX ports, for a stream received on several
    (config.stream_receive). A replicated stream's sequence figures are the port's own
    (every port is due the whole sequence); a spread stream's are the stream's, over
    all its ports (StreamStats), and 0 here."""

    port: int
    rx_frames: int
    rx_bytes: int
    gap_events: int = 0
    lost_in_gaps: int = 0
    reordered: int = 0
    duplicates: int = 0
    latency: LatencyStats | None = None
    queue_depth: Histogram | None = None


@dataclass(frozen=True, slots=True)
class StreamStats:
    """One stream's figures over a trial.

    A stream received on several ports has `receivers`, one per port in the profile's
    order, and its own figures add theirs up. `replicated`: the DUT was to deliver
    every frame on every port, so each port is due tx_frames and the stream's loss is
    each port's shortfall added up; else (spread) each frame is due once, on any port.
    """

    stream_id: int
    frame_size: int
    tx_frames: int
    rx_frames: int
    rx_bytes: int
    gap_events: int
    lost_in_gaps: int  # sum of sequence gaps at arrival (not netted by late frames)
    reordered: int  # RFC 4737: sequence below the next expected
    duplicates: int
    latency: LatencyStats | None = None
    queue_depth: Histogram | None = None
    # Frames per interval of the trial; None where the target takes no samples in it.
    intervals: IntervalCounts | None = None
    # A shaped stream's steps (intended and measured rates); () for a constant rate.
    rate_course: tuple[RateStep, ...] = ()
    receivers: tuple[ReceiverStats, ...] = ()
    replicated: bool = False

    @property
    def frames_due(self) -> int:
        """The frames the DUT was to deliver: tx_frames on each port of a replicated
        stream, else tx_frames."""
        if self.replicated:
            return self.tx_frames * len(self.receivers)
        return self.tx_frames

    @property
    def lost(self) -> int:
        """Authoritative loss: TX - RX after the trial drained, never negative; for a
        replicated stream, each port's (one port's extra copies never make up for
        another's missing ones)."""
        if self.replicated:
            return sum(frames_lost(self.tx_frames, r.rx_frames) for r in self.receivers)
        return frames_lost(self.tx_frames, self.rx_frames)

    @property
    def loss_ratio(self) -> float:
        return loss_ratio_of(self.lost, self.frames_due)

    def port_lost(self, receiver: ReceiverStats) -> int | None:
        """What one RX port lost: its shortfall of tx_frames when the stream is
        replicated; None when spread (a frame is due on no port in particular)."""
        return frames_lost(self.tx_frames, receiver.rx_frames) if self.replicated else None

    @property
    def spread_balance(self) -> float | None:
        """A spread stream's most loaded port's frames over its least loaded's (1.0:
        even; inf: a port got nothing); None when not spread or nothing arrived."""
        if self.replicated or not self.receivers or not self.rx_frames:
            return None
        counts = [r.rx_frames for r in self.receivers]
        return max(counts) / min(counts) if min(counts) else float("inf")


@dataclass(frozen=True, slots=True)
class TrialResult:
    """One trial: streams at one offered load for one duration, drained and read.

    `valid` is False when the trial could not be completed (switch died, read
    failed), or when a side could not vouch for it (the tester or a lab DUT dropped
    frames itself, see results.checks): `error` says why, `invalid_reason` which of
    these it was, and searches must not use its figures.
    """

    experiment: str
    trial_index: int
    offered_fraction: float  # of the line rate of the TX ports, 0..1
    offered_pps: float  # all streams together
    duration_s: float
    frame_size: int
    streams: tuple[StreamStats, ...] = ()
    started_at: float = 0.0  # Unix time
    valid: bool = True
    error: str | None = None
    # Foreign frames the tester received during the trial (all ports): e.g. the
    # ICMP errors a DUT's slow path sends back for a TTL-1 stream (seed 002).
    rx_foreign: int = 0
    # Frames of a stream that were not its (all streams and ports), never in a stream's
    # figures: of another trial (its epoch; a DUT still held them), and of this trial
    # but on another port or with another IP version than the stream's (look-alikes).
    rx_stale: int = 0
    rx_mismatched: int = 0
    # What the generator proved it offered (tester.trial_course): its TX rate measured
    # on the switch's clock, all streams together, and the most frames one stream sent
    # beyond its rate in one sample interval. None: not measured (a simulated runner,
    # a target without the samples, a trial too short for two samples).
    offered_pps_measured: float | None = None
    max_burst_frames: int | None = None
    # The DUT was filling its buffer through the trial: the rise (us) of the latency of
    # a stream's last tenth of frames over its first tenth, the largest of the streams
    # whose latency rose so (tester.trial_course); None: no stream's did, or not known.
    # Such a trial may pass only because it ended before the buffer was full.
    dut_buffering_us: float | None = None
    # Frames received after the trial's end, within its drain (all streams): counted as
    # received (RFC 2544), said apart. None: not known (tester.trial_course.late_frames).
    late_frames: int | None = None
    # The tester's own latency in this trial, from a stream looped inside the tester
    # switch (results.reference); None: the trial ran none (only latency trials on BMv2
    # do). Never in `streams`: it is not traffic the DUT saw.
    reference: ReferenceLatency | None = None
    # Experiment parameters of this trial, e.g. (("buffer_pct", "40"),).
    labels: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    # The tester ports' counters against the program's (None: not available, e.g. a
    # target without interface counters, or a simulated runner).
    self_check: SelfCheck | None = None
    # The same of a lab DUT sharing the host (None: no such DUT).
    dut_check: SelfCheck | None = None
    host_load: HostLoad | None = None
    # How the trial waited for the DUT to drain before it started (results.settle);
    # None: it did not (a simulated runner, a record older than schema 11).
    settle: SettleRecord | None = None
    # Several testers: the offset between each two that exchanged streams, and what it
    # leaves the one-way figures off by (results.clocks); () with one tester.
    clocks: tuple[ClockRecord, ...] = ()

    @property
    def tester_limited(self) -> bool:
        return self.self_check is not None and not self.self_check.ok

    @property
    def dut_limited(self) -> bool:
        return self.dut_check is not None and not self.dut_check.ok

    @property
    def dut_not_drained(self) -> bool:
        """Frames of earlier trials or runs still arrived while this one ran (or were
        still arriving when the wait for them gave up): the DUT was busy with earlier
        traffic; the trial is not its result at this load."""
        return self.settle is not None and (not self.settle.drained or self.rx_stale > 0)

    @property
    def host_limited(self) -> bool:
        """The tester or a lab DUT on the same host lost frames itself: the trial says
        nothing about the DUT's own behaviour (not measured, never its loss)."""
        return self.tester_limited or self.dut_limited

    @property
    def host_dropped(self) -> int:
        """Frames the tester and a lab DUT lost themselves (self-checks), all ports."""
        return sum(check.rx_dropped + check.tx_dropped
                   for check in (self.self_check, self.dut_check) if check is not None)

    @property
    def dut_loss_floor(self) -> int:
        """Loss the DUT caused at the least: the trial's loss minus every frame the host
        lost itself. Each such frame is inside some stream's TX - RX (TX is counted where
        the tester program sent it, RX where it received it) and so lowers that stream's
        loss by at most one, so what is left was lost elsewhere: by the DUT. A floor:
        frames counted as host drops may belong to no stream. None at all when the
        tester overdrove the trial (bursts beyond its load): the DUT may have lost
        frames to the tester's burst that it would not lose at the load asked."""
        if self.self_check is not None and self.self_check.overdriven:
            return 0
        return max(self.lost - self.host_dropped, 0)

    @property
    def dut_loss_floor_ratio(self) -> float:
        """`dut_loss_floor` over all frames due: a host-limited trial above a goal's
        loss ratio by this alone fails the goal on the DUT's own loss."""
        return loss_ratio_of(self.dut_loss_floor, self.frames_due)

    @property
    def invalid_reason(self) -> str | None:
        """None for a valid trial, else TESTER_LIMITED, DUT_LIMITED, DUT_NOT_DRAINED or
        TRIAL_ERROR."""
        if self.valid:
            return None
        if self.tester_limited:
            return TESTER_LIMITED
        if self.dut_limited:
            return DUT_LIMITED
        if self.dut_not_drained:
            return DUT_NOT_DRAINED
        return TRIAL_ERROR

    @property
    def tx_frames(self) -> int:
        return sum(s.tx_frames for s in self.streams)

    @property
    def rx_frames(self) -> int:
        return sum(s.rx_frames for s in self.streams)

    @property
    def frames_due(self) -> int:
        """The frames the DUT was to deliver (StreamStats.frames_due), all streams."""
        return sum(s.frames_due for s in self.streams)

    @property
    def lost(self) -> int:
        """The streams' losses added up (StreamStats.lost), never total TX - total RX:
        one stream's duplicates must not hide another stream's loss."""
        return sum(s.lost for s in self.streams)

    @property
    def loss_ratio(self) -> float:
        """`lost` over all frames due (sent, times the ports of a replicated stream):
        the figure NDR and PDR goals judge."""
        return loss_ratio_of(self.lost, self.frames_due)

    @property
    def stream_losses(self) -> tuple[StreamLoss, ...]:
        """Every stream's loss, in the trial's stream order (0 for a clean stream)."""
        return tuple(StreamLoss.of(s) for s in self.streams)

    @property
    def losing_streams(self) -> tuple[StreamLoss, ...]:
        """The streams that lost frames, worst first: highest loss ratio, then most
        frames lost, then the lower stream id (so the order is stable)."""
        losing = sorted((s for s in self.streams if s.lost > 0),
                        key=lambda s: (-s.loss_ratio, -s.lost, s.stream_id))
        return tuple(StreamLoss.of(s) for s in losing)

    @property
    def worst_stream_loss_ratio(self) -> float:
        """The highest loss ratio of any one stream (0.0 when none lost a frame): with
        streams of different rates a small stream can lose all its frames while the
        trial's ratio stays small."""
        return max((s.loss_ratio for s in self.streams), default=0.0)
