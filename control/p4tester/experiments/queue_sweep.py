"""Latency vs DUT queue length (seed 004, draft-shi-dcllc-latency-test).

Two TX ports at ~50 % each (`offered_fraction` per port: 0.502 by default, just above
half, so the shared egress is slightly overloaded and its queue fills to the
threshold) feed one DUT egress port. The DUT's buffer threshold is stepped through
`buffer_percents` by an injected DutControl; at each threshold one trial per frame
size records min/avg/max latency and the latency and queue-depth histograms.

Expected shape (seed 004): minimum latency flat in buffer % (and linear in frame
size); maximum and average linear in buffer %. The result fits a line to min, avg
and max latency vs buffer % per frame size (slope, intercept, R^2), and vs frame size
per buffer %, and can plot the first through results.plots.plot_latency_vs_buffer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from p4tester.results.model import Histogram
from p4tester.results.plots import (
    BufferLatencyPoint,
    LinearFit,
    linear_fit,
    plot_latency_vs_buffer,
)
from p4tester.results.tables import trial_latency
from p4tester.streams.frame_sizes import RFC2544_FRAME_SIZES

from .figures import queue_depth_histogram
from .recording import DEFAULT_ATTEMPTS, Labels, Recorder
from .validation import (
    check_count,
    check_fraction,
    check_frame_sizes,
    check_labels,
    check_name,
    check_positive,
)

SEED_004_BUFFER_PERCENTS: Final = (
    1.0,
    5.0,
    10.0,
    20.0,
    30.0,
    40.0,
    50.0,
    60.0,
    70.0,
    80.0,
    90.0,
    100.0,
)
SEED_004_PORT_LOAD: Final = 0.502  # per TX port; seed 004 stepped 49.8..50.2 %
_OWNER: Final = "QueueSweepConfig"


class DutControl(Protocol):
    """What the sweep needs of the DUT: its egress buffer threshold, in % of the
    maximum (BMv2: a queue depth set over thrift; a real switch: its CLI)."""

    def set_buffer_percent(self, percent: float) -> None: ...


@dataclass(frozen=True, slots=True)
class QueueSweepConfig:
    """plot_dir: where to write one latency-vs-buffer PNG per frame size (None: no
    plots)."""

    frame_sizes: tuple[int, ...] = RFC2544_FRAME_SIZES
    buffer_percents: tuple[float, ...] = SEED_004_BUFFER_PERCENTS
    offered_fraction: float = SEED_004_PORT_LOAD
    trial_duration_s: float = 60.0
    plot_dir: Path | None = None
    attempts: int = DEFAULT_ATTEMPTS
    experiment: str = "queue-sweep"
    labels: Labels = ()

    def __post_init__(self) -> None:
        check_frame_sizes(_OWNER, self.frame_sizes)
        if len(set(self.buffer_percents)) < 2:
            raise ValueError(
                f"{_OWNER}: buffer_percents {self.buffer_percents} needs two or more "
                "different thresholds to fit a line, e.g. (1, 5, 10, 20, ..., 100)"
            )
        if len(set(self.buffer_percents)) != len(self.buffer_percents):
            raise ValueError(f"{_OWNER}: buffer_percents lists a threshold twice")
        for percent in self.buffer_percents:
            if not 0.0 < percent <= 100.0:
                raise ValueError(f"{_OWNER}: buffer threshold {percent} must be in (0, 100] %")
        check_fraction(_OWNER, "offered_fraction", self.offered_fraction)
        check_positive(_OWNER, "trial_duration_s", self.trial_duration_s, "seconds")
        check_count(_OWNER, "attempts", self.attempts)
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)


@dataclass(frozen=True, slots=True)
class QueueSweepPoint:
    """One trial: one frame size at one buffer threshold. Latency figures are None
    when nothing was received."""

    frame_size: int
    buffer_pct: float
    trial_index: int
    loss_ratio: float
    min_us: float | None
    avg_us: float | None
    max_us: float | None
    latency_histogram: Histogram | None
    queue_depth_histogram: Histogram | None  # frames, as the DUT stamped them


@dataclass(frozen=True, slots=True)
class LatencyFits:
    """Least-squares lines of min, avg and max latency against one variable."""

    min: LinearFit
    avg: LinearFit
    max: LinearFit


@dataclass(frozen=True, slots=True)
class SizeFit:
    """Latency vs buffer % at one frame size (slope in us per %)."""

    frame_size: int
    fits: LatencyFits


@dataclass(frozen=True, slots=True)
class BufferFit:
    """Latency vs frame size at one buffer % (slope in us per byte)."""

    buffer_pct: float
    fits: LatencyFits


@dataclass(frozen=True, slots=True)
class QueueSweepResult:
    config: QueueSweepConfig
    points: tuple[QueueSweepPoint, ...]
    by_size: tuple[SizeFit, ...]
    by_buffer: tuple[BufferFit, ...]  # empty with a single frame size
    plots: tuple[Path, ...]

    def size_fit(self, frame_size: int) -> SizeFit:
        for fit in self.by_size:
            if fit.frame_size == frame_size:
                return fit
        raise KeyError(f"no latency-vs-buffer fit for {frame_size} B (too few points?)")


def _fits(xs: list[float], points: list[QueueSweepPoint]) -> LatencyFits | None:
    pairs = [
        (x, p.min_us, p.avg_us, p.max_us)
        for x, p in zip(xs, points, strict=True)
        if p.min_us is not None and p.avg_us is not None and p.max_us is not None
    ]
    if len({x for x, *_ in pairs}) < 2:
        return None  # a line needs two distinct x values
    x = [pair[0] for pair in pairs]
    return LatencyFits(
        min=linear_fit(x, [pair[1] for pair in pairs]),
        avg=linear_fit(x, [pair[2] for pair in pairs]),
        max=linear_fit(x, [pair[3] for pair in pairs]),
    )


def _point(
    config: QueueSweepConfig, recorder: Recorder, size: int, percent: float
) -> QueueSweepPoint:
    trial = recorder.valid_trial(
        config.experiment,
        size,
        config.offered_fraction,
        config.trial_duration_s,
        labels=(*config.labels, ("buffer_pct", f"{percent:g}")),
        attempts=config.attempts,
    )
    latency = trial_latency(trial)
    return QueueSweepPoint(
        frame_size=size,
        buffer_pct=percent,
        trial_index=trial.trial_index,
        loss_ratio=trial.loss_ratio,
        min_us=None if latency is None else latency.min_us,
        avg_us=None if latency is None else latency.avg_us,
        max_us=None if latency is None else latency.max_us,
        latency_histogram=None if latency is None else latency.histogram,
        queue_depth_histogram=queue_depth_histogram(trial),
    )


def _plots(config: QueueSweepConfig, points: tuple[QueueSweepPoint, ...]) -> tuple[Path, ...]:
    if config.plot_dir is None:
        return ()
    written = []
    for size in config.frame_sizes:
        plotted = [
            BufferLatencyPoint(p.buffer_pct, p.min_us, p.avg_us, p.max_us)
            for p in points
            if p.frame_size == size
            and p.min_us is not None
            and p.avg_us is not None
            and p.max_us is not None
        ]
        if len({p.buffer_pct for p in plotted}) < 2:
            continue  # nothing received at most thresholds: no line to draw
        written.append(
            plot_latency_vs_buffer(
                plotted,
                config.plot_dir / f"latency_vs_buffer_{size}B.png",
                title=f"Latency vs DUT buffer threshold, {size} B frames",
            )
        )
    return tuple(written)


def run_queue_sweep(
    config: QueueSweepConfig, recorder: Recorder, dut: DutControl
) -> QueueSweepResult:
    """Set each threshold once, then run every frame size at it."""
    points: list[QueueSweepPoint] = []
    for percent in config.buffer_percents:
        # Set even when every trial at this threshold comes from the log: it is cheap,
        # and the next unfinished trial needs the DUT in this state.
        dut.set_buffer_percent(percent)
        points.extend(_point(config, recorder, size, percent) for size in config.frame_sizes)
    done = tuple(points)
    by_size = []
    for size in config.frame_sizes:
        chosen = [p for p in done if p.frame_size == size]
        fits = _fits([p.buffer_pct for p in chosen], chosen)
        if fits is not None:
            by_size.append(SizeFit(size, fits))
    by_buffer = []
    for percent in config.buffer_percents:
        chosen = [p for p in done if p.buffer_pct == percent]
        fits = _fits([float(p.frame_size) for p in chosen], chosen)
        if fits is not None:
            by_buffer.append(BufferFit(percent, fits))
    return QueueSweepResult(
        config=config,
        points=done,
        by_size=tuple(by_size),
        by_buffer=tuple(by_buffer),
        plots=_plots(config, done),
    )
