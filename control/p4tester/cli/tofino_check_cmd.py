"""`p4tester tofino-check -t TOPOLOGY`: first contact with a Tofino switch. Checks each
assumption docs/tofino.md lists as unverified by a small experiment of its own (ports
in MAC loopback), prints one line per assumption and writes a JSON report to attach to
an issue; exits 1 when an assumption is refuted."""

from __future__ import annotations

import argparse
from pathlib import Path

from p4tester.cli import exit_codes
from p4tester.cli.output import emit
from p4tester.config.topology import load_topology
from p4tester.runs.tofino_check import tofino_check
from p4tester.targets.tofino.first_contact.bench import Bench
from p4tester.targets.tofino.first_contact.findings import save_report
from p4tester.targets.tofino.measured_caps import TOFINO_CHECK_FILE


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub = commands.add_parser(
        "tofino-check", help="first contact with a Tofino: check each assumption of "
        "docs/tofino.md on the switch (ports in MAC loopback), one line each")
    sub.add_argument("-t", "--topology", required=True, type=Path,
                     help="a Tofino topology (topologies/tofino*.yaml); its ports are put "
                     "in MAC loopback for the checks, so unplug nothing")
    sub.add_argument("-o", "--output", type=Path, default=TOFINO_CHECK_FILE,
                     help="the JSON report (default: %(default)s, which searches on this "
                     "switch read: a refuted rate caps their loads); exit 1 when an "
                     "assumption is refuted, 0 when none is")
    sub.add_argument("--json", action="store_true", help="machine-readable output")


def tofino_check_command(args: argparse.Namespace, bench: Bench | None = None) -> int:
    report = tofino_check(load_topology(args.topology), bench)
    output = Path(args.output)
    save_report(report, output)
    document = {**report.to_json(), "report": str(output)}
    emit(document, "\n".join([*report.lines(), f"report: {output}"]), args.json)
    return exit_codes.INVALID_TRIALS if report.refuted else exit_codes.OK
