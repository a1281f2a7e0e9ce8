"""The CLI's commands: validate, stats, capture, calibrate, tofino-check, the experiments
and replot.
`p4tester.program` puts them beside `serve` (server/) and `otg` (otg/)."""

from __future__ import annotations

import argparse
from pathlib import Path

from p4tester.cli import exit_codes
from p4tester.cli.calibrate_cmd import add_parser as add_calibrate
from p4tester.cli.capture_cmd import add_options as add_capture_options
from p4tester.cli.experiment_cmds import add_options, handler, replot
from p4tester.cli.output import emit
from p4tester.cli.tofino_check_cmd import add_parser as add_tofino_check
from p4tester.config.errors import ConfigError
from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.runs.capacity_warnings import CALIBRATION_FILE
from p4tester.runs.catalog import EXPERIMENTS
from p4tester.runs.search_capacity import SEARCH_CAPACITY_SHARE
from p4tester.runs.simulated_switch import FULL_CAPACITY_SIZE, SMALLEST_CAPACITY


def _common(sub: argparse.ArgumentParser, *, switch: bool) -> None:
    sub.add_argument("-t", "--topology", required=True, type=Path, help="topology YAML")
    sub.add_argument("-p", "--profile", required=True, type=Path, help="profile YAML")
    sub.add_argument("--json", action="store_true", help="machine-readable output")
    if switch:
        sub.add_argument("--push-pipeline", action="store_true",
                         help="load the tester program even if the switch runs one (BMv2; "
                         "eBPF loads it every run; refused on Tofino, whose bf_switchd "
                         "loads it)")


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    validate = commands.add_parser("validate", help="check topology and profile, no switch")
    _common(validate, switch=False)
    stats = commands.add_parser("stats", help="live per-stream counters")
    _common(stats, switch=True)
    stats.add_argument("--interval", type=float, default=1.0, help="seconds between reads")
    stats.add_argument("--count", type=int, default=1, help="how many reads (bounded)")
    capture = commands.add_parser(
        "capture", help="one trial; K frames of a stream (or a port's foreign ones) to pcap")
    _common(capture, switch=True)
    add_capture_options(capture)
    for name, experiment in EXPERIMENTS.items():
        sub = commands.add_parser(name, help=experiment.summary)
        _common(sub, switch=True)
        sub.add_argument("-o", "--output", type=Path, required=True,
                         help="results directory (trials.jsonl, summary.json, CSV, PNG)")
        sub.add_argument("--resume", action="store_true",
                         help="skip trials already finished in OUTPUT/trials.jsonl")
        sub.add_argument("--simulate", action="store_true",
                         help="run on a simulated switch and DUT instead (no switch, no "
                         f"root): a DUT forwarding {SMALLEST_CAPACITY * 100:g}%% of line "
                         f"rate at 64 B up to 100%% from {FULL_CAPACITY_SIZE} B; figures at "
                         "once, the same every run")
        sub.add_argument("--calibration", type=Path, default=CALIBRATION_FILE,
                         help="the tester's capacity on this host as `p4tester calibrate` "
                         "stored it: loads above it are warned of, and a search goes no "
                         f"higher than {SEARCH_CAPACITY_SHARE * 100:.0f}%% of it (default: "
                         "%(default)s)")
        add_options(sub, experiment)
    add_calibrate(commands)
    add_tofino_check(commands)
    replot_parser = commands.add_parser("replot",
                                        help="rebuild tables and plots from a results dir")
    replot_parser.add_argument("results", type=Path,
                               help="a results directory an experiment wrote (its "
                               "trials.jsonl is read; tables, CSV and PNG written beside it)")
    replot_parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    """Runs one of the commands add_commands adds; its errors are the program's to
    report (p4tester.program)."""
    as_json = bool(getattr(args, "json", False))
    if args.command == "replot":
        return replot(args)
    if args.command == "calibrate":
        from p4tester.cli.calibrate_cmd import calibrate

        return calibrate(args)
    if args.command == "tofino-check":
        from p4tester.cli.tofino_check_cmd import tofino_check_command

        return tofino_check_command(args)
    topology = load_topology(args.topology)
    profile = load_profile(args.profile, topology)
    if args.command == "validate":
        from p4tester.runs.describe import describe

        document, text = describe(topology, profile)
        emit(document, text, as_json)
        return exit_codes.OK
    if args.command == "stats":
        from p4tester.cli.stats_cmd import watch
        from p4tester.targets.bmv2_session import TesterSession

        if args.count < 1 or args.interval <= 0:
            raise ConfigError("--count must be >= 1 and --interval > 0")
        if topology.switch.target != "bmv2":
            raise ConfigError(f"stats reads BMv2 counters; on {topology.switch.target} run "
                              "an experiment (soak gives interval statistics)")
        with TesterSession(topology, profile, push_pipeline=args.push_pipeline) as session:
            watch(session, args.interval, args.count, as_json)
        return exit_codes.OK
    if args.command == "capture":
        from p4tester.cli.capture_cmd import capture

        return capture(args, topology, profile)
    return handler(EXPERIMENTS[args.command])(args, topology, profile)
