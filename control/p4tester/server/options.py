"""An experiment's parameters over HTTP, parsed by the CLI's own option definitions
(cli/experiment_cmds.py), so the API takes exactly what `p4tester EXPERIMENT` takes,
with the same checks and messages."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NoReturn

from p4tester.cli.experiment_cmds import EXPERIMENTS


class OptionError(ValueError):
    """Bad experiment parameters; the message is argparse's."""


class _RaisingParser(argparse.ArgumentParser):
    # argparse exits the process on a bad option; a server answers 400 instead.
    def error(self, message: str) -> NoReturn:
        raise OptionError(f"{self.prog}: {message}")


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option as the dashboard's form shows it."""

    name: str  # without dashes, as the API takes it: "frame-sizes"
    help: str
    required: bool
    default: str | None
    choices: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class ExperimentInfo:
    name: str
    summary: str
    options: tuple[OptionInfo, ...]


def experiment_parser(name: str) -> argparse.ArgumentParser:
    if name not in EXPERIMENTS:
        raise OptionError(f"no experiment named {name!r}; known: {sorted(EXPERIMENTS)}")
    _summary, add_options, _handler = EXPERIMENTS[name]
    parser = _RaisingParser(prog=f"p4tester {name}", add_help=False)
    add_options(parser)
    return parser


def parse_options(name: str, options: Mapping[str, str | int | float | bool]) -> argparse.Namespace:
    """{"frame-sizes": "64,512", "duration": 1} -> the Namespace the CLI would build
    from `--frame-sizes 64,512 --duration 1`. A true bool is a flag; false leaves it out."""
    argv: list[str] = []
    for key, value in options.items():
        flag = "--" + key.lstrip("-").replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is not False:
            argv += [flag, str(value)]
    return experiment_parser(name).parse_args(argv)


def describe_experiments() -> tuple[ExperimentInfo, ...]:
    infos = []
    for name, (summary, _add, _handler) in EXPERIMENTS.items():
        options = []
        for action in experiment_parser(name)._actions:
            if not action.option_strings:
                continue
            default = action.default
            options.append(OptionInfo(
                name=action.option_strings[-1].lstrip("-"),
                help=(action.help or "").replace("%%", "%"),
                required=action.required,
                default=None if default is None else str(default),
                choices=tuple(str(c) for c in action.choices) if action.choices else None))
        infos.append(ExperimentInfo(name, summary, tuple(options)))
    return tuple(infos)
