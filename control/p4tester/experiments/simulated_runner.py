"""A TrialRunner over a simulated DUT, so every experiment can be checked against a
device whose limits are known exactly.

The DUT extends search/simulated.py's capacity model (it forwards at most a share C
of the egress line rate, per frame size, and drops the excess) with what the other
experiments need to find something:

- a buffer of `buffer_bytes` at a 100 % threshold, shared by all frame sizes as in
  seed 004 (frames held = floor(bytes x threshold % / 100 / frame size)); a burst
  longer than the buffer can absorb loses frames (RFC 2544 back-to-back);
- latency = a fixed part (+ the frame's serialization when store-and-forward) plus
  the time to drain the queue ahead of the frame. Under overload the queue sits at
  the threshold, so maximum and average latency grow linearly with the buffer %
  while the minimum stays flat: the shape seed 004 measured;
- scripted impairments (extra loss, reordering, duplicates) on chosen trials, for
  soaks and ramps;
- shaped trials (TrialSpec.shapes, one shape for all its streams): each step of the
  shape is offered at its own load and loses what the capacity model drops at that
  load, so only the steps above the capacity lose frames; each stream's rate course
  says so, step by step, with the queue of the busiest step. Bursts (a bursts shape)
  arrive at line rate: at a mean load the DUT carries, each burst loses what exceeds
  the buffer (as a back-to-back burst does), and the queue empties between bursts.

Within a trial latency is spread evenly between its minimum and maximum (and queue
depth between 0 and its maximum): the histograms, averages and percentiles follow
from that and can be computed by hand in a test. Everything is deterministic; the
optional latency noise comes from a Random seeded with `seed`, one draw per trial.
No wall time passes: a 60-s trial is free.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Final

from p4tester.results.latency import latency_stats, log_bin_edges
from p4tester.results.model import Histogram, RateStep, StreamStats, TrialResult
from p4tester.search.simulated import TEN_GBE_BPS, capacity_loss_ratio
from p4tester.streams.rates import l1_frame_bits, l2_frame_bits, line_rate_pps
from p4tester.streams.shapes import shape_steps

from .runner import TrialRunner, TrialSpec

# Seed 004's switch held 6398 frames of 512 B at a 100 % threshold (about 3.3 MB);
# 32768 B x 100 keeps the frame counts whole for 64..1024-B frames at whole percents.
DEFAULT_BUFFER_BYTES: Final = 3_276_800
DEFAULT_FIXED_LATENCY_US: Final = 1.0
# Histogram ranges wide enough for a full default buffer of 64-B frames at 10GbE
# (51200 frames x 67 ns = 3.4 ms) and for its depth in frames.
DEFAULT_LATENCY_EDGES_US: Final = log_bin_edges(100_000)
DEFAULT_QUEUE_EDGES: Final = log_bin_edges(1 << 17)
_US_PER_S: Final = 1e6
_FULL_PERCENT: Final = 100.0


def full_capacity(frame_size: int) -> float:
    """A DUT that forwards line rate at every frame size."""
    del frame_size
    return 1.0


@dataclass(frozen=True, slots=True)
class Impairment:
    """Extra trouble on one trial, on top of the capacity model: the lost frames are
    shared by the streams as the capacity loss is; stream 0 takes the reordered and
    duplicate frames."""

    lost: int = 0
    reordered: int = 0
    duplicates: int = 0

    def __post_init__(self) -> None:
        if min(self.lost, self.reordered, self.duplicates) < 0:
            raise ValueError(f"impairment counts must not be negative, got {self}")


@dataclass(frozen=True, slots=True)
class SimulatedDut:
    """What the simulated device does. All rates refer to one port's line rate.

    capacity_by_size: share C of the egress line rate the DUT forwards, per frame size.
    fan_in: TX ports (one stream each) feeding the one egress port; seed 004 used two
        ports at ~50 % each, so the egress sees 2 x the offered share.
    buffer_bytes: egress buffer at a 100 % threshold.
    store_and_forward: add the frame's own serialization time to the fixed latency.
    latency_noise_us: each trial's maximum latency is raised by a draw in [0, this).
    impairments: (trial_index, Impairment) pairs.
    """

    capacity_by_size: Callable[[int], float] = full_capacity
    line_rate_bps: float = TEN_GBE_BPS
    fan_in: int = 1
    buffer_bytes: int = DEFAULT_BUFFER_BYTES
    fixed_latency_us: float = DEFAULT_FIXED_LATENCY_US
    store_and_forward: bool = True
    latency_noise_us: float = 0.0
    seed: int = 0
    latency_edges_us: tuple[int, ...] = DEFAULT_LATENCY_EDGES_US
    queue_edges: tuple[int, ...] = DEFAULT_QUEUE_EDGES
    impairments: tuple[tuple[int, Impairment], ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.fan_in < 1:
            raise ValueError(f"SimulatedDut: fan_in must be at least 1 TX port, got {self.fan_in}")
        if self.buffer_bytes < 0:
            raise ValueError(f"SimulatedDut: buffer_bytes must be >= 0, got {self.buffer_bytes}")
        if self.fixed_latency_us < 0 or self.latency_noise_us < 0:
            raise ValueError("SimulatedDut: fixed_latency_us and latency_noise_us must be >= 0")
        for name, edges in (
            ("latency_edges_us", self.latency_edges_us),
            ("queue_edges", self.queue_edges),
        ):
            if len(edges) < 2 or edges[0] != 0 or any(a >= b for a, b in pairwise(edges)):
                raise ValueError(
                    f"SimulatedDut: {name} must rise strictly from 0 (as the tester's bins do), "
                    f"got {edges}"
                )

    # ---- the model, as functions a test can call to get the expected answer ----------

    def capacity(self, frame_size: int) -> float:
        capacity = self.capacity_by_size(frame_size)
        if not 0.0 < capacity <= 1.0:
            raise ValueError(
                f"SimulatedDut: capacity at {frame_size} B must be in (0, 1] of line rate, "
                f"got {capacity}"
            )
        return capacity

    def buffer_frames(self, frame_size: int, buffer_pct: float) -> int:
        """Frames the buffer holds at this threshold (frames share the bytes)."""
        # The slack keeps float rounding (a whole count computed a hair below itself)
        # from costing a frame.
        return math.floor(self.buffer_bytes * buffer_pct / _FULL_PERCENT / frame_size + 1e-9)

    def service_us(self, frame_size: int) -> float:
        """Time the egress needs per frame at the DUT's capacity (queue drain rate)."""
        return (
            l1_frame_bits(frame_size)
            / (self.capacity(frame_size) * self.line_rate_bps)
            * (_US_PER_S)
        )

    def base_latency_us(self, frame_size: int) -> float:
        """Latency through an empty queue: the minimum, flat in buffer %."""
        serialization = (
            l2_frame_bits(frame_size) / self.line_rate_bps * _US_PER_S
            if self.store_and_forward
            else 0.0
        )
        return self.fixed_latency_us + serialization

    def egress_load(self, offered_fraction: float) -> float:
        """What the egress port sees, as a share of its line rate."""
        return offered_fraction * self.fan_in

    def steady_queue_frames(
        self, frame_size: int, offered_fraction: float, buffer_pct: float
    ) -> float:
        """Deepest queue of a steady trial. Overloaded (utilisation rho >= 1) the queue
        sits at the threshold; below, it peaks at rho^2 / (1 - rho) frames (twice the
        M/D/1 mean queue), capped by the threshold: latency grows with load."""
        rho = self.egress_load(offered_fraction) / self.capacity(frame_size)
        limit = float(self.buffer_frames(frame_size, buffer_pct))
        if rho >= 1.0:
            return limit
        return min(limit, rho * rho / (1.0 - rho))

    def burst_queue_and_loss(
        self, frame_size: int, burst_frames: int, offered_fraction: float, buffer_pct: float
    ) -> tuple[int, int]:
        """(deepest queue, frames lost) for a burst of `burst_frames` per TX port.

        While the burst arrives at egress load a > C, the DUT sends floor(N x C / a) of
        its N frames; the rest queue, and what exceeds the buffer is dropped.
        """
        arriving = burst_frames * self.fan_in
        load = self.egress_load(offered_fraction)
        capacity = self.capacity(frame_size)
        if load <= capacity:
            return 0, 0
        queued = arriving - math.floor(arriving * capacity / load)
        limit = self.buffer_frames(frame_size, buffer_pct)
        return min(queued, limit), max(0, queued - limit)

    def impairment(self, trial_index: int) -> Impairment:
        for index, impairment in self.impairments:
            if index == trial_index:
                return impairment
        return Impairment()


