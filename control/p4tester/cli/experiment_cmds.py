"""The experiment subcommands: options, then one shared path
(results dir -> session -> recorder -> experiment -> summary, CSV, plots)."""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p4tester.cli import exit_codes
from p4tester.cli.calibrate_cmd import offered_pps, warn_above_calibration
from p4tester.cli.output import emit, fail
from p4tester.cli.run_output import open_log, to_jsonable, write_outputs
from p4tester.cli.trial_runners import open_trial_runner
from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.back_to_back import BackToBackConfig, run_back_to_back
from p4tester.experiments.errors import ExperimentError
from p4tester.experiments.frame_loss import FrameLossConfig, run_frame_loss
from p4tester.experiments.frame_size_scan import FrameSizeScanConfig, run_frame_size_scan
from p4tester.experiments.latency import LatencyConfig, LatencySummary, run_latency
from p4tester.experiments.queue_sweep import (
    QueueSweepConfig,
    QueueSweepResult,
    min_fit_thresholds,
    run_queue_sweep,
)
from p4tester.experiments.ramp_soak import RampConfig, SoakConfig, run_ramp, run_soak
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.experiments.throughput import (
    SearchMethod,
    ThroughputConfig,
    ThroughputResult,
    run_throughput,
)
from p4tester.lab.bmv2_dut import dut_settings, forwarding
from p4tester.lab.placement import place_controller
from p4tester.results.buffer_fill import buffer_fill
from p4tester.results.checks import TRIAL_ERROR
from p4tester.results.confidence import RunConfidence
from p4tester.results.jsonl import ResultLog
from p4tester.results.model import TrialResult
from p4tester.results.plots import (
    PlotError,
    plot_frame_loss_rate,
    plot_intervals,
    plot_latency_histograms,
    plot_loss_vs_frame_size,
    plot_throughput,
)
from p4tester.results.reference import SPIKED_MARK
from p4tester.results.tables import losing_streams_text, throughput_table, trials_table
from p4tester.search.errors import SearchError
from p4tester.search.goals import SearchGoal
from p4tester.streams.rates import Rate, RateError
from p4tester.targets.bmv2_thrift import Bmv2Thrift

Body = Callable[[argparse.Namespace, Topology, Profile, Recorder, Path], Any]


def load_fraction(text: str) -> float:
    """'50%' or '0.5' -> 0.5 of line rate (options that span several frame sizes)."""
    try:
        value = Rate.parse(text).value / 100.0 if text.endswith("%") else float(text)
    except (RateError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"load {text!r}: give a % or a fraction") from exc
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(
            f"load {text!r} is {value * 100:g} % of line rate: it must be in (0, 100] %"
        )
    return value


def load_rate(text: str) -> Rate:
    """A load at one frame size: '50%', '0.5' (of line rate), '3000pps', '2Mbps' (L1)
    or 'l2:2Mbps'; turned into a share of line rate by `fraction_at`."""
    try:
        if text.replace(".", "", 1).isdigit():
            return Rate.from_percent(float(text) * 100.0)
        return Rate.parse(text)
    except RateError as exc:
        raise argparse.ArgumentTypeError(f"load {text!r}: {exc}") from exc


def fraction_at(rate: Rate, frame_size: int, topology: Topology, profile: Profile) -> float:
    """The share of the first stream's port line rate that `rate` is at frame_size."""
    line_rate = line_rate_of(topology, profile)
    try:
        return rate.resolve(frame_size, line_rate).fraction
    except RateError as exc:
        raise ConfigError(f"load {rate}: {exc}") from exc


def size_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: give sizes like 64,128,1518") from exc


def line_rate_of(topology: Topology, profile: Profile) -> float:
    """Line rate the absolute figures refer to: the first stream's TX port."""
    return topology.port(profile.streams[0].tx_port).line_rate_bps


def trial_s(args: argparse.Namespace, profile: Profile) -> float:
    duration = getattr(args, "duration", None)
    return float(duration) if duration else profile.trial.duration_s


