"""An experiment's parameters over HTTP: JSON option values into the application
layer's typed request (runs.catalog.build_request, the CLI's parser too), and the
options as the dashboard's form shows them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p4tester.runs.catalog import EXPERIMENTS, build_request
from p4tester.runs.requests import ExperimentRequest


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


def parse_options(name: str,
                  options: Mapping[str, str | int | float | bool]) -> ExperimentRequest:
    """{"frame-sizes": "64,512", "duration": 1} -> the request the CLI builds from
    `--frame-sizes 64,512 --duration 1` (keys may carry the CLI's dashes)."""
    return build_request(name, {key.lstrip("-").replace("_", "-"): value
                                for key, value in options.items()})


def describe_experiments() -> tuple[ExperimentInfo, ...]:
    return tuple(
        ExperimentInfo(name, experiment.summary, tuple(
            OptionInfo(name=option.name, help=option.help, required=option.required,
                       default=experiment.default_text(option), choices=option.choices)
            for option in experiment.options))
        for name, experiment in EXPERIMENTS.items())
