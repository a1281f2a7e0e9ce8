"""The plain RFC 2544 throughput search (section 26.1), kept as the compliance baseline.

One goal at a time, every trial at the goal's full final duration, starting at line
rate and halving the interval between the highest passing and the lowest failing load
until it is as narrow as the goal asks. Nothing is shared between goals: that is what
the MLRsearch adapter is compared against.
"""

from __future__ import annotations

from collections.abc import Sequence

from .goals import DEFAULT_MIN_FRACTION, SearchGoal, SearchResult, relative_width
from .measurer import Measurer
from .trials import DEFAULT_MAX_TRIALS, TrialRecorder

# RFC 2544 starts at the maximum frame rate of the medium.
_LINE_RATE = 1.0


def binary_search(
    measurer: Measurer,
    goals: Sequence[SearchGoal],
    *,
    min_fraction: float = DEFAULT_MIN_FRACTION,
    max_fraction: float = _LINE_RATE,
    max_trials: int = DEFAULT_MAX_TRIALS,
) -> tuple[SearchResult, ...]:
    """Search each goal on its own; one SearchResult per goal, in the goals' order.

    The first trial is at `max_fraction`: line rate, or less where the tester cannot
    carry line rate on this host (runs.search_capacity); nothing above it is offered.

    A trial meets a goal when its loss ratio is at most the goal's. `max_trials` caps
    each goal's search (TrialBudgetError past it); an invalid trial is repeated once,
    then InvalidTrialError. A load the tester itself cannot carry (tester-limited
    after its repeats, search.trials) is an upper bound the search may not go past,
    never the DUT's loss: the result's `tester_ceiling_fraction` says so. When even
    `min_fraction` fails, the result has no lower bound.
    """
    if not goals:
        raise ValueError("binary_search: no goals given (e.g. [NDR, PDR])")
    if not 0.0 < min_fraction < max_fraction <= _LINE_RATE:
        raise ValueError(
            f"binary_search: need 0 < min_fraction < max_fraction <= 1 of line rate, got "
            f"{min_fraction} and {max_fraction}"
        )
    return tuple(_search_goal(measurer, goal, min_fraction, max_fraction, max_trials)
                 for goal in goals)


def _search_goal(
    measurer: Measurer, goal: SearchGoal, min_fraction: float, max_fraction: float,
    max_trials: int
) -> SearchResult:
    recorder = TrialRecorder(measurer, max_trials, goal.loss_ratio)
    lower: float | None = None
    upper: float | None = None
    load = max_fraction
    while True:
        trial = recorder.measure(goal.final_trial_duration_s, load)
        if trial is not None and goal.is_met_by(trial):
            lower = load
        else:
            upper = load
        if upper is None:
            break  # the highest load meets the goal: nothing above it to find
        if relative_width(lower, upper) <= goal.relative_width:
            break
        if lower is None and upper <= min_fraction:
            break  # not even the minimum load meets the goal
        # Once a load has passed, every midpoint lies above min_fraction; the clamp only
        # acts while nothing has passed yet.
        floor = 0.0 if lower is None else lower
        load = max((floor + upper) / 2.0, min_fraction)
    return SearchResult(
        goal=goal,
        lower_bound_fraction=lower,
        upper_bound_fraction=upper,
        trials=recorder.trials,
        trial_seconds=recorder.trial_seconds,
        tester_ceiling_fraction=recorder.tester_ceiling,
        max_fraction=max_fraction,
    )