# ---- experiment bodies -----------------------------------------------------------
def throughput_body(args: argparse.Namespace, topology: Topology, profile: Profile,
                    recorder: Recorder, output: Path) -> Any:
    final = trial_s(args, profile)
    width = profile.search.relative_width
    ndr = SearchGoal("NDR", 0.0, width, final, initial_trial_duration_s=profile.trial
                     .initial_duration_s)
    pdr = SearchGoal("PDR", profile.search.pdr_loss_ratio, width, final,
                     initial_trial_duration_s=profile.trial.initial_duration_s)
    method = SearchMethod(args.method or profile.search.method)
    config = ThroughputConfig(line_rate_bps=line_rate_of(topology, profile),
                              frame_sizes=args.frame_sizes or profile.frame_sizes,
                              method=method, ndr=ndr, pdr=pdr)
    result = run_throughput(config, recorder)
    _plot(lambda: plot_throughput(result.points(), output / "throughput.png"))
    return result, "\n".join([throughput_table(result.points()), *losing_stream_lines(result),
                              *buffering_lines(result)])


def losing_stream_lines(result: ThroughputResult) -> list[str]:
    """A line per goal and frame size naming the streams that lost frames at the lowest
    failing load: with many streams, where to look first."""
    return [f"{size.frame_size} B {bounds.goal}: lowest failing load {bounds.upper.percent:.2f} "
            f"%, frames lost per stream (stream:lost) {losing_streams_text(bounds.losing_streams)}"
            for size in result.sizes for bounds in (size.ndr, size.pdr)
            if bounds.upper is not None and bounds.losing_streams]


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


def latency_body(args: argparse.Namespace, topology: Topology, profile: Profile,
                 recorder: Recorder, output: Path) -> Any:
    load = fraction_at(args.load, args.frame_size, topology, profile)
    config = LatencyConfig(frame_size=args.frame_size, offered_fraction=load,
                           trials=args.trials, trial_duration_s=trial_s(args, profile))
    result = run_latency(config, recorder)
    valid = [t for t in recorder.trials if t.valid and t.streams]
    if valid:
        _plot(lambda: plot_latency_histograms(valid[-1].streams, output / "latency.png"))
    summary = result.summary
    text = trials_table(recorder.trials)
    if summary is not None:
        text += (f"\ntypical latency (median of p50) {_us(summary.typical_latency_us)} us, "
                 f"worst case (median of p99.9) {_us(summary.worst_case_latency_us)} us, "
                 f"min {summary.min_us} avg {summary.avg_us:.1f} max {summary.max_us} us")
        text += own_latency_line(summary)
    return result, text


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


def frame_loss_body(args: argparse.Namespace, topology: Topology, profile: Profile,
                    recorder: Recorder, output: Path) -> Any:
    config = FrameLossConfig(frame_sizes=args.frame_sizes or profile.frame_sizes,
                             step_fraction=args.step, trial_duration_s=trial_s(args, profile))
    result = run_frame_loss(config, recorder)
    _plot(lambda: plot_frame_loss_rate(recorder.trials, output / "frame-loss.png"))
    return result, trials_table(recorder.trials)


def back_to_back_body(args: argparse.Namespace, topology: Topology, profile: Profile,
                      recorder: Recorder, output: Path) -> Any:
    config = BackToBackConfig(frame_size=args.frame_size,
                              line_rate_bps=line_rate_of(topology, profile),
                              throughput_fraction=fraction_at(args.throughput, args.frame_size,
                                                              topology, profile),
                              repetitions=args.repetitions,
                              trial_duration_s=trial_s(args, profile),
                              max_burst_frames=args.max_burst)
    result = run_back_to_back(config, recorder)
    text = (f"back-to-back at {args.frame_size} B: average burst {result.average_frames:.1f} "
            f"frames (min {result.min_frames}, max {result.max_frames}); RFC 9004 corrected "
            f"buffer {result.corrected_buffer_frames:.1f} frames = "
            f"{result.corrected_buffer_time_s * 1e3:.3f} ms")
    return result, text


