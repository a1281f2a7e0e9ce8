"""Each experiment's body: its request and the run's context in, the experiment run
through the run's recorder, its result and report (tables, lines) and plots out."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.back_to_back import BackToBackConfig, run_back_to_back
from p4tester.experiments.frame_loss import FrameLossConfig, run_frame_loss
from p4tester.experiments.frame_size_scan import FrameSizeScanConfig, run_frame_size_scan
from p4tester.experiments.latency import LatencyConfig, run_latency
from p4tester.experiments.queue_sweep import QueueSweepConfig, min_fit_thresholds, run_queue_sweep
from p4tester.experiments.ramp_soak import RampConfig, SoakConfig, run_ramp, run_soak
from p4tester.experiments.recording import Recorder
from p4tester.experiments.throughput import SearchMethod, ThroughputConfig, run_throughput
from p4tester.experiments.traffic_shape import ShapeConfig, ShapeResult, run_shape
from p4tester.results.model import StreamStats
from p4tester.results.plots import (
    PlotError,
    plot_frame_loss_rate,
    plot_intervals,
    plot_latency_histograms,
    plot_loss_vs_frame_size,
    plot_rate_course,
    plot_throughput,
)
from p4tester.results.settle import longest_drain
from p4tester.results.tables import throughput_table, trials_table
from p4tester.search.goals import SearchGoal
from p4tester.streams.rates import Rate

from .dut_buffer import bmv2_dut_buffer
from .loads import fraction_at, line_rate_of
from .report_lines import (
    buffering_lines,
    capacity_lines,
    fit_warnings,
    latency_lines,
    losing_stream_lines,
)
from .requests import (
    BackToBackRequest,
    FrameLossRequest,
    FrameSizeScanRequest,
    LatencyRequest,
    QueueSweepRequest,
    RampRequest,
    ShapeRequest,
    SoakRequest,
    ThroughputRequest,
)
from .search_capacity import search_capacity


@dataclass(frozen=True, slots=True)
class RunContext:
    """Where a body runs: the files it was given, the run's recorder (every trial goes
    through it), and the run's output directory for its plots."""

    topology: Topology
    profile: Profile
    recorder: Recorder
    output: Path
    calibration: Path | None = None  # None: runs.capacity_warnings.CALIBRATION_FILE

    def fraction(self, rate: Rate, frame_size: int) -> float:
        return fraction_at(rate, frame_size, self.topology, self.profile)


Outcome = tuple[Any, str]  # the experiment's result, the report for a person


def plot(draw: Callable[[], Path]) -> None:
    # No valid trial to plot: the tables say why.
    with contextlib.suppress(PlotError):
        draw()


def throughput_body(request: ThroughputRequest, run: RunContext) -> Outcome:
    profile = run.profile
    final = request.trial_s(profile)
    width = profile.search.relative_width
    ndr = SearchGoal("NDR", 0.0, width, final,
                     initial_trial_duration_s=profile.trial.initial_duration_s)
    pdr = SearchGoal("PDR", profile.search.pdr_loss_ratio, width, final,
                     initial_trial_duration_s=profile.trial.initial_duration_s)
    frame_sizes = request.frame_sizes or profile.frame_sizes
    capacity = search_capacity(frame_sizes, run.topology, profile, run.calibration)
    config = ThroughputConfig(line_rate_bps=line_rate_of(run.topology, profile),
                              frame_sizes=frame_sizes,
                              method=SearchMethod(request.method or profile.search.method),
                              ndr=ndr, pdr=pdr, max_fractions=capacity.max_fractions)
    result = run_throughput(config, run.recorder)
    plot(lambda: plot_throughput(result.points(), run.output / "throughput.png"))
    return result, "\n".join([throughput_table(result.points()), *capacity.notes,
                              *capacity_lines(result), *losing_stream_lines(result),
                              *buffering_lines(result)])


def latency_body(request: LatencyRequest, run: RunContext) -> Outcome:
    config = LatencyConfig(frame_size=request.frame_size,
                           offered_fraction=run.fraction(request.load, request.frame_size),
                           trials=request.trials,
                           trial_duration_s=request.trial_s(run.profile))
    result = run_latency(config, run.recorder)
    valid = [t for t in run.recorder.trials if t.valid and t.streams]
    if valid:
        plot(lambda: plot_latency_histograms(valid[-1].streams, run.output / "latency.png"))
    text = trials_table(run.recorder.trials)
    if result.summary is not None:
        text += latency_lines(result.summary)
    return result, text