def uniform_histogram(edges: tuple[int, ...], low: float, high: float, samples: int) -> Histogram:
    """`samples` spread evenly over [low, high] and binned; whole counts by largest
    remainder, so they add up to `samples` exactly. All at `low` when low == high."""
    bins = len(edges) - 1
    shares = [0.0] * (bins + 1)  # last cell: outside the bins
    if high <= low:
        index = next((i for i in range(bins) if edges[i] <= low < edges[i + 1]), bins)
        shares[index] = 1.0
    else:
        width = high - low
        for i in range(bins):
            overlap = min(high, edges[i + 1]) - max(low, edges[i])
            shares[i] = max(0.0, overlap) / width
        shares[bins] = max(0.0, 1.0 - sum(shares[:bins]))
    exact = [share * samples for share in shares]
    counts = [math.floor(value) for value in exact]
    by_remainder = sorted(range(bins + 1), key=lambda i: counts[i] - exact[i])
    for i in by_remainder[: samples - sum(counts)]:
        counts[i] += 1
    return Histogram(edges=edges, counts=tuple(counts[:bins]), outside=counts[bins])


def _split(total: int, parts: int) -> list[int]:
    """total shared as evenly as whole numbers allow, the first parts taking the rest."""
    share, rest = divmod(total, parts)
    return [share + (1 if i < rest else 0) for i in range(parts)]


