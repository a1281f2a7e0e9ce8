"""The lines a run's report adds under its tables: where to look first, what a bound
measured while the DUT buffered means, the tester's own latency, and fits that could
not be measured on this host."""

from __future__ import annotations

from p4tester.experiments.latency import LatencySummary
from p4tester.experiments.queue_sweep import (
    LatencyFigure,
    QueueSweepResult,
    unrepeated_cells,
)
from p4tester.experiments.throughput import ThroughputResult
from p4tester.results.buffer_fill import buffer_fill
from p4tester.results.model import TrialResult
from p4tester.results.plots import LinearFit
from p4tester.results.reference import SPIKED_MARK
from p4tester.results.tables import LOWER_BOUND_MARK, bounded_text, losing_streams_text

# Seed 004 expects average and maximum latency linear in buffer %: below this R^2 the
# line is not the DUT's shape, and on a busy host it is the host's.
MIN_FIT_R_SQUARED = 0.9


def losing_stream_lines(result: ThroughputResult) -> list[str]:
    """A line per goal and frame size naming the streams that lost frames at the lowest
    failing load: with many streams, where to look first."""
    return [f"{size.frame_size} B {bounds.goal}: lowest failing load {bounds.upper.percent:.2f} "
            f"%, frames lost per stream (stream:lost) {losing_streams_text(bounds.losing_streams)}"
            for size in result.sizes for bounds in (size.ndr, size.pdr)
            if bounds.upper is not None and bounds.losing_streams]


def capacity_lines(result: ThroughputResult) -> list[str]:
    """A line per goal and frame size whose search went no higher than the tester's
    calibrated capacity: met there, the DUT's limit is above what this host can
    measure; failed for the tester below it, the stored calibration is out of date."""
    lines = []
    for size in result.sizes:
        capped = result.config.max_fraction(size.frame_size) < 1.0
        for bounds in (size.ndr, size.pdr):
            if bounds.at_tester_capacity and bounds.lower is not None:
                lines.append(
                    f"{size.frame_size} B {bounds.goal} >= {bounds.lower.pps:.0f} frames/s "
                    f"({bounds.lower.percent:.2f} %): the tester's capacity here; the DUT "
                    "met the goal up to it, and its limit may lie anywhere above")
            elif capped and bounds.tester_limited and bounds.upper is not None:
                lines.append(
                    f"{size.frame_size} B {bounds.goal}: the tester could not carry "
                    f"{bounds.upper.pps:.0f} frames/s, below the capacity its stored "
                    "calibration claims: the host is busier than when it was calibrated; "
                    "run p4tester calibrate again")
    return lines


def buffering_lines(result: ThroughputResult) -> list[str]:
    """A line per goal and frame size whose bound was measured in a trial the DUT
    buffered through: latency rose, the buffer was filling, and a longer trial would
    have filled it; the trial length suggested from how fast it filled
    (results.buffer_fill; RFC 2544 asks for 60-s trials)."""
    lines = []
    for size in result.sizes:
        for bounds in (size.ndr, size.pdr):
            if bounds.lower is None or bounds.buffered_us is None:
                continue
            fill = buffer_fill(bounds.buffered_us, bounds.trial_s, bounds.lower.pps)
            lines.append(
                f"{size.frame_size} B {bounds.goal}: the DUT was filling its buffer in the "
                f"{bounds.trial_s:g}-s trial at {bounds.lower.percent:.2f} % (latency rose "
                f"{bounds.buffered_us / 1000:.1f} ms): {fill.describe()}; the bound may hold "
                f"only for trials that short: measure with longer ones (--duration "
                f"{fill.suggested_trial_s:g}; RFC 2544: 60)")
    return lines


def percentile_text(value: float | None, lower_bound: bool = False) -> str:
    """A percentile from histogram interpolation (tables.bounded_text: '≥ 5000' when
    only its lower bound is known); None (no histogram) said as such."""
    return "n/a" if value is None else bounded_text(value, lower_bound)


