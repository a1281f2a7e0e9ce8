"""Every option of every `p4tester` command says what it is for: the test walks the whole
parser tree the program builds (`p4tester.program.build_parser`), every subcommand of
every front end, and names each option or positional argument without a help text
(argparse's own -h excepted)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from p4tester.cli import exit_codes
from p4tester.program import build_parser
from p4tester.runs.catalog import EXPERIMENTS


def subcommands(
        parser: argparse.ArgumentParser, path: str = "p4tester",
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(command line, parser) of the program and of every subcommand under it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from subcommands(sub, f"{path} {name}")


def options_without_help(parser: argparse.ArgumentParser) -> list[str]:
    missing = []
    for path, sub in subcommands(parser):
        for action in sub._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                name = "/".join(action.option_strings) or action.dest
                missing.append(f"{path}: {name}")
    return missing


def commands_without_help(parser: argparse.ArgumentParser) -> list[str]:
    """Subcommands the COMMAND list of their parent's --help shows without a line."""
    missing = []
    for path, sub in subcommands(parser):
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                described = {choice.dest for choice in action._choices_actions
                             if (choice.help or "").strip()}
                missing += [f"{path} {name}" for name in action.choices
                            if name not in described]
    return missing


def test_every_option_of_every_command_has_help() -> None:
    assert options_without_help(build_parser()) == []


def test_every_command_has_a_line_in_its_parents_help() -> None:
    assert commands_without_help(build_parser()) == []


def test_the_walk_reaches_every_front_end() -> None:
    paths = {path for path, _ in subcommands(build_parser())}
    for command in ("validate", "stats", "capture", "calibrate", "tofino-check", "replot",
                    "throughput", "serve", "otg", "completion"):
        assert f"p4tester {command}" in paths


def test_the_check_names_an_option_without_help() -> None:
    parser = argparse.ArgumentParser(prog="p4tester")
    commands = parser.add_subparsers(dest="command")
    sub = commands.add_parser("demo", help="a command")
    sub.add_argument("--said", help="has help")
    sub.add_argument("--unsaid")
    sub.add_argument("where")
    commands.add_parser("quiet")
    assert options_without_help(parser) == ["p4tester demo: --unsaid", "p4tester demo: where"]
    assert commands_without_help(parser) == ["p4tester quiet"]


@pytest.mark.parametrize("command", ["calibrate", "replot", "validate", "serve", "otg"])
def test_help_prints_and_exits_zero(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args([command, "--help"])
    assert stop.value.code == 0
    assert f"usage: p4tester {command}" in capsys.readouterr().out


def test_the_programs_help_names_every_command_and_the_exit_codes() -> None:
    """`p4tester --help`'s overview lists every command (the experiments as
    EXPERIMENT) and the exit codes of p4tester.cli.exit_codes."""
    parser = build_parser()
    overview = parser.description or ""
    listed = set(re.findall(r"^ +p4tester ([\w-]+)", overview, re.MULTILINE))
    commands = {path.split()[1] for path, _ in subcommands(parser) if path.count(" ") == 1}
    assert commands - set(EXPERIMENTS) - listed == set()
    assert "EXPERIMENT" in listed
    codes = {"ok": exit_codes.OK, "some trials invalid": exit_codes.INVALID_TRIALS,
             "bad input": exit_codes.BAD_INPUT,
             "switch unavailable": exit_codes.SWITCH_UNAVAILABLE,
             "interrupted": exit_codes.INTERRUPTED}
    folded = " ".join(overview.split())
    for meaning, code in codes.items():
        assert f"{code} {meaning}" in folded
