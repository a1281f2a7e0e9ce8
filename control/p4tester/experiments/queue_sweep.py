"""Latency vs DUT queue length (seed 004, draft-shi-dcllc-latency-test).

Two TX ports at ~50 % each (`offered_fraction` per port: 0.502 by default, just above
half, so the shared egress is slightly overloaded and its queue fills to the
threshold) feed one DUT egress port. The DUT's buffer threshold is stepped through
`buffer_percents` by an injected DutControl; at each threshold `repetitions` trials per
frame size record min/avg/max latency and the latency and queue-depth histograms.

Each (frame size, threshold) cell is summarised by the median over its repetitions of
each trial's min, avg and max (RFC 8219 7.2 reports the median of the trials): the
maximum is a single frame per trial, and one scheduling stall of a software switch
turns it into an outlier that a mean, or a single trial, would carry into the fit.

Expected shape (seed 004): minimum latency flat in buffer % (and linear in frame
size); maximum and average linear in buffer %. The result fits a line to min, avg
and max latency vs buffer % per frame size (slope, intercept, R^2), and vs frame size
per buffer %, and can plot the first through results.plots.plot_latency_vs_buffer.

Only trials both sides vouch for are fitted (issue 10): a trial that stayed
tester-limited or dut-limited through its repeats (the tester or the lab DUT, on a
busy shared host, dropped or delayed frames itself) is left out and counted. A frame
size whose vouched cells cover fewer than half of the thresholds gets no fit: the
result names it in `unfitted_sizes` instead of reporting a line through what is left.
A vouched trial can still carry a frame the host delayed (a stall is not a loss), so
`unrepeated_cells` names the thresholds whose repetitions disagree: a DUT's queue gives
the same figure each time, and the report calls a poor fit there the host's, not the DUT's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Final, Literal, Protocol

from p4tester.results.model import Histogram
from p4tester.results.plots import (
    BufferLatencyPoint,
    LinearFit,
    linear_fit,
    plot_latency_vs_buffer,
)
from p4tester.results.tables import trial_latency
from p4tester.streams.frame_sizes import RFC2544_FRAME_SIZES

from .errors import UnvouchedTrialError
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
# A DUT's queue gives the same latency figure at the same threshold trial after trial;
# when a threshold's repetitions differ by more than this factor, something else (on a
# shared host, a scheduling stall of a software switch) decided the figure.
MAX_REPEAT_SPREAD: Final = 1.5
LatencyFigure = Literal["min_us", "avg_us", "max_us"]
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
    repetitions: int = 1
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
        check_count(_OWNER, "repetitions", self.repetitions)
        check_count(_OWNER, "attempts", self.attempts)
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)


@dataclass(frozen=True, slots=True)
class QueueSweepPoint:
    """One trial: one frame size at one buffer threshold. Latency figures are None
    when nothing was received."""

    frame_size: int
    buffer_pct: float
    repetition: int
    trial_index: int
    loss_ratio: float
    min_us: float | None
    avg_us: float | None
    max_us: float | None
    latency_histogram: Histogram | None
    queue_depth_histogram: Histogram | None  # frames, as the DUT stamped them


@dataclass(frozen=True, slots=True)
class UnvouchedPoint:
    """A (frame size, threshold, repetition) the sweep left out: its last try's
    trial index and why (results.checks: tester-limited or dut-limited)."""

    frame_size: int
    buffer_pct: float
    repetition: int
    trial_index: int
    reason: str


@dataclass(frozen=True, slots=True)
class QueueSweepCell:
    """One frame size at one threshold: medians over the repetitions that received
    frames (`trials` of them). The fits and plots are drawn through these."""

    frame_size: int
    buffer_pct: float
    trials: int
    min_us: float
    avg_us: float
    max_us: float


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
    cells: tuple[QueueSweepCell, ...]  # cells where nothing was received are left out
    by_size: tuple[SizeFit, ...]
    by_buffer: tuple[BufferFit, ...]  # empty with a single frame size
    plots: tuple[Path, ...]
    # Trials left out because neither they nor their repeats could be vouched for.
    left_out: tuple[UnvouchedPoint, ...] = ()
    # Frame sizes with too few vouched thresholds to fit (see the module doc).
    unfitted_sizes: tuple[int, ...] = ()

    def size_fit(self, frame_size: int) -> SizeFit:
        for fit in self.by_size:
            if fit.frame_size == frame_size:
                return fit
        raise KeyError(f"no latency-vs-buffer fit for {frame_size} B (too few points?)")


@dataclass(frozen=True, slots=True)
class UnrepeatedCell:
    """A threshold whose repetitions disagree on a latency figure: `spread` is the
    largest of them over the smallest."""

    buffer_pct: float
    spread: float


def unrepeated_cells(result: QueueSweepResult, frame_size: int,
                     figure: LatencyFigure) -> list[UnrepeatedCell]:
    """The thresholds of `frame_size` whose repetitions' `figure` spread by more than
    MAX_REPEAT_SPREAD: evidence that the figure there is not the DUT's (a single run per
    threshold gives none)."""
    unrepeated = []
    for percent in result.config.buffer_percents:
        values = [value for point in result.points
                  if point.frame_size == frame_size and point.buffer_pct == percent
                  and (value := getattr(point, figure)) is not None and value > 0]
        if len(values) < 2:
            continue
        spread = max(values) / min(values)
        if spread > MAX_REPEAT_SPREAD:
            unrepeated.append(UnrepeatedCell(percent, spread))
    return unrepeated


def _fits(xs: list[float], cells: list[QueueSweepCell]) -> LatencyFits | None:
    if len(set(xs)) < 2:
        return None  # a line needs two distinct x values
    return LatencyFits(
        min=linear_fit(xs, [cell.min_us for cell in cells]),
        avg=linear_fit(xs, [cell.avg_us for cell in cells]),
        max=linear_fit(xs, [cell.max_us for cell in cells]),
    )


def _cell(points: list[QueueSweepPoint]) -> QueueSweepCell | None:
    received = [
        (p.min_us, p.avg_us, p.max_us)
        for p in points
        if p.min_us is not None and p.avg_us is not None and p.max_us is not None
    ]
    if not received:
        return None
    return QueueSweepCell(
        frame_size=points[0].frame_size,
        buffer_pct=points[0].buffer_pct,
        trials=len(received),
        min_us=median(r[0] for r in received),
        avg_us=median(r[1] for r in received),
        max_us=median(r[2] for r in received),
    )


def min_fit_thresholds(config: QueueSweepConfig) -> int:
    """Vouched thresholds a frame size needs for its fit: half of them, at least 2."""
    return max(2, math.ceil(len(config.buffer_percents) / 2))


def _point(
    config: QueueSweepConfig, recorder: Recorder, size: int, percent: float, repetition: int
) -> QueueSweepPoint | UnvouchedPoint:
    try:
        trial = recorder.valid_trial(
            config.experiment,
            size,
            config.offered_fraction,
            config.trial_duration_s,
            labels=(
                *config.labels,
                ("buffer_pct", f"{percent:g}"),
                ("repetition", str(repetition)),
            ),
            attempts=config.attempts,
        )
    except UnvouchedTrialError as unvouched:
        last = unvouched.last
        return UnvouchedPoint(size, percent, repetition, last.trial_index,
                              last.invalid_reason or "unvouched")
    latency = trial_latency(trial)
    return QueueSweepPoint(
        frame_size=size,
        buffer_pct=percent,
        repetition=repetition,
        trial_index=trial.trial_index,
        loss_ratio=trial.loss_ratio,
        min_us=None if latency is None else latency.min_us,
        avg_us=None if latency is None else latency.avg_us,
        max_us=None if latency is None else latency.max_us,
        latency_histogram=None if latency is None else latency.histogram,
        queue_depth_histogram=queue_depth_histogram(trial),
    )


def _plots(config: QueueSweepConfig, cells: tuple[QueueSweepCell, ...]) -> tuple[Path, ...]:
    if config.plot_dir is None:
        return ()
    written = []
    for size in config.frame_sizes:
        plotted = [
            BufferLatencyPoint(c.buffer_pct, c.min_us, c.avg_us, c.max_us)
            for c in cells
            if c.frame_size == size
        ]
        if len(plotted) < 2:
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
    """Set each threshold once, then run every frame size at it `repetitions` times."""
    points: list[QueueSweepPoint] = []
    left_out: list[UnvouchedPoint] = []
    cells: list[QueueSweepCell] = []
    for percent in config.buffer_percents:
        # Set even when every trial at this threshold comes from the log: it is cheap,
        # and the next unfinished trial needs the DUT in this state.
        dut.set_buffer_percent(percent)
        for size in config.frame_sizes:
            repeated = []
            for repetition in range(config.repetitions):
                point = _point(config, recorder, size, percent, repetition)
                if isinstance(point, UnvouchedPoint):
                    left_out.append(point)
                else:
                    repeated.append(point)
            points.extend(repeated)
            cell = _cell(repeated) if repeated else None
            if cell is not None:
                cells.append(cell)
    by_size = []
    unfitted = []
    for size in config.frame_sizes:
        chosen = [c for c in cells if c.frame_size == size]
        fits = _fits([c.buffer_pct for c in chosen], chosen)
        if fits is None or len({c.buffer_pct for c in chosen}) < min_fit_thresholds(config):
            unfitted.append(size)  # a line through what is left would be a guess
        else:
            by_size.append(SizeFit(size, fits))
    by_buffer = []
    for percent in config.buffer_percents:
        chosen = [c for c in cells if c.buffer_pct == percent]
        fits = _fits([float(c.frame_size) for c in chosen], chosen)
        if fits is not None:
            by_buffer.append(BufferFit(percent, fits))
    return QueueSweepResult(
        config=config,
        points=tuple(points),
        cells=tuple(cells),
        by_size=tuple(by_size),
        by_buffer=tuple(by_buffer),
        plots=_plots(config, tuple(cells)),
        left_out=tuple(left_out),
        unfitted_sizes=tuple(unfitted),
    )
