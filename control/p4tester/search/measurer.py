"""The one thing a search knows about traffic: a measurer it is handed.

FD.io MLRsearch keeps its search apart from the traffic source the same way (its
AbstractMeasurer): a search only chooses (duration, load) pairs and reads back loss, so
it runs unchanged against the switch, a software generator or a simulated DUT in a
unit test.
"""

from __future__ import annotations

from typing import Protocol

from p4tester.results.model import TrialResult


class Measurer(Protocol):
    """Runs one trial and reports it.

    Everything except duration and load (ports, streams, frame size, drain time) is
    fixed before the search starts, by whoever built the measurer.
    """

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        """Offer `offered_fraction` (in (0, 1]) of the TX ports' line rate for
        `duration_s` seconds, let the DUT drain, and return the trial.

        A trial that could not be completed comes back with `valid=False` and an
        `error`; the search decides whether to repeat it.
        """
        ...
