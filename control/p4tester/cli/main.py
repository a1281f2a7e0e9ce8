"""`p4tester`: run the standard benchmarks on a P4 tester switch.

    p4tester validate  -t TOPOLOGY -p PROFILE        check files, no switch needed
    p4tester stats     -t TOPOLOGY -p PROFILE        live per-stream counters
    p4tester EXPERIMENT -t TOPOLOGY -p PROFILE -o DIR   run one (see --help)
    p4tester calibrate -t LOOPBACK_TOPOLOGY       the tester's own capacity on this host
    p4tester serve -t TOPOLOGY [--simulate]       web dashboard, REST API, /metrics
    p4tester otg -t TOPOLOGY [--bind HOST:PORT]   Open Traffic Generator API (snappi)

Exit codes: 0 ok; 1 some trials invalid; 2 bad input; 3 switch unavailable;
130 interrupted (every finished trial is already in DIR/trials.jsonl).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from p4tester.cli import exit_codes
from p4tester.cli.output import emit, fail
from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, load_profile
from p4tester.config.topology import Topology, load_topology
from p4tester.dataplane.program import DataplaneError
from p4tester.p4rt import ArbitrationError, PipelineMismatchError, SwitchUnreachableError
from p4tester.targets.tofino.bfrt import BfrtError
from p4tester.targets.tofino.sde_client import SdeNotFoundError

Handler = Callable[[argparse.Namespace, Topology, Profile], int]


def build_parser(experiments: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                                              Handler]]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="p4tester", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(sub: argparse.ArgumentParser, *, switch: bool) -> None:
        sub.add_argument("-t", "--topology", required=True, type=Path, help="topology YAML")
        sub.add_argument("-p", "--profile", required=True, type=Path, help="profile YAML")
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        if switch:
            sub.add_argument("--push-pipeline", action="store_true",
                             help="load the tester program even if the switch runs one")

    validate = commands.add_parser("validate", help="check topology and profile, no switch")
    common(validate, switch=False)
    stats = commands.add_parser("stats", help="live per-stream counters")
    common(stats, switch=True)
    stats.add_argument("--interval", type=float, default=1.0, help="seconds between reads")
    stats.add_argument("--count", type=int, default=1, help="how many reads (bounded)")
    capture = commands.add_parser(
        "capture", help="one trial; K frames of a stream (or a port's foreign ones) to pcap")
    common(capture, switch=True)
    from p4tester.cli.capture_cmd import add_options as add_capture_options

    add_capture_options(capture)
    for name, (summary, add_options, _handler) in experiments.items():
        sub = commands.add_parser(name, help=summary)
        common(sub, switch=True)
        sub.add_argument("-o", "--output", type=Path, required=True,
                         help="results directory (trials.jsonl, summary.json, CSV, PNG)")
        sub.add_argument("--resume", action="store_true",
                         help="skip trials already finished in OUTPUT/trials.jsonl")
        add_options(sub)
    from p4tester.cli.calibrate_cmd import add_parser as add_calibrate

    add_calibrate(commands)
    from p4tester.server.cli import add_parser as add_serve

    add_serve(commands)
    from p4tester.cli.otg_cmd import add_parser as add_otg

    add_otg(commands)
    replot = commands.add_parser("replot", help="rebuild tables and plots from a results dir")
    replot.add_argument("results", type=Path)
    replot.add_argument("--json", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from p4tester.cli.experiment_cmds import EXPERIMENTS, replot

    parser = build_parser(EXPERIMENTS)
    args = parser.parse_args(argv)
    as_json = bool(getattr(args, "json", False))
    try:
        if args.command == "replot":
            return replot(args)
        if args.command == "serve":
            from p4tester.server.cli import serve

            return serve(args)
        if args.command == "otg":
            from p4tester.cli.otg_cmd import run as run_otg

            return run_otg(args)
        if args.command == "calibrate":
            from p4tester.cli.calibrate_cmd import calibrate

            return calibrate(args)
        topology = load_topology(args.topology)
        profile = load_profile(args.profile, topology)
        if args.command == "validate":
            from p4tester.cli.validate_cmd import describe

            document, text = describe(topology, profile)
            emit(document, text, as_json)
            return exit_codes.OK
        if args.command == "stats":
            from p4tester.cli.stats_cmd import watch
            from p4tester.tester.session import TesterSession

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
        _summary, _options, handler = EXPERIMENTS[args.command]
        return handler(args, topology, profile)
    except (ConfigError, ValueError) as exc:
        fail(str(exc), as_json)
        return exit_codes.BAD_INPUT
    except (SwitchUnreachableError, ArbitrationError, PipelineMismatchError,
            DataplaneError) as exc:
        # DataplaneError: the program did not answer in-band while a session opened.
        fail(str(exc), as_json)
        return exit_codes.SWITCH_UNAVAILABLE
    except (SdeNotFoundError, BfrtError) as exc:
        # Tofino: the SDE's client is missing, or the BfRt server failed the driver.
        fail(str(exc), as_json)
        return exit_codes.SWITCH_UNAVAILABLE
    except KeyboardInterrupt:
        fail("interrupted; finished trials are kept in the results directory", as_json)
        return exit_codes.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