def frame_size_scan_body(args: argparse.Namespace, topology: Topology, profile: Profile,
                         recorder: Recorder, output: Path) -> Any:
    config = FrameSizeScanConfig(start_size=args.start, end_size=args.end, step=args.step,
                                 offered_fraction=args.load,
                                 trial_duration_s=trial_s(args, profile))
    result = run_frame_size_scan(config, recorder)
    _plot(lambda: plot_loss_vs_frame_size(recorder.trials, output / "loss-vs-frame-size.png"))
    text = (trials_table(recorder.trials) + f"\nNDR frame size: {result.ndr_frame_size}; "
            f"loss bands: {[(b.first_size, b.last_size) for b in result.loss_bands]}")
    return result, text


def ramp_body(args: argparse.Namespace, topology: Topology, profile: Profile,
              recorder: Recorder, output: Path) -> Any:
    def at(rate: Rate) -> float:
        return fraction_at(rate, args.frame_size, topology, profile)

    config = RampConfig(frame_size=args.frame_size, start_fraction=at(args.start),
                        end_fraction=at(args.end), step_fraction=at(args.step),
                        step_duration_s=trial_s(args, profile))
    result = run_ramp(config, recorder)
    _plot(lambda: plot_frame_loss_rate(recorder.trials, output / "ramp.png",
                                       title="Loss per ramp step"))
    return result, trials_table(recorder.trials)


def soak_body(args: argparse.Namespace, topology: Topology, profile: Profile,
              recorder: Recorder, output: Path) -> Any:
    config = SoakConfig(frame_size=args.frame_size,
                        offered_fraction=fraction_at(args.load, args.frame_size, topology, profile),
                        total_duration_s=args.total, interval_s=args.interval)
    result = run_soak(config, recorder)
    _plot(lambda: plot_intervals(recorder.trials, output / "soak.png"))
    totals = result.totals
    text = (trials_table(recorder.trials) + f"\nsoak: {totals.intervals} intervals, TX "
            f"{totals.tx_frames}, RX {totals.rx_frames}, lost {totals.lost}, reordered "
            f"{totals.reordered}, intervals with loss {totals.intervals_with_loss}")
    return result, text


@dataclass(frozen=True, slots=True)
class Bmv2DutBuffer:
    """DutControl for the lab's `bmv2` DUT: buffer % of its configured queue depth."""

    thrift: Bmv2Thrift
    egress_ports: tuple[int, ...]
    full_depth: int

    def set_buffer_percent(self, percent: float) -> None:
        depth = max(1, math.floor(self.full_depth * percent / 100.0))
        self.thrift.run([f"set_queue_depth {depth} {port}" for port in self.egress_ports])


def queue_sweep_body(args: argparse.Namespace, topology: Topology, profile: Profile,
                     recorder: Recorder, output: Path) -> Any:
    if topology.dut.kind != "bmv2":
        raise ConfigError(f"queue-sweep steps the DUT's buffer: it needs a `bmv2` DUT, "
                          f"{topology.source} has {topology.dut.kind!r}")
    settings = dut_settings(topology)
    dut = Bmv2DutBuffer(Bmv2Thrift(int(settings.get("thrift_port", "9091"))),
                        tuple(sorted(set(forwarding(settings, topology.source).values()))),
                        int(settings.get("queue_depth", "64")))
    config = QueueSweepConfig(frame_sizes=args.frame_sizes or profile.frame_sizes,
                              buffer_percents=tuple(float(p) for p in args.buffers.split(",")),
                              offered_fraction=args.load,
                              trial_duration_s=trial_s(args, profile),
                              repetitions=args.repetitions, plot_dir=output)
    result = run_queue_sweep(config, recorder, dut)
    lines = [trials_table(recorder.trials)]
    for fit in result.by_size:
        lines.append(f"{fit.frame_size} B: avg latency = {fit.fits.avg.slope:.3f} us/% x buffer "
                     f"+ {fit.fits.avg.intercept:.1f} (R^2 {fit.fits.avg.r_squared:.3f}); max "
                     f"R^2 {fit.fits.max.r_squared:.3f}; min slope {fit.fits.min.slope:.3f}")
    if result.left_out:
        reasons = sorted({p.reason for p in result.left_out})
        lines.append(f"left out {len(result.left_out)} of "
                     f"{len(result.left_out) + len(result.points)} points that the tester or "
                     f"the DUT could not vouch for ({', '.join(reasons)}), after repeats")
    lines.extend(fit_warnings(result, recorder.trials))
    for size in result.unfitted_sizes:
        lines.append(f"{size} B: could not fit latency vs buffer: fewer than "
                     f"{min_fit_thresholds(config)} of {len(config.buffer_percents)} thresholds "
                     "have trials both sides vouch for (a busy host?); no fit reported")
    return result, "\n".join(lines)


