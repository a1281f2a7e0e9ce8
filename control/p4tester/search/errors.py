"""Errors a search raises. Messages name the load, the duration and the cause, since
the reader is usually looking at a failed run, not at this code."""

from __future__ import annotations


class SearchError(Exception):
    """Base of every error raised by a throughput search."""


class InvalidTrialError(SearchError):
    """A trial stayed invalid after being repeated (the switch or the reader failed)."""


class TrialBudgetError(SearchError):
    """A search wanted more trials than it was allowed: a bug or a hopeless DUT."""
