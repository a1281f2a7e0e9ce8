"""The experiment subcommands: each experiment's options (runs.requests) as argparse
arguments, then the application layer's one path (runs.execute) with the CLI's
progress lines, and the outcome printed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from p4tester.cli import exit_codes
from p4tester.cli.output import emit, fail
from p4tester.cli.progress import ProgressRunner
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.lab.placement import place_controller
from p4tester.results.checks import TRIAL_ERROR
from p4tester.results.confidence import RunConfidence
from p4tester.runs.catalog import Experiment, build_request, parse_option
from p4tester.runs.execute import RunEnd, plan_run, run_experiment
from p4tester.runs.option_parsers import OptionValueError
from p4tester.runs.replot import replot as replot_results
from p4tester.runs.requests import Option
from p4tester.runs.simulated_switch import check_simulated, open_simulated_runner
from p4tester.runs.trial_runners import open_trial_runner

Handler = Callable[[argparse.Namespace, Topology, Profile], int]


def _checked(option: Option) -> Callable[[str], str]:
    """argparse type: the text, once it parses (the request parses it again, as it
    does JSON), or argparse's error with the parser's message."""
    def check(text: str) -> str:
        try:
            parse_option(option, text)
        except OptionValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc
        return text

    return check


def add_options(sub: argparse.ArgumentParser, experiment: Experiment) -> None:
    for option in experiment.options:
        default = experiment.default_text(option)
        text = option.help.replace("%", "%%")
        if default is not None:
            text += f" (default {default})"
        sub.add_argument(f"--{option.name}", dest=option.name.replace("-", "_"),
                         type=_checked(option), required=option.required, help=text,
                         metavar="{" + ",".join(option.choices) + "}" if option.choices
                         else None)


def handler(experiment: Experiment) -> Handler:
    def handle(args: argparse.Namespace, topology: Topology, profile: Profile) -> int:
        request = build_request(experiment.name, {
            o.name: getattr(args, o.name.replace("-", "_")) for o in experiment.options})
        output: Path = args.output
        simulate: bool = args.simulate
        if simulate:
            check_simulated(experiment.name)
        # The simulated switch shares no CPU with a lab, and this host's calibration
        # says nothing about it.
        plan = plan_run(experiment, request, topology, profile, output, resume=args.resume,
                        placement="" if simulate else place_controller(topology),
                        calibration=None if simulate else args.calibration)
        for warning in plan.warnings:
            sys.stderr.write(f"p4tester: {warning}\n")
        runner = (open_simulated_runner(topology, profile) if simulate else
                  open_trial_runner(topology, profile, push_pipeline=args.push_pipeline))
        outcome = run_experiment(plan, runner, observe=ProgressRunner)
        if outcome.end is not RunEnd.FINISHED:
            fail(f"{experiment.name} stopped: {outcome.text} (finished trials are in "
                 f"{output}/trials.jsonl; fix the lab, then rerun with --resume)", args.json)
            return (exit_codes.SWITCH_UNAVAILABLE if outcome.tester_unanswered
                    else exit_codes.INVALID_TRIALS)
        document = {**outcome.document, "output": str(output)}
        emit(document, f"{outcome.text}\nresults in {output}/", args.json)
        # stderr only: with --json, stdout already holds the one result document.
        sys.stderr.write(f"p4tester: {RunConfidence.of(outcome.trials).describe()}\n")
        if simulate:
            sys.stderr.write("p4tester: measured on the simulated switch and DUT (--simulate),"
                             " not on a device\n")
        # Trials the tester or a lab DUT could not vouch for were repeated or left out
        # and said so above; only trials that failed make the run's exit code.
        failed = [t for t in outcome.trials if t.invalid_reason == TRIAL_ERROR]
        if failed:
            sys.stderr.write(
                f"p4tester: {len(failed)} of {len(outcome.trials)} trials invalid, their "
                f"figures unused; first: trial {failed[0].trial_index}: {failed[0].error}\n")
            return exit_codes.INVALID_TRIALS
        return exit_codes.OK

    return handle


def replot(args: argparse.Namespace) -> int:
    """Tables and plots again from a results directory's trials.jsonl."""
    document, text = replot_results(Path(args.results))
    emit(document, text, args.json)
    return exit_codes.OK