# Seed 004 expects average and maximum latency linear in buffer %: below this R^2 the
# line is not the DUT's shape, and on a busy host it is the host's.
MIN_FIT_R_SQUARED = 0.9


def fit_warnings(result: QueueSweepResult, trials: tuple[TrialResult, ...]) -> list[str]:
    """A line per poor fit: on a busy host (more runnable tasks than CPUs in a trial)
    it says the fit could not be measured here, instead of reporting it as the DUT's.
    The self-check catches frames the host dropped, not frames it delayed; a maximum
    is one frame per trial, and a scheduling stall of either switch decides it."""
    busy = [t for t in trials if t.host_load is not None and t.host_load.busy]
    warnings = []
    for fit in result.by_size:
        for name, line in (("avg", fit.fits.avg), ("max", fit.fits.max)):
            if line.r_squared >= MIN_FIT_R_SQUARED:
                continue
            if busy:
                worst = max(t.host_load.load_1m for t in busy if t.host_load is not None)
                warnings.append(
                    f"{fit.frame_size} B: could not measure {name} latency vs buffer on this "
                    f"host: R^2 {line.r_squared:.3f} < {MIN_FIT_R_SQUARED} with the host busy "
                    f"in {len(busy)} of {len(trials)} trials (load up to {worst:.2f}); the "
                    "host delayed frames, not only the DUT: not a result, rerun on a quieter "
                    "host")
            else:
                warnings.append(
                    f"{fit.frame_size} B: {name} latency is not linear in buffer % (R^2 "
                    f"{line.r_squared:.3f} < {MIN_FIT_R_SQUARED}, host not busy)")
    return warnings


class ProgressRunner:
    """Says on stderr what each trial was as it ends: long searches and soaks show
    they are alive, and stdout stays the result (or the one --json document)."""

    def __init__(self, inner: TrialRunner) -> None:
        self.inner = inner
        self.started = time.monotonic()
        self.first = True

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        result = self.inner.run_trial(spec)
        elapsed = time.monotonic() - self.started
        sys.stderr.write(
            f"[{elapsed:7.1f} s] {spec.experiment} trial {spec.trial_index}: {spec.frame_size} B "
            f"at {spec.offered_fraction:.2%} for {spec.duration_s:g} s: TX {result.tx_frames} "
            f"RX {result.rx_frames} loss {result.loss_ratio:.4%}{_losing(result)}"
            f"{_stale(result, self.first)}{_late(result)}{_reference(result)}"
            f"{'' if result.valid else f' [not counted: {result.error}]'}\n")
        self.first = False
        return result


def _late(result: TrialResult) -> str:
    """Frames received after the trial's end, in its drain: counted, said apart."""
    return f" ({result.late_frames} late)" if result.late_frames else ""


def _reference(result: TrialResult) -> str:
    """The tester's own latency in a latency trial (results.reference)."""
    if result.reference is None:
        return ""
    return f" [{result.reference.describe()}]"


def _stale(result: TrialResult, first: bool) -> str:
    """Frames the DUT still held from before the trial: in the first trial of a run
    they can only be the run before's."""
    if not result.rx_stale:
        return ""
    whose = "the run before" if first else "earlier trials or runs"
    return f" stale {result.rx_stale} (of {whose}, in no stream)"


def _losing(result: TrialResult) -> str:
    losing = result.losing_streams
    return f" (stream:lost {losing_streams_text(losing)})" if losing else ""


def _plot(draw: Callable[[], Path]) -> None:
    # No valid trial to plot: the tables say why.
    with contextlib.suppress(PlotError):
        draw()


