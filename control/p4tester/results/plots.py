"""PNG plots of results, drawn with matplotlib's Agg renderer.

Each function takes typed results and a path, writes one PNG and returns the path.
Figures are built on their own Agg canvas instead of through pyplot, so nothing opens a
window, no global backend is switched and no figure lingers in pyplot's registry; the
same input gives the same file (fixed size and dpi, no timestamps). Invalid trials
(valid=False) are left out: their figures are not measurements. Loads the tester
itself could not carry (tester-limited, results.checks) are marked instead, so a
plot never shows the tester's own loss as the DUT's, nor hides where it gave out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from p4tester.results.latency import merge_latency
from p4tester.results.model import StreamStats, TrialResult
from p4tester.results.tables import ThroughputPoint

_FIGSIZE_IN: Final = (8.0, 5.0)
_DPI: Final = 100
_GRID_ALPHA: Final = 0.3
# Tester histograms have at most 31 bins; one subplot row per stream stays readable up
# to about this many streams.
_MAX_HISTOGRAM_PANELS: Final = 16


class PlotError(ValueError):
    """Nothing to plot, or inputs that cannot make the asked-for plot."""


@dataclass(frozen=True, slots=True)
class BufferLatencyPoint:
    """Latency at one DUT buffer threshold (seed 004: latency vs queue length)."""

    buffer_pct: float  # DUT buffer threshold, % of its maximum
    min_us: float
    avg_us: float
    max_us: float


@dataclass(frozen=True, slots=True)
class LinearFit:
    """y = slope * x + intercept by least squares; r_squared = 1 - SS_res / SS_tot."""

    slope: float
    intercept: float
    r_squared: float


def linear_fit(xs: Sequence[float], ys: Sequence[float]) -> LinearFit:
    """Ordinary least squares. A constant y fits perfectly (R^2 = 1): a flat minimum
    latency is the expected shape, not a failed fit."""
    if len(xs) != len(ys):
        raise PlotError(f"linear fit needs as many x as y values, got {len(xs)} and {len(ys)}")
    if len(set(xs)) < 2:
        raise PlotError("linear fit needs at least two distinct x values")
    n = len(xs)
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    intercept = mean_y - slope * mean_x
    ss_tot = sum((y - mean_y) ** 2 for y in ys)
    ss_res = sum((y - (slope * x + intercept)) ** 2 for x, y in zip(xs, ys, strict=True))
    r_squared = 1.0 if ss_tot == 0 else 1.0 - ss_res / ss_tot
    return LinearFit(slope, intercept, r_squared)


def _figure(rows: int = 1) -> tuple[Figure, list[Axes]]:
    figure = Figure(figsize=(_FIGSIZE_IN[0], _FIGSIZE_IN[1] * max(1.0, rows / 2)), dpi=_DPI)
    FigureCanvasAgg(figure)  # attaches itself to the figure: Agg, no display needed
    axes = [figure.add_subplot(rows, 1, row + 1) for row in range(rows)]
    return figure, axes


def _save(figure: Figure, path: Path | str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, format="png", dpi=_DPI)
    return path


def _valid(trials: Iterable[TrialResult]) -> list[TrialResult]:
    kept = [trial for trial in trials if trial.valid]
    if not kept:
        raise PlotError("no valid trials to plot (every trial given has valid=False or none)")
    return kept


def _plot_intended_above_proven(axes: Axes, points: Sequence[ThroughputPoint]) -> None:
    """A grey dash at the load a search set where its trial proved it offered less: the
    point below it is the bound (what reached the DUT), the dash what was asked."""
    shown = [(p.frame_size, intended.percent) for p in points
             for _, _, intended in p.below_intended()]
    if shown:
        axes.plot([size for size, _ in shown], [percent for _, percent in shown],
                  linestyle="none", marker="_", markersize=14, color="grey",
                  label="set, not proven (its trial offered less)")


def plot_throughput(
    points: Sequence[ThroughputPoint],
    path: Path | str,
    title: str = "Throughput (RFC 2544)",
    pdr_label: str = "PDR",
) -> Path:
    """NDR and PDR (% of line rate, at the rate their trials proved they offered) vs
    frame size; a size whose goal was not found has no point."""
    if not points:
        raise PlotError("no throughput points to plot")
    figure, (axes,) = _figure()
    ordered = sorted(points, key=lambda p: p.frame_size)
    for label, marker, fractions in (
        ("NDR", "o", [p.ndr_fraction for p in ordered]),
        (pdr_label, "s", [p.pdr_fraction for p in ordered]),
    ):
        xs = [p.frame_size for p, f in zip(ordered, fractions, strict=True) if f is not None]
        ys = [f * 100.0 for f in fractions if f is not None]
        if xs:
            axes.plot(xs, ys, marker=marker, label=label)
    limited = [p for p in ordered if p.ndr_tester_limited and p.ndr_fraction is not None]
    if limited:
        # An upward triangle: the DUT carried all the tester could offer; its limit lies
        # at or above the point.
        axes.plot([p.frame_size for p in limited],
                  [(p.ndr_fraction or 0.0) * 100.0 for p in limited], linestyle="none",
                  marker="^", markersize=12, markerfacecolor="none", color="red",
                  label="tester-limited (DUT limit >= point)")
    _plot_intended_above_proven(axes, ordered)
    # Frame sizes double from 64 B up: a base-2 log axis spaces them evenly.
    axes.set_xscale("log", base=2)
    sizes = [p.frame_size for p in ordered]
    axes.set_xticks(sizes, [str(size) for size in sizes])
    axes.minorticks_off()
    axes.set_ylim(0, 105)
    axes.set_xlabel("frame size incl. FCS [B]")
    axes.set_ylabel("throughput [% of line rate]")
    axes.set_title(title)
    axes.grid(True, alpha=_GRID_ALPHA)
    axes.legend()
    return _save(figure, path)


def _loss_curves(
    axes: Axes,
    trials: Iterable[TrialResult],
    curve_of: Callable[[TrialResult], float],
    x_of: Callable[[TrialResult], float],
    label_of: Callable[[float], str],
    marker: str,
) -> None:
    """Loss % against x_of(trial), one curve per curve_of(trial) value."""
    trials = list(trials)
    curves: dict[float, list[TrialResult]] = {}
    for trial in _valid(trials):
        curves.setdefault(curve_of(trial), []).append(trial)
    for key in sorted(curves):
        curve = sorted(curves[key], key=x_of)
        axes.plot([x_of(t) for t in curve], [t.loss_ratio * 100.0 for t in curve],
                  marker=marker, label=label_of(key))
    limited = [t for t in trials if not t.valid and t.tester_limited]
    if limited:
        # Not a loss figure: where the tester could not carry the load, at 0 % on the
        # x axis, so the reader sees which loads are unmeasured.
        axes.plot([x_of(t) for t in limited], [0.0] * len(limited), linestyle="none",
                  marker="x", color="red", label="tester-limited (not measured)")
    axes.set_ylabel("frame loss [%]")
    axes.grid(True, alpha=_GRID_ALPHA)


def plot_frame_loss_rate(
    trials: Iterable[TrialResult],
    path: Path | str,
    title: str = "Frame loss rate (RFC 2544)",
) -> Path:
    """Loss % vs offered load % of line rate, one curve per frame size."""
    figure, (axes,) = _figure()
    _loss_curves(axes, trials, lambda t: t.frame_size, lambda t: t.offered_fraction * 100.0,
                 lambda size: f"{size:g} B", "o")
    axes.set_xlabel("offered load [% of line rate]")
    axes.set_title(title)
    axes.legend(title="frame size")
    return _save(figure, path)


def plot_latency_histograms(
    streams: Sequence[StreamStats],
    path: Path | str,
    title: str = "Latency histogram",
) -> Path:
    """One panel per stream with a latency histogram: frames per bin.

    Bins are drawn equally wide (they are usually log-spaced, so a true-width drawing
    would squash the narrow low bins); each bar is labelled with its lower edge. The
    last bar (grey) counts frames outside the bins.
    """
    with_histogram = [
        (s, s.latency.histogram)
        for s in streams
        if s.latency is not None and s.latency.histogram is not None
    ]
    if not with_histogram:
        raise PlotError("none of the streams has a latency histogram to plot")
    if len(with_histogram) > _MAX_HISTOGRAM_PANELS:
        raise PlotError(
            f"{len(with_histogram)} streams have histograms; plot at most "
            f"{_MAX_HISTOGRAM_PANELS} at a time (pass a slice of the streams)"
        )
    figure, panels = _figure(len(with_histogram))
    for axes, (stream, histogram) in zip(panels, with_histogram, strict=True):
        bins = len(histogram.counts)
        edges = histogram.edges
        axes.bar(range(bins), histogram.counts, width=0.9, align="edge", label="in bins")
        axes.bar(
            [bins],
            [histogram.outside],
            width=0.9,
            align="edge",
            color="grey",
            label=f"outside {edges[0]}..{edges[-1]} us",
        )
        axes.set_xticks([*range(bins), bins], [*(str(edge) for edge in edges[:-1]), "out"])
        axes.tick_params(axis="x", labelrotation=90, labelsize="small")
        axes.set_ylabel("frames")
        axes.set_title(f"{title}: stream {stream.stream_id} ({stream.frame_size} B)")
        axes.grid(True, axis="y", alpha=_GRID_ALPHA)
        axes.legend(fontsize="small")
    panels[-1].set_xlabel("bin lower edge [us]")
    return _save(figure, path)


def plot_latency_vs_buffer(
    points: Sequence[BufferLatencyPoint],
    path: Path | str,
    title: str = "Latency vs DUT buffer threshold",
) -> Path:
    """Min/avg/max latency vs buffer %, each with its least-squares line; slope,
    intercept and R^2 go into the legend (seed 004: min flat, avg/max linear)."""
    if len({p.buffer_pct for p in points}) < 2:
        raise PlotError("latency vs buffer needs points at two or more buffer thresholds")
    figure, (axes,) = _figure()
    ordered = sorted(points, key=lambda p: p.buffer_pct)
    xs = [p.buffer_pct for p in ordered]
    for name, marker, ys in (
        ("min", "v", [p.min_us for p in ordered]),
        ("avg", "o", [p.avg_us for p in ordered]),
        ("max", "^", [p.max_us for p in ordered]),
    ):
        fit = linear_fit(xs, ys)
        (line,) = axes.plot(xs, ys, marker=marker, linestyle="none", label=name)
        axes.plot(
            [xs[0], xs[-1]],
            [fit.slope * xs[0] + fit.intercept, fit.slope * xs[-1] + fit.intercept],
            color=line.get_color(),
            label=(
                f"{name} fit: {fit.slope:.3g} us/% + {fit.intercept:.3g} us, "
                f"R$^2$={fit.r_squared:.3f}"
            ),
        )
    axes.set_xlabel("DUT buffer threshold [%]")
    axes.set_ylabel("latency [us]")
    axes.set_title(title)
    axes.grid(True, alpha=_GRID_ALPHA)
    axes.legend(fontsize="small")
    return _save(figure, path)


def plot_loss_vs_frame_size(
    trials: Iterable[TrialResult],
    path: Path | str,
    title: str = "Frame loss vs frame size",
) -> Path:
    """Loss % vs frame size (a frame-size scan), one curve per offered load.

    Linear x axis and every measured size marked, so loss that comes back in a size
    range (seed 000: 230-278 B) shows as the bump it is.
    """
    figure, (axes,) = _figure()
    # Rounded so 0.1 + 0.2-style float noise does not split one load into two curves.
    _loss_curves(axes, trials, lambda t: round(t.offered_fraction, 9),
                 lambda t: t.frame_size, lambda load: f"{load * 100.0:g}% of line rate", ".")
    axes.set_xlabel("frame size incl. FCS [B]")
    axes.set_title(title)
    axes.legend(title="offered load")
    return _save(figure, path)


def plot_intervals(
    trials: Iterable[TrialResult],
    path: Path | str,
    title: str = "Soak: loss and latency per interval",
) -> Path:
    """Loss % (top) and average latency (bottom) per trial in run order: a soak's
    intervals or a ramp's steps, so a bad minute stands out."""
    kept = sorted(_valid(trials), key=lambda t: t.trial_index)
    figure, (loss_axes, latency_axes) = _figure(rows=2)
    indexes = [t.trial_index for t in kept]
    loss_axes.plot(indexes, [t.loss_ratio * 100.0 for t in kept], marker=".")
    loss_axes.set_ylabel("frame loss [%]")
    loss_axes.set_title(title)
    averages = []
    for trial in kept:
        merged = merge_latency([s.latency for s in trial.streams if s.latency is not None])
        averages.append(merged.avg_us if merged is not None else float("nan"))
    latency_axes.plot(indexes, averages, marker=".")
    latency_axes.set_ylabel("average latency [us]")
    latency_axes.set_xlabel("trial (interval) in run order")
    for axes in (loss_axes, latency_axes):
        axes.grid(True, alpha=_GRID_ALPHA)
    return _save(figure, path)


