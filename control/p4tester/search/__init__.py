"""Throughput searches (RFC 2544 binary baseline, MLRsearch adapter) and the measurer
interface they share, plus simulated DUTs to check them against."""

from .binary import binary_search
from .errors import InvalidTrialError, SearchError, TrialBudgetError
from .goals import NDR, PDR, SearchGoal, SearchResult
from .measurer import Measurer
from .mlr import mlr_search

__all__ = [
    "NDR",
    "PDR",
    "InvalidTrialError",
    "Measurer",
    "SearchError",
    "SearchGoal",
    "SearchResult",
    "TrialBudgetError",
    "binary_search",
    "mlr_search",
]