# ---- options ---------------------------------------------------------------------
def _duration(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--duration", type=float, help="trial seconds (default: the profile's)")


def throughput_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--method", choices=[m.value for m in SearchMethod])
    sub.add_argument("--frame-sizes", type=size_list, help="e.g. 64,512,1518")
    _duration(sub)


def latency_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--frame-size", type=int, required=True)
    sub.add_argument("--load", type=load_rate, required=True,
                     help="offered load, normally the throughput found: 95%%, 3000pps, 2Mbps")
    sub.add_argument("--trials", type=int, default=20, help="RFC 2544: at least 20")
    _duration(sub)


def frame_loss_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--frame-sizes", type=size_list)
    sub.add_argument("--step", type=float, default=0.1, help="load step, <= 0.1 (RFC 2544)")
    _duration(sub)


def back_to_back_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--frame-size", type=int, required=True)
    sub.add_argument("--throughput", type=load_rate, required=True,
                     help="the DUT's measured throughput, for RFC 9004's correction")
    sub.add_argument("--repetitions", type=int, default=50, help="RFC 2544: 50")
    sub.add_argument("--max-burst", type=int, help="longest burst tried (frames)")
    _duration(sub)


def frame_size_scan_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--start", type=int, required=True, help="first frame size (B)")
    sub.add_argument("--end", type=int, required=True, help="last frame size (B)")
    sub.add_argument("--step", type=int, default=1, help="bytes between sizes")
    sub.add_argument("--load", type=load_fraction, default=1.0)
    _duration(sub)


def ramp_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--frame-size", type=int, default=64)
    sub.add_argument("--start", type=load_rate, required=True, help="e.g. 20%%, 1000pps")
    sub.add_argument("--end", type=load_rate, required=True)
    sub.add_argument("--step", type=load_rate, required=True)
    _duration(sub)


def soak_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--frame-size", type=int, default=64)
    sub.add_argument("--load", type=load_rate, required=True, help="e.g. 30%%, 2000pps")
    sub.add_argument("--total", type=float, required=True, help="soak seconds")
    sub.add_argument("--interval", type=float, default=10.0, help="seconds per interval")


def queue_sweep_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--frame-sizes", type=size_list)
    sub.add_argument("--buffers", default="1,10,20,40,60,80,100",
                     help="DUT buffer thresholds, %% of its queue depth")
    sub.add_argument("--load", type=load_fraction, default=0.502,
                     help="per TX port (seed 004: two ports at ~50%% into one)")
    sub.add_argument("--repetitions", type=int, default=3,
                     help="trials per frame size and threshold; the fit uses their medians")
    _duration(sub)


# ---- the shared path -------------------------------------------------------------
def check_loads(args: argparse.Namespace, topology: Topology, profile: Profile) -> None:
    """Refuse a load above line rate before touching the switch."""
    for option in ("load", "throughput", "start", "end", "step"):
        rate = getattr(args, option, None)
        if isinstance(rate, Rate):
            fraction = fraction_at(rate, args.frame_size, topology, profile)
            if not 0 < fraction <= 1:
                raise ConfigError(f"--{option} {rate} is {fraction:.2%} of line rate at "
                                  f"{args.frame_size} B: it must be in (0, 100] %")



def _us(value: float | None) -> str:
    """A percentile from histogram interpolation: a tenth of a microsecond is all the
    BMv2 clock (1 us) supports; None (no samples, or beyond the last bin) said as such."""
    return "n/a" if value is None else f"{value:.1f}"


def warn_loads(args: argparse.Namespace, topology: Topology, profile: Profile) -> None:
    """Warn (stderr) of a fixed load above the tester's calibrated capacity on this host
    (p4tester calibrate): its trials would measure the tester, not the DUT."""
    frame_size = getattr(args, "frame_size", None)
    for option in ("load", "end"):  # the highest fixed load each experiment offers
        rate = getattr(args, option, None)
        if isinstance(rate, Rate) and frame_size is not None:
            fraction = fraction_at(rate, frame_size, topology, profile)
            warn_above_calibration(frame_size, offered_pps(fraction, frame_size, topology,
                                                           profile))
        elif isinstance(rate, float) and hasattr(args, "frame_sizes"):
            # A share of line rate over the run's frame sizes (queue sweep).
            for size in args.frame_sizes or profile.frame_sizes:
                warn_above_calibration(size, offered_pps(rate, size, topology, profile))


def _handler(name: str, body: Body) -> Callable[[argparse.Namespace, Topology, Profile], int]:
    def handle(args: argparse.Namespace, topology: Topology, profile: Profile) -> int:
        output: Path = args.output
        check_loads(args, topology, profile)
        warn_loads(args, topology, profile)
        log = open_log(output, name, profile.source, topology.source, args.resume,
                       place_controller(topology))
        with open_trial_runner(topology, profile, push_pipeline=args.push_pipeline) as runner:
            recorder = Recorder(ProgressRunner(runner), log)
            try:
                result, text = body(args, topology, profile, recorder, output)
            except (ExperimentError, SearchError) as exc:
                # The switch or DUT broke mid-run, or a search could not go on (a trial
                # that stayed invalid): every trial, the failed ones with their error, is
                # already in trials.jsonl; say so and stop, never with a traceback.
                write_outputs(output, {"stopped": str(exc)}, recorder.trials)
                fail(f"{name} stopped: {exc} (finished trials are in {output}/trials.jsonl;"
                     " fix the lab, then rerun with --resume)", args.json)
                return exit_codes.INVALID_TRIALS
        document = write_outputs(output, result, recorder.trials, text)
        document["output"] = str(output)
        emit(document, f"{text}\nresults in {output}/", args.json)
        # stderr only: with --json, stdout already holds the one result document.
        sys.stderr.write(f"p4tester: {RunConfidence.of(recorder.trials).describe()}\n")
        # Trials the tester or a lab DUT could not vouch for were repeated or left out
        # and said so above; only trials that failed make the run's exit code.
        failed = [t for t in recorder.trials if t.invalid_reason == TRIAL_ERROR]
        if failed:
            sys.stderr.write(
                f"p4tester: {len(failed)} of {len(recorder.trials)} trials invalid, their "
                f"figures unused; first: trial {failed[0].trial_index}: {failed[0].error}\n")
            return exit_codes.INVALID_TRIALS
        return exit_codes.OK

    return handle


EXPERIMENTS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                             Callable[[argparse.Namespace, Topology, Profile], int]]] = {
    "throughput": ("RFC 2544 26.1: NDR and PDR per frame size (MLRsearch or binary)",
                   throughput_options, _handler("throughput", throughput_body)),
    "latency": ("RFC 2544 26.2 latency at a load, RFC 8219 figures",
                latency_options, _handler("latency", latency_body)),
    "frame-loss": ("RFC 2544 26.3 frame loss rate curve", frame_loss_options,
                   _handler("frame-loss", frame_loss_body)),
    "back-to-back": ("RFC 2544 26.4 back-to-back frames, RFC 9004 buffer time",
                     back_to_back_options, _handler("back-to-back", back_to_back_body)),
    "frame-size-scan": ("loss vs frame size at a fixed load", frame_size_scan_options,
                        _handler("frame-size-scan", frame_size_scan_body)),
    "ramp": ("step the load every trial", ramp_options, _handler("ramp", ramp_body)),
    "soak": ("long run in interval statistics", soak_options, _handler("soak", soak_body)),
    "queue-sweep": ("latency vs DUT buffer threshold (seed 004)", queue_sweep_options,
                    _handler("queue-sweep", queue_sweep_body)),
}


def replot(args: argparse.Namespace) -> int:
    """Tables and plots again from a results directory's trials.jsonl."""
    log = ResultLog(Path(args.results) / "trials.jsonl")
    if not log.path.exists():
        raise ConfigError(f"{log.path} not found: give a directory an experiment wrote")
    trials = tuple(log.load())
    output = Path(args.results)
    _plot(lambda: plot_frame_loss_rate(trials, output / "frame-loss.png"))
    _plot(lambda: plot_loss_vs_frame_size(trials, output / "loss-vs-frame-size.png"))
    document = {"trials": len(trials), "invalid_trials": sum(not t.valid for t in trials),
                "result": to_jsonable(trials[-1].labels) if trials else None}
    write_outputs(output, {"replotted_trials": len(trials)}, trials)
    emit(document, trials_table(trials), args.json)
    return exit_codes.OK
