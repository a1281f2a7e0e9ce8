"""Adapter to FD.io's MLRsearch library (PyPI `MLRsearch` 1.2.1, RFC 9971).

One search serves every goal at once and steers with short early trials; only the
final-duration trials decide the bounds. This module translates, it does not search:
our Measurer becomes an MLRsearch AbstractMeasurer, our SearchGoals become its
SearchGoals, and its per-goal relevant bounds become our SearchResults. Loads are
handed to MLRsearch as fractions of line rate (it is unit-agnostic: it bisects in
logarithmic space).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from MLRsearch import (
    AbstractMeasurer,
    Config,
    MeasurementResult,
    MultipleLossRatioSearch,
)
from MLRsearch import SearchGoal as MlrGoal

from .goals import DEFAULT_MIN_FRACTION, SearchGoal, SearchResult
from .measurer import Measurer
from .trials import DEFAULT_MAX_TRIALS, TrialRecorder

# MLRsearch's own time limit counts wall-clock seconds; two hours lets a 60-s-trial
# search on real traffic finish, while a simulated one never gets near it.
DEFAULT_SEARCH_WALL_LIMIT_S = 7200.0
# MLRsearch grows its external-search interval by this factor (its default).
_EXPANSION_COEFFICIENT = 2


class _RecordingMeasurer(AbstractMeasurer):  # type: ignore[misc]  # MLRsearch has no type hints
    """Runs MLRsearch's trials through our recorder and reports counts back to it."""

    def __init__(self, recorder: TrialRecorder) -> None:
        self._recorder = recorder

    def measure(self, intended_duration: float, intended_load: float) -> MeasurementResult:
        trial = self._recorder.measure(intended_duration, intended_load)
        if trial is None:
            # The tester could not carry this load itself: not a measurement of the
            # DUT. Failing it keeps MLRsearch below the load (the lowered ceiling);
            # the SearchResult says the bound above is the tester's, not the DUT's.
            return MeasurementResult(
                intended_duration=intended_duration,
                intended_load=intended_load,
                offered_count=1,
                loss_count=1,
                offered_duration=intended_duration,
            )
        # The loss is counted per stream and added up (results.model), never offered
        # minus received: MLRsearch would take |offered - received|, so a stream's
        # duplicates would count as loss and hide another stream's. Handing it our
        # count keeps it agreeing with SearchGoal.is_met_by; likewise the frames due
        # (a replicated stream is due its frames on each RX port) for the offered count.
        return MeasurementResult(
            intended_duration=intended_duration,
            intended_load=intended_load,
            offered_count=trial.frames_due,
            loss_count=trial.lost,
            offered_duration=trial.duration_s,
        )


def to_mlr_goal(goal: SearchGoal) -> MlrGoal:
    """Our goal in MLRsearch's terms. fail_fast is off: a DUT that fails even the
    minimum load yields a result without a lower bound, as the binary search does."""
    return MlrGoal(
        loss_ratio=goal.loss_ratio,
        exceed_ratio=goal.exceed_ratio,
        relative_width=goal.relative_width,
        initial_trial_duration=goal.initial_trial_duration_s,
        final_trial_duration=goal.final_trial_duration_s,
        duration_sum=goal.min_duration_sum_s,
        preceding_targets=goal.preceding_targets,
        expansion_coefficient=_EXPANSION_COEFFICIENT,
        fail_fast=False,
    )


def mlr_search(
    measurer: Measurer,
    goals: Sequence[SearchGoal],
    *,
    min_fraction: float = DEFAULT_MIN_FRACTION,
    max_fraction: float = 1.0,
    warmup_s: float = 0.0,
    max_trials: int = DEFAULT_MAX_TRIALS,
    wall_limit_s: float = DEFAULT_SEARCH_WALL_LIMIT_S,
    debug: Callable[[str], None] | None = None,
) -> tuple[SearchResult, ...]:
    """Search all goals in one MLRsearch run; one SearchResult per goal, in order.

    The goals share the run's trials, so every result carries the same `trials` and
    `trial_seconds` (the whole run's): count them once, not once per goal.
    `warmup_s` > 0 adds one line-rate trial MLRsearch ignores (it is still recorded
    and paid for). Errors: InvalidTrialError, TrialBudgetError as in the binary
    search; RuntimeError from MLRsearch past `wall_limit_s`. A load the tester itself
    cannot carry (tester-limited after its repeats) fails for MLRsearch and sets
    every result's `tester_ceiling_fraction`. `max_fraction` is the highest load
    offered (MLRsearch starts there): line rate, or the tester's capacity on this host.
    """
    if not goals:
        raise ValueError("mlr_search: no goals given (e.g. [NDR, PDR])")
    if not 0.0 < min_fraction < max_fraction <= 1.0:
        raise ValueError(
            f"mlr_search: need 0 < min_fraction < max_fraction <= 1 of line rate, got "
            f"{min_fraction} and {max_fraction}"
        )
    mlr_goals = {goal: to_mlr_goal(goal) for goal in goals}
    config = Config()
    # Two of our goals may differ only in name; MLRsearch rejects duplicates.
    config.goals = tuple(dict.fromkeys(mlr_goals.values()))
    config.min_load = min_fraction
    config.max_load = max_fraction
    config.search_duration_max = wall_limit_s
    config.warmup_duration = warmup_s
    recorder = TrialRecorder(measurer, max_trials, max(g.loss_ratio for g in goals))
    goal_results = MultipleLossRatioSearch(config=config).search(
        measurer=_RecordingMeasurer(recorder), debug=debug
    )
    trials, trial_seconds = recorder.trials, recorder.trial_seconds
    results = []
    for goal in goals:
        found = goal_results[mlr_goals[goal]]
        lower, upper = found.relevant_lower_bound, found.relevant_upper_bound
        results.append(
            SearchResult(
                goal=goal,
                lower_bound_fraction=None if lower is None else float(lower),
                upper_bound_fraction=None if upper is None else float(upper),
                trials=trials,
                trial_seconds=trial_seconds,
                tester_ceiling_fraction=recorder.tester_ceiling,
                max_fraction=max_fraction,
            )
        )
    return tuple(results)