def plot_rate_course(trial: TrialResult, path: Path | str) -> Path:
    """Each shaped stream's rate over the trial: the shape's intended rate per step (a
    staircase) and the rates measured in each step, sent and received, so a DUT that
    forwards up to some rate shows where the received rate flattens."""
    shaped = [s for s in trial.streams if s.rate_course]
    if not shaped:
        raise PlotError("no shaped stream in the trial: nothing to plot")
    figure, axes_list = _figure(rows=len(shaped))
    for axes, stream in zip(axes_list, shaped, strict=True):
        steps = stream.rate_course
        starts = [s.start_s for s in steps] + [steps[-1].start_s + steps[-1].duration_s]
        axes.stairs([s.intended_pps for s in steps], starts, label="intended", linewidth=2)
        middles = [s.start_s + s.duration_s / 2 for s in steps]
        axes.plot(middles, [math.nan if s.sent_pps is None else s.sent_pps for s in steps],
                  marker="o", linestyle="", label="sent (measured)")
        axes.plot(middles, [math.nan if s.received_pps is None else s.received_pps
                            for s in steps], marker="x", linestyle="", label="received")
        axes.set_ylabel(f"stream {stream.stream_id} [frames/s]")
        axes.grid(True, alpha=_GRID_ALPHA)
        axes.legend(loc="best")
    axes_list[-1].set_xlabel("time since the trial's start [s]")
    return _save(figure, path)


