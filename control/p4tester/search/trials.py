"""Running trials on behalf of a search: repeat an invalid trial once, cap the count,
and keep every trial so the result can show what the search cost."""

from __future__ import annotations

from p4tester.results.model import TrialResult

from .errors import InvalidTrialError, TrialBudgetError
from .measurer import Measurer

# A search that needs this many trials is looping, not converging: halving from line
# rate to a 0.5 % width at 0.1 % of line rate takes about 18.
DEFAULT_MAX_TRIALS = 100


class TrialRecorder:
    """Measures through a Measurer and remembers every trial, valid or not.

    Mutable on purpose: one recorder follows one search from start to end.
    """

    __slots__ = ("_max_trials", "_measurer", "_trials")

    def __init__(self, measurer: Measurer, max_trials: int = DEFAULT_MAX_TRIALS) -> None:
        if max_trials < 1:
            raise ValueError(f"max_trials must be at least 1, got {max_trials}")
        self._measurer = measurer
        self._max_trials = max_trials
        self._trials: list[TrialResult] = []

    @property
    def trials(self) -> tuple[TrialResult, ...]:
        return tuple(self._trials)

    @property
    def trial_seconds(self) -> float:
        """Traffic time spent so far, invalid trials included (they cost time too)."""
        return sum(trial.duration_s for trial in self._trials)

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        """One valid trial at this load: an invalid one is repeated once, then we give up.

        A single failure is often transient (a slow counter read); two in a row at the
        same load mean the setup is broken, and searching on would only hide it.
        """
        first = self._run(duration_s, offered_fraction)
        if first.valid:
            return first
        second = self._run(duration_s, offered_fraction)
        if second.valid:
            return second
        raise InvalidTrialError(
            f"trial at {offered_fraction:.6g} of line rate for {duration_s:g} s was invalid "
            f"twice in a row: first {first.error or 'no error given'}; "
            f"then {second.error or 'no error given'}"
        )

    def _run(self, duration_s: float, offered_fraction: float) -> TrialResult:
        if len(self._trials) >= self._max_trials:
            raise TrialBudgetError(
                f"search needs more than max_trials={self._max_trials} trials "
                f"(next: {offered_fraction:.6g} of line rate for {duration_s:g} s); "
                f"is the DUT's loss erratic, or the budget too small?"
            )
        trial = self._measurer.measure(duration_s, offered_fraction)
        self._trials.append(trial)
        return trial