def frame_loss_body(request: FrameLossRequest, run: RunContext) -> Outcome:
    config = FrameLossConfig(frame_sizes=request.frame_sizes or run.profile.frame_sizes,
                             step_fraction=request.step,
                             trial_duration_s=request.trial_s(run.profile))
    result = run_frame_loss(config, run.recorder)
    plot(lambda: plot_frame_loss_rate(run.recorder.trials, run.output / "frame-loss.png"))
    return result, trials_table(run.recorder.trials)


def back_to_back_body(request: BackToBackRequest, run: RunContext) -> Outcome:
    size = request.frame_size
    config = BackToBackConfig(frame_size=size,
                              line_rate_bps=line_rate_of(run.topology, run.profile),
                              throughput_fraction=run.fraction(request.throughput, size),
                              repetitions=request.repetitions,
                              trial_duration_s=request.trial_s(run.profile),
                              max_burst_frames=request.max_burst)
    result = run_back_to_back(config, run.recorder)
    # RFC 9004 6.4: the raw figure (implied: the burst at line rate) next to the one
    # corrected for what the DUT forwarded while the burst came in.
    text = (f"back-to-back at {size} B: average burst {result.average_frames:.1f} "
            f"frames (min {result.min_frames}, max {result.max_frames}); RFC 9004 implied "
            f"buffer time {result.implied_buffer_time_s * 1e3:.3f} ms, corrected buffer "
            f"{result.corrected_buffer_frames:.1f} frames = "
            f"{result.corrected_buffer_time_s * 1e3:.3f} ms")
    # How long the buffer went on emptying after a trial's drain (results.settle).
    settles = [t.settle for t in run.recorder.trials if t.settle is not None]
    if settles:
        drain = longest_drain(settles)
        text += f"; {drain.describe()}" if drain is not None else (
            "; the DUT delivered nothing after a trial's drain")
    return result, text


def frame_size_scan_body(request: FrameSizeScanRequest, run: RunContext) -> Outcome:
    config = FrameSizeScanConfig(start_size=request.start, end_size=request.end,
                                 step=request.step, offered_fraction=request.load,
                                 trial_duration_s=request.trial_s(run.profile))
    result = run_frame_size_scan(config, run.recorder)
    trials = run.recorder.trials
    plot(lambda: plot_loss_vs_frame_size(trials, run.output / "loss-vs-frame-size.png"))
    text = (trials_table(trials) + f"\nNDR frame size: {result.ndr_frame_size}; "
            f"loss bands: {[(b.first_size, b.last_size) for b in result.loss_bands]}")
    return result, text


def ramp_body(request: RampRequest, run: RunContext) -> Outcome:
    size = request.frame_size
    config = RampConfig(frame_size=size, start_fraction=run.fraction(request.start, size),
                        end_fraction=run.fraction(request.end, size),
                        step_fraction=run.fraction(request.step, size),
                        step_duration_s=request.trial_s(run.profile))
    result = run_ramp(config, run.recorder)
    plot(lambda: plot_frame_loss_rate(run.recorder.trials, run.output / "ramp.png",
                                      title="Loss per ramp step"))
    return result, trials_table(run.recorder.trials)


def soak_body(request: SoakRequest, run: RunContext) -> Outcome:
    config = SoakConfig(frame_size=request.frame_size,
                        offered_fraction=run.fraction(request.load, request.frame_size),
                        total_duration_s=request.total_s, interval_s=request.interval_s)
    result = run_soak(config, run.recorder)
    plot(lambda: plot_intervals(run.recorder.trials, run.output / "soak.png"))
    totals = result.totals
    text = (trials_table(run.recorder.trials) + f"\nsoak: {totals.intervals} intervals, TX "
            f"{totals.tx_frames}, RX {totals.rx_frames}, lost {totals.lost}, reordered "
            f"{totals.reordered}, intervals with loss {totals.intervals_with_loss}")
    return result, text