def plot_port_forwarding(bars: Sequence[tuple[str, float, float]], title: str,
                         path: Path | str) -> Path:
    """(label, intended frames/s, forwarding rate) per RX port: pairs of bars, so a
    port that forwards less than it was offered stands out (RFC 2889)."""
    if not bars:
        raise PlotError("no port figures: nothing to plot")
    figure, (axes,) = _figure()
    positions = range(len(bars))
    width = 0.4
    axes.bar([x - width / 2 for x in positions], [b[1] for b in bars], width,
             label="intended (offered to the port)")
    axes.bar([x + width / 2 for x in positions], [b[2] for b in bars], width,
             label="forwarding rate (received)")
    axes.set_xticks(list(positions), [b[0] for b in bars])
    axes.set_xlabel("frame size, RX port")
    axes.set_ylabel("frames/s")
    axes.set_title(title)
    axes.grid(True, axis="y", alpha=_GRID_ALPHA)
    axes.legend(loc="best")
    return _save(figure, path)


@dataclass(frozen=True, slots=True)
class ForwardingCurve:
    """One frame size's forwarding rate over rising loads (RFC 2889 5.6): (intended load,
    forwarding rate) points, both in % of line rate, the last the forward pressure
    trial's (above 100 %: a gap shorter than 96 bit times); `mfr`: the highest's index."""

    label: str
    points: tuple[tuple[float, float], ...]
    mfr: int


