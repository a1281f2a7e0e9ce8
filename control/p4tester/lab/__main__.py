"""python -m p4tester.lab up TOPOLOGY | down: bring a lab up or take it down."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from p4tester.config.errors import ConfigError
from p4tester.config.topology import load_topology
from p4tester.lab.netdev import LabError
from p4tester.lab.runner import DEFAULT_RUNDIR, down, up


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m p4tester.lab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    bring_up = commands.add_parser("up", help="make links, start the DUT and the tester switch")
    bring_up.add_argument("topology", type=Path,
                          help="the lab's topology YAML, e.g. topologies/bmv2-dut.yaml")
    bring_up.add_argument("--log", action="store_true", help="BMv2 trace logs in the run dir "
                          "(runs the logging build of BMv2, at lower capacity)")
    bring_up.add_argument("--keep-offloads", action="store_true",
                          help="benchmarks only: leave the links' offloads on, so BMv2's "
                          "capture rings hold 31 frames, as labs had them before")
    commands.add_parser("down", help="stop everything the lab started, remove its links")
    parser.add_argument("--rundir", type=Path, default=DEFAULT_RUNDIR,
                        help="where the lab keeps its state and logs; `down` takes down the "
                        "lab this directory holds (default: %(default)s)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        sys.stderr.write("p4tester.lab: needs root (veth pairs, namespaces)\n")
        return 2
    try:
        if args.command == "up":
            state = up(load_topology(args.topology), args.rundir, log=args.log,
                       keep_offloads=args.keep_offloads)
            print(f"lab {state.topology} up: links {state.links}, namespaces {state.netns}, "
                  f"processes {state.pids}" + (f"; {state.placement}" if state.placement else ""))
            for note in state.notes:
                sys.stderr.write(f"p4tester.lab: note: {note}\n")
        else:
            down(args.rundir)
            print("lab down")
    except (ConfigError, LabError) as exc:
        sys.stderr.write(f"p4tester.lab: {exc}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
