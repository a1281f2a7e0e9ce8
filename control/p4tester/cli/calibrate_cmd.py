"""`p4tester calibrate -t TOPOLOGY`: the tester's own loss-free rate on this host, per
frame size, on the loopback lab; stored where every later experiment reads it to warn
about a load the tester itself cannot carry (issue 10)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Final

from p4tester.cli import exit_codes
from p4tester.cli.output import emit
from p4tester.config.dut_limits import CAPACITY_MARGIN, lab_need
from p4tester.config.errors import ConfigError
from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.experiments.calibration import (
    Calibration,
    CalibrationConfig,
    capacity_shortfall,
    run_calibration,
    save_calibration,
)
from p4tester.experiments.recording import Recorder
from p4tester.lab.placement import place_controller
from p4tester.results.tables import Column, render_table
from p4tester.runs.capacity_warnings import CALIBRATION_FILE
from p4tester.runs.outputs import open_log, write_outputs
from p4tester.runs.trial_runners import open_trial_runner
from p4tester.shipped import profile_file
from p4tester.streams.rates import line_rate_pps

# topologies/profiles/one-stream.yaml, as p4tester ships it (p4tester.shipped).
DEFAULT_PROFILE: Final = profile_file("one-stream.yaml")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub = commands.add_parser("calibrate", help="the tester's own loss-free rate on this host "
                              "(loopback lab), stored for later warnings")
    sub.add_argument("-t", "--topology", required=True, type=Path,
                     help="a loopback topology (the DUT replaced by a cable)")
    sub.add_argument("-p", "--profile", type=Path, default=DEFAULT_PROFILE,
                     help="its first stream is the one calibrated (default: one-stream)")
    sub.add_argument("-o", "--output", type=Path, help="results directory (default: "
                     "results/calibrate-<time>)")
    sub.add_argument("--store", type=Path, default=CALIBRATION_FILE,
                     help="where experiments read the calibration (default: %(default)s)")
    sub.add_argument("--frame-sizes", default="64,512,1518",
                     help="comma-separated frame sizes in bytes, each calibrated "
                     "(default: %(default)s)")
    sub.add_argument("--repetitions", type=int, default=3,
                     help="searches per frame size; the median is stored, the range "
                     "shown (default: %(default)s)")
    sub.add_argument("--duration", type=float, default=1.0, help="trial seconds")
    sub.add_argument("--json", action="store_true", help="machine-readable output")
    sub.add_argument("--push-pipeline", action="store_true",
                     help="load the tester program even if the switch runs one (BMv2; "
                     "eBPF loads it every run; refused on Tofino, whose bf_switchd "
                     "loads it)")
    sub.add_argument("--require-for", type=Path, nargs="+", default=[], metavar="TOPOLOGY",
                     help="then check that this host carries these labs' DUTs: each DUT's "
                     f"limit times {CAPACITY_MARGIN:g} at most the capacity at 64 B; exit 1 "
                     "naming what was measured and what each lab needs when it does not")


def calibrate(args: argparse.Namespace) -> int:
    topology = load_topology(args.topology)
    if topology.dut.kind != "loopback":
        raise ConfigError(f"calibrate measures the tester alone: {topology.source} has a "
                          f"{topology.dut.kind!r} DUT; use a loopback topology "
                          "(topologies/loopback.yaml)")
    profile = load_profile(args.profile, topology)
    stream = profile.streams[0]
    config = CalibrationConfig(
        line_rate_bps=topology.port(stream.tx_port).line_rate_bps,
        frame_sizes=tuple(int(s) for s in str(args.frame_sizes).split(",")),
        repetitions=args.repetitions, trial_duration_s=args.duration)
    output = args.output or Path(f"results/calibrate-{time.strftime('%Y%m%d-%H%M%S')}")
    log = open_log(output, "calibrate", profile.source, topology.source, resume=False,
                   placement=place_controller(topology))
    # One stream: the calibrated rate is one port's, whatever else the profile runs.
    with open_trial_runner(topology, replace(profile, streams=(stream,)),
                           push_pipeline=args.push_pipeline) as runner:
        recorder = Recorder(runner, log)
        calibration = run_calibration(config, recorder, topology.source or topology.name,
                                      topology.switch.target)
    save_calibration(calibration, output / "calibration.json")
    save_calibration(calibration, args.store)
    document = write_outputs(output, calibration, recorder.trials)
    document["stored"] = str(args.store)
    emit(document, f"{calibration_table(calibration)}\nstored in {args.store} (and "
         f"{output}/)", args.json)
    return _check_labs(calibration, args.require_for)


def _check_labs(calibration: Calibration, topologies: list[Path]) -> int:
    """Says, before a lab runs, when this host cannot carry it (issue 20)."""
    short = []
    for path in topologies:
        need = lab_need(load_topology(path))
        if need is None:
            continue  # a DUT without a stated limit: searches stop at the capacity
        shortfall = capacity_shortfall(calibration, need.frames_per_s, need.reason)
        if shortfall is not None:
            short.append(f"{path}: {shortfall}")
    for line in short:
        sys.stderr.write(f"p4tester calibrate: {line}\n")
    return exit_codes.INVALID_TRIALS if short else exit_codes.OK


def calibration_table(calibration: Calibration) -> str:
    """Frame size, the tester's loss-free rate (median, and the repetitions' range)."""
    rows = []
    for size in calibration.sizes:
        low, high = size.spread_pps
        full = line_rate_pps(size.line_rate_bps, size.frame_size)
        rows.append([str(size.frame_size), f"{size.pps:.0f}", f"{low:.0f}-{high:.0f}",
                     f"{size.fraction * 100.0:.1f}" + (" (line rate)" if size.at_line_rate
                                                       else ""),
                     f"{full:.0f}", str(len(size.fractions))])
    return render_table([Column("frame B"), Column("tester NDR pps"), Column("range pps"),
                         Column("% of port", left=True), Column("port line rate pps"),
                         Column("runs")], rows)