def queue_sweep_body(request: QueueSweepRequest, run: RunContext) -> Outcome:
    dut = bmv2_dut_buffer(run.topology)
    config = QueueSweepConfig(frame_sizes=request.frame_sizes or run.profile.frame_sizes,
                              buffer_percents=request.buffer_percents,
                              offered_fraction=request.load,
                              trial_duration_s=request.trial_s(run.profile),
                              repetitions=request.repetitions, plot_dir=run.output)
    result = run_queue_sweep(config, run.recorder, dut)
    trials = run.recorder.trials
    lines = [trials_table(trials)]
    for fit in result.by_size:
        lines.append(f"{fit.frame_size} B: avg latency = {fit.fits.avg.slope:.3f} us/% x buffer "
                     f"+ {fit.fits.avg.intercept:.1f} (R^2 {fit.fits.avg.r_squared:.3f}); max "
                     f"R^2 {fit.fits.max.r_squared:.3f}; min slope {fit.fits.min.slope:.3f}")
    if result.left_out:
        reasons = sorted({p.reason for p in result.left_out})
        lines.append(f"left out {len(result.left_out)} of "
                     f"{len(result.left_out) + len(result.points)} points that the tester or "
                     f"the DUT could not vouch for ({', '.join(reasons)}), after repeats")
    lines.extend(fit_warnings(result, trials))
    for size in result.unfitted_sizes:
        lines.append(f"{size} B: could not fit latency vs buffer: fewer than "
                     f"{min_fit_thresholds(config)} of {len(config.buffer_percents)} thresholds "
                     "have trials both sides vouch for (a busy host?); no fit reported")
    return result, "\n".join(lines)


def shape_body(request: ShapeRequest, run: RunContext) -> Outcome:
    streams = [stream.id for stream in run.profile.streams]
    unknown = sorted({sid for sid, _ in request.shape if sid is not None} - set(streams))
    if unknown:
        raise ConfigError(f"--shape names streams {unknown}; the profile has {streams}")
    shapes = tuple((sid, shape) for named, shape in request.shape
                   for sid in ([named] if named is not None else streams))
    config = ShapeConfig(frame_size=request.frame_size,
                         offered_fraction=run.fraction(request.load, request.frame_size),
                         duration_s=request.trial_s(run.profile), shapes=shapes,
                         step_s=request.step_s)
    result = run_shape(config, run.recorder)
    plot(lambda: plot_rate_course(result.trial, run.output / "shape.png"))
    return result, "\n".join([trials_table(run.recorder.trials), *shape_report(result)])


def shape_report(result: ShapeResult) -> list[str]:
    """Each shaped stream's steps: the rate each was to send, what it sent and received
    (frames/s), and the share it lost; then the steps that lost frames."""
    lines = []
    for stream in result.shaped_streams():
        shape = dict(result.config.shapes)[stream.stream_id]
        lines += ["", f"stream {stream.stream_id}: {shape.describe()}"]
        if shape.frames_per_burst > 1 and stream.rate_course:
            lines.append(_bursts_line(shape.frames_per_burst, stream))
        lines.append(f"{'from s':>8} {'intended':>10} {'sent':>10} {'received':>10} "
                     f"{'lost %':>8}")
        for step in stream.rate_course:
            lost = "-" if step.lost_share is None else f"{step.lost_share * 100:.2f}"
            lines.append(f"{step.start_s:>8.2f} {step.intended_pps:>10.0f} "
                         f"{_pps(step.sent_pps):>10} {_pps(step.received_pps):>10} {lost:>8}")
        lossy = result.lossy_steps(stream)
        lines.append(f"stream {stream.stream_id}: lost {stream.lost} of {stream.tx_frames} "
                     f"frames; steps losing over 1 %: "
                     f"{', '.join(map(str, lossy)) if lossy else 'none'}")
    return lines


def _bursts_line(frames: int, stream: StreamStats) -> str:
    """How often the bursts came, and the latency they met: a DUT that buffers a
    burst delays its last frames by the burst's excess over what it forwards."""
    mean = stream.tx_frames / sum(step.duration_s for step in stream.rate_course)
    latency = stream.latency
    worst = "" if latency is None else (f"; latency {latency.min_us:.0f} to "
                                        f"{latency.max_us:.0f} us")
    return (f"bursts of {frames} frames back to back at line rate, one every "
            f"{1000 * frames / mean:.2f} ms ({mean:.0f} frames/s){worst}")


def _pps(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"