def latency_lines(summary: LatencySummary) -> str:
    """Typical and worst-case latency of a latency run, then the tester's own."""
    typical = percentile_text(summary.typical_latency_us,
                              summary.is_lower_bound("typical_latency_us"))
    worst = percentile_text(summary.worst_case_latency_us,
                            summary.is_lower_bound("worst_case_latency_us"))
    return (f"\ntypical latency (median of p50) {typical} us, worst case (median of p99.9) "
            f"{worst} us, min {summary.min_us:.1f} avg {summary.avg_us:.1f} "
            f"max {summary.max_us:.1f} us"
            + beyond_histogram_line(summary) + own_latency_line(summary))


def beyond_histogram_line(summary: LatencySummary) -> str:
    """What a figure marked as a lower bound above means, when one is."""
    if not summary.lower_bounds:
        return ""
    return (f"\n{LOWER_BOUND_MARK}: only a lower bound is known, the histogram's last edge: "
            f"{summary.beyond_histogram} frames of the {summary.trials} trials lay at or above "
            "it, up to the max (raise the profile's last latency_bins_us edge to measure it)")


def own_latency_line(summary: LatencySummary) -> str:
    """What the tester's reference stream says of the latency figures above."""
    if summary.tester_floor_us is None or summary.tester_max_us is None:
        return ""
    line = (f"\ntester's own latency (reference stream looped inside the tester switch): "
            f"{summary.tester_floor_us:g}..{summary.tester_max_us:g} us")
    if summary.tester_spiked_trials:
        line += (f"; it spiked in {summary.tester_spiked_trials} of {summary.trials} trials, "
                 "enough to account for their max and high percentiles: the host delayed "
                 f"frames, not only the DUT (trials marked '{SPIKED_MARK}')")
    return line


def fit_warnings(result: QueueSweepResult, trials: tuple[TrialResult, ...]) -> list[str]:
    """A line per poor fit. It says the fit could not be measured on this host, instead
    of reporting it as the DUT's shape, when the run holds evidence that the host
    delayed frames: trials on a busy host (more runnable tasks than CPUs), or thresholds
    whose repetitions disagree (a DUT's queue repeats; a scheduling stall of either
    switch does not). The self-check catches frames the host dropped, not frames it
    delayed, and a maximum is one frame per trial: a stall decides it."""
    busy = [t for t in trials if t.host_load is not None and t.host_load.busy]
    warnings = []
    for fit in result.by_size:
        checked: tuple[tuple[str, LinearFit, LatencyFigure], ...] = (
            ("avg", fit.fits.avg, "avg_us"), ("max", fit.fits.max, "max_us"))
        for name, line, figure in checked:
            if line.r_squared >= MIN_FIT_R_SQUARED:
                continue
            unrepeated = unrepeated_cells(result, fit.frame_size, figure)
            evidence = []
            if busy:
                worst = max(t.host_load.load_1m for t in busy if t.host_load is not None)
                evidence.append(f"the host busy in {len(busy)} of {len(trials)} trials (load "
                                f"up to {worst:.2f})")
            if unrepeated:
                thresholds = ", ".join(f"{cell.buffer_pct:g} %" for cell in unrepeated)
                largest = max(cell.spread for cell in unrepeated)
                evidence.append(f"the {name} differing between repetitions by up to "
                                f"{largest:.1f}x at {thresholds} (a DUT's queue repeats)")
            if evidence:
                warnings.append(
                    f"{fit.frame_size} B: could not measure {name} latency vs buffer on this "
                    f"host: R^2 {line.r_squared:.3f} < {MIN_FIT_R_SQUARED} with "
                    f"{'; '.join(evidence)}; the host delayed frames, not only the DUT: not a "
                    "result, rerun on a quieter host")
            else:
                warnings.append(
                    f"{fit.frame_size} B: {name} latency is not linear in buffer % (R^2 "
                    f"{line.r_squared:.3f} < {MIN_FIT_R_SQUARED}, host not busy"
                    + (", repetitions agree)" if result.config.repetitions > 1 else ")"))
    return warnings
