"""Errors an experiment raises. Messages name the trial, the load and the way out,
since the reader is usually looking at a stopped run, not at this code."""

from __future__ import annotations

from p4tester.results.model import TrialResult


class ExperimentError(Exception):
    """Base of every error raised by an experiment."""


class InvalidTrialsError(ExperimentError):
    """A trial stayed invalid after its repeats: the switch or the reader is broken.

    Every attempt is in the results log (valid=False, with its error), and so is every
    trial that finished before: rerun with the same log to resume from here. `last` is
    the last attempt.
    """

    def __init__(self, message: str, last: TrialResult) -> None:
        super().__init__(message)
        self.last = last


class ResumeMismatchError(ExperimentError):
    """The results log holds a finished trial under this trial's number that was run
    with other parameters: the configuration changed since the log was written."""


class UnvouchedTrialError(InvalidTrialsError):
    """Every try at one trial was tester-limited or dut-limited (results.checks): the
    tester or a lab DUT sharing the host could not carry the load, so the trial
    measures nothing about the DUT. `last` is the last try, with its self-checks;
    an experiment may leave the point out (and say so) instead of stopping."""



class TesterUnanswered(ExperimentError):
    """One of several testers (its agent, on another host or process) stopped
    answering: the trial cannot be read. The message names the tester and where it was
    reached; it says all there is, so no traceback is shown with it."""