def plot_forwarding_curves(curves: Sequence[ForwardingCurve], tolerance: float, title: str,
                           path: Path | str) -> Path:
    """Forwarding rate against intended load, a line per frame size, against the legal
    maximum (line rate with 96-bit gaps) and 'everything offered'; the MFR is starred.
    Below, the same near line rate, where the verdict is: a DUT whose last point is
    above the band (the legal maximum + `tolerance`) exerts forward pressure."""
    if not curves or not all(c.points for c in curves):
        raise PlotError("no forwarding rates: nothing to plot")
    figure, (whole, near) = _figure(rows=2)
    highest = max(x for c in curves for x, _ in c.points)
    near_from = min(x for c in curves for x, _ in c.points[-2:])
    for axes in (whole, near):
        axes.plot([0.0, highest], [0.0, highest], color="grey", linestyle=":",
                  label="everything offered forwarded")
        axes.axhline(100.0, color="black", linestyle="--",
                     label="legal maximum (line rate, 96-bit gaps)")
        for curve in curves:
            (line,) = axes.plot([x for x, _ in curve.points], [y for _, y in curve.points],
                                marker="o", label=curve.label)
            x, y = curve.points[curve.mfr]
            axes.plot([x], [y], marker="*", markersize=14, color=line.get_color(),
                      linestyle="none")
            x, y = curve.points[-1]
            axes.plot([x], [y], marker="s", markersize=9, markerfacecolor="none",
                      color=line.get_color(), linestyle="none")
        axes.grid(True, alpha=_GRID_ALPHA)
    near.axhspan(100.0, 100.0 * (1.0 + tolerance), color="grey", alpha=0.2,
                 label=f"within {tolerance:.1%}: not judged above")
    near_ys = [y for c in curves for x, y in c.points if x >= near_from]
    near.set_xlim(near_from - 0.5, highest + 0.5)
    near.set_ylim(min(99.0, *near_ys) - 0.5, max(100.0 * (1.0 + 2 * tolerance), *near_ys) + 0.5)
    whole.set_title(title)
    whole.set_ylabel("forwarding rate, % of line rate")
    near.set_ylabel("near line rate")
    near.set_xlabel("intended load, % of line rate (hollow: 88-bit gaps; star: MFR)")
    whole.legend(loc="best")
    near.legend(loc="best", fontsize="small")
    return _save(figure, path)