class SimulatedRunner:
    """Runs TrialSpecs against a SimulatedDut; also the DUT's control (set_buffer_percent).

    Mutable on purpose: the buffer threshold, the virtual clock and the noise generator
    are the device's state across trials.
    """

    __slots__ = ("_buffer_pct", "_calls", "_clock_s", "_dut", "_rng")

    def __init__(
        self,
        dut: SimulatedDut | None = None,
        *,
        buffer_pct: float = _FULL_PERCENT,
        start_time_s: float = 0.0,
    ) -> None:
        self._dut = dut if dut is not None else SimulatedDut()
        self._buffer_pct = _FULL_PERCENT
        self.set_buffer_percent(buffer_pct)
        self._clock_s = start_time_s
        self._calls = 0
        self._rng = random.Random(self._dut.seed)

    @property
    def dut(self) -> SimulatedDut:
        return self._dut

    @property
    def buffer_percent(self) -> float:
        return self._buffer_pct

    @property
    def calls(self) -> int:
        """Trials run so far."""
        return self._calls

    def set_buffer_percent(self, percent: float) -> None:
        if not 0.0 < percent <= _FULL_PERCENT:
            raise ValueError(f"buffer threshold must be in (0, 100] %, got {percent}")
        self._buffer_pct = float(percent)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        dut = self._dut
        self._calls += 1
        # Drawn first and always, so the noise depends only on how many trials ran.
        noise_us = self._rng.random() * dut.latency_noise_us
        size = spec.frame_size
        port_pps = line_rate_pps(dut.line_rate_bps, size)
        if spec.frame_count is not None:
            tx_per_port = spec.frame_count
            queue, lost = dut.burst_queue_and_loss(
                size, spec.frame_count, spec.offered_fraction, self._buffer_pct
            )
            queue_frames = float(queue)
        elif spec.shapes:
            tx_per_port, lost, queue_frames, course = self._shaped(spec, port_pps)
        else:
            tx_per_port = round(spec.offered_fraction * port_pps * spec.duration_s)
            queue_frames = dut.steady_queue_frames(size, spec.offered_fraction, self._buffer_pct)
            ratio = capacity_loss_ratio(dut.capacity(size), dut.egress_load(spec.offered_fraction))
            # Rounded up, as search/simulated.py does: any excess drops at least a frame.
            # (The slack keeps float noise such as 6000.000000001 from costing a frame.)
            lost = math.ceil(tx_per_port * dut.fan_in * ratio - 1e-9)
        impairment = dut.impairment(spec.trial_index)
        tx_total = tx_per_port * dut.fan_in
        lost = min(tx_total, lost + impairment.lost)
        low_us = dut.base_latency_us(size)
        high_us = low_us + queue_frames * dut.service_us(size) + noise_us
        streams = []
        for stream_id, (tx, stream_lost) in enumerate(
            zip([tx_per_port] * dut.fan_in, _split(lost, dut.fan_in), strict=True)
        ):
            extra = impairment if stream_id == 0 else Impairment()
            rx = tx - stream_lost + extra.duplicates
            stream = self._stream(stream_id, size, tx, rx, extra, low_us, high_us, queue_frames)
            if spec.shapes:
                stream = replace(stream, rate_course=course)
            streams.append(stream)
        started_at = self._clock_s
        self._clock_s += spec.duration_s
        return TrialResult(
            experiment=spec.experiment,
            trial_index=spec.trial_index,
            offered_fraction=spec.offered_fraction,
            offered_pps=spec.offered_fraction * port_pps * dut.fan_in,
            duration_s=spec.duration_s,
            frame_size=size,
            streams=tuple(streams),
            started_at=started_at,
            labels=spec.labels,
        )

    def _shaped(self, spec: TrialSpec,
                port_pps: float) -> tuple[int, int, float, tuple[RateStep, ...]]:
        """A shaped trial's frames per port, frames lost, deepest queue and each stream's
        steps (every stream shares one shape and each step's loss evenly)."""
        dut = self._dut
        shapes = {shape for _, shape in spec.shapes}
        if len(shapes) != 1 or len(spec.shapes) != dut.fan_in:
            raise ValueError(f"the simulated DUT runs one shape on all its {dut.fan_in} "
                             f"streams, got {spec.shapes}")
        shape = shapes.pop()
        tx_total = lost = 0
        queue = 0.0
        course = []
        sent_before = 0.0
        for step in shape_steps(shape, spec.duration_s, spec.shape_step_s):
            load = spec.offered_fraction * step.multiplier
            sent_by = sent_before + load * port_pps * step.duration_s
            tx = round(sent_by) - round(sent_before)
            sent_before = sent_by
            ratio = capacity_loss_ratio(dut.capacity(spec.frame_size), dut.egress_load(load))
            step_lost = math.ceil(tx * dut.fan_in * ratio - 1e-9) // dut.fan_in
            step_queue = dut.steady_queue_frames(spec.frame_size, min(load, 1.0),
                                                 self._buffer_pct)
            burst = shape.frames_per_burst
            if burst > 1 and ratio == 0:
                # Each burst arrives at line rate; at a mean load the DUT carries, its
                # queue empties before the next one (the gap's service time is at least
                # the burst's excess), so every burst loses the same.
                burst_queue, burst_lost = dut.burst_queue_and_loss(
                    spec.frame_size, burst, 1.0, self._buffer_pct)
                step_lost = tx // burst * burst_lost // dut.fan_in
                step_queue = float(burst_queue)
            tx_total += tx
            lost += step_lost * dut.fan_in
            queue = max(queue, step_queue)
            course.append(RateStep(step.start_s, step.duration_s, load * port_pps,
                                   tx / step.duration_s, (tx - step_lost) / step.duration_s,
                                   step.duration_s))
        return tx_total, lost, queue, tuple(course)

    def _stream(
        self,
        stream_id: int,
        size: int,
        tx: int,
        rx: int,
        extra: Impairment,
        low_us: float,
        high_us: float,
        queue_frames: float,
    ) -> StreamStats:
        dut = self._dut
        latency = None
        queue_depth = None
        if rx > 0:
            latency = latency_stats(
                samples=rx,
                min_us=low_us,
                max_us=high_us,
                sum_us=(low_us + high_us) / 2.0 * rx,
                # Mean |difference| of two independent uniform draws is a third of the range.
                jitter_sum_us=(high_us - low_us) / 3.0 * (rx - 1),
                histogram=uniform_histogram(dut.latency_edges_us, low_us, high_us, rx),
            )
            queue_depth = uniform_histogram(dut.queue_edges, 0.0, queue_frames, rx)
        return StreamStats(
            stream_id=stream_id,
            frame_size=size,
            tx_frames=tx,
            rx_frames=rx,
            rx_bytes=rx * size,
            gap_events=1 if tx > rx else 0,
            lost_in_gaps=max(0, tx - rx),
            reordered=extra.reordered,
            duplicates=extra.duplicates,
            latency=latency,
            queue_depth=queue_depth,
        )


@dataclass(frozen=True, slots=True)
class _CallCounter:
    """The one mutable part of a CrashingRunner."""

    calls: list[int] = field(default_factory=lambda: [0])

    def take(self) -> int:
        call = self.calls[0]
        self.calls[0] += 1
        return call


@dataclass(frozen=True, slots=True)
class CrashingRunner:
    """Wraps a runner and raises on chosen calls (0-based), as a switch that dies or a
    counter read that times out would."""

    inner: TrialRunner
    crash_on_calls: frozenset[int]
    message: str = "simulated: switch stopped answering"
    _counter: _CallCounter = field(default_factory=_CallCounter, init=False, repr=False)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        if self._counter.take() in self.crash_on_calls:
            raise ConnectionError(self.message)
        return self.inner.run_trial(spec)
