"""`p4tester`: run the standard benchmarks on a P4 tester switch.

    p4tester validate -t TOPOLOGY -p PROFILE           check files, no switch needed
    p4tester stats -t TOPOLOGY -p PROFILE              live per-stream counters
    p4tester EXPERIMENT -t TOPOLOGY -p PROFILE -o DIR  run one (see its --help);
                                                       --simulate: no switch needed
    p4tester replot DIR                                tables and plots again from DIR
    p4tester capture -t TOPOLOGY -p PROFILE ...        one trial's frames to a pcap
    p4tester calibrate -t LOOPBACK_TOPOLOGY            the tester's own capacity here
    p4tester tofino-check -t TOFINO_TOPOLOGY           first contact: check a Tofino's
                                                       assumptions (exit 1: one refuted)
    p4tester serve -t TOPOLOGY [--simulate]            web dashboard, REST API, /metrics
    p4tester otg -t TOPOLOGY [--bind HOST:PORT]        Open Traffic Generator API
    p4tester completion bash|zsh                       shell completion (eval its output)

Exit codes: 0 ok; 1 some trials invalid; 2 bad input; 3 switch unavailable;
130 interrupted (every finished trial is already in DIR/trials.jsonl).
"""

# The program sits above the three front ends (the CLI's commands, `serve`, `otg`),
# which sit side by side and never import each other.

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import signal
import sys
from collections.abc import Sequence

from p4tester.cli import completion, exit_codes
from p4tester.cli import main as cli
from p4tester.cli.output import fail
from p4tester.config.errors import ConfigError
from p4tester.dataplane.program import DataplaneError
from p4tester.otg import cli as otg_cli
from p4tester.p4rt import ArbitrationError, PipelineMismatchError, SwitchUnreachableError
from p4tester.results.jsonl import tool_version
from p4tester.server import cli as server_cli
from p4tester.targets.tofino.bfrt import BfrtError
from p4tester.targets.tofino.sde_client import SdeNotFoundError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="p4tester", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"p4tester {tool_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    cli.add_commands(commands)
    server_cli.add_parser(commands)
    otg_cli.add_parser(commands)
    completion.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # `kill -USR1 PID` writes every thread's stack to stderr: what a run that does not
    # end (after Ctrl-C, say) is waiting for, without stopping it.
    if sys.__stderr__ is not None:
        with contextlib.suppress(OSError, ValueError):  # a stderr without a descriptor
            faulthandler.register(signal.SIGUSR1, file=sys.__stderr__, all_threads=True)
    parser = build_parser()
    args = parser.parse_args(argv)
    as_json = bool(getattr(args, "json", False))
    try:
        if args.command == "serve":
            return server_cli.serve(args)
        if args.command == "otg":
            return otg_cli.run(args)
        if args.command == "completion":
            return completion.run(args, parser)
        return cli.run(args)
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