def plot_receivers(trial: TrialResult, path: Path | str) -> Path:
    """Each stream received on several ports, a panel each: the frames each RX port
    received, against what each port was due (a replicated stream: every frame it sent)
    or an even share of them (a spread stream: the imbalance shows as bars off it)."""
    several = [s for s in trial.streams if s.receivers]
    if not several:
        raise PlotError("no stream of the trial is received on several ports: nothing to plot")
    figure, axes_list = _figure(rows=len(several))
    for axes, stream in zip(axes_list, several, strict=True):
        ports = [f"port {r.port}" for r in stream.receivers]
        axes.bar(ports, [r.rx_frames for r in stream.receivers], label="received")
        if stream.replicated:
            level, what = float(stream.tx_frames), "due on each port (every frame sent)"
        else:
            level, what = stream.tx_frames / len(stream.receivers), "an even share"
        axes.axhline(level, color="black", linestyle="--", label=what)
        mode = "replicated" if stream.replicated else "spread"
        axes.set_ylabel(f"stream {stream.stream_id}, {mode} [frames]")
        axes.grid(True, axis="y", alpha=_GRID_ALPHA)
        axes.legend(loc="best")
    axes_list[0].set_title(f"trial {trial.trial_index}: frames per RX port "
                           f"({trial.frame_size} B, load {trial.offered_fraction * 100:.2f}%)")
    return _save(figure, path)
