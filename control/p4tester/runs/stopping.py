"""How a user stops a run between trials (or a simulated trial mid-way): the runner
raises StopRequested, and the run ends with its finished trials kept."""

from __future__ import annotations

from typing import Final

# What summary.json's result.stopped says of a run the user stopped; any other reason
# (the switch broke, bad input found late) is a failed run.
STOPPED_BY_USER: Final = "stopped by the user; the finished trials are kept"


class StopRequested(BaseException):
    """Raised into a running experiment when the user stops it. A BaseException so that
    the Recorder, which turns a runner's Exception into an invalid trial, lets it through
    as it lets Ctrl-C through: the finished trials stay in trials.jsonl."""
