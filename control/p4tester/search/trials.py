"""Running trials on behalf of a search: repeat an invalid trial (bounded), lower the
load ceiling when the tester itself cannot carry a load, cap the count, and keep
every trial so the result can show what the search cost and what it repeated."""

from __future__ import annotations

from typing import Final

from p4tester.results.model import TrialResult

from .errors import InvalidTrialError, TrialBudgetError
from .measurer import Measurer

# A search that needs this many trials is looping, not converging: halving from line
# rate to a 0.5 % width at 0.1 % of line rate takes about 18.
DEFAULT_MAX_TRIALS = 100
# A trial that failed (a slow counter read) is tried this often at one load: two
# failures in a row mean the setup is broken, and searching on would only hide it.
ERROR_ATTEMPTS: Final = 2
# A tester-limited trial (the tester lost frames itself, results.checks), or a
# dut-limited one (a lab DUT on the same host did), says nothing about the DUT's own
# behaviour: the load is tried this often before the search stops asking for it.
# A busy host is often busy for a moment only.
TESTER_LIMITED_ATTEMPTS: Final = 3
# A trial the DUT had not drained for (earlier trials' frames arrived in it, results.settle)
# is repeated, each time after a longer wait (tester.settle), this often: a DUT still
# delivering old frames after that is not measured at this frame size.
NOT_DRAINED_ATTEMPTS: Final = 3


class TrialRecorder:
    """Measures through a Measurer and remembers every trial, valid or not.

    Mutable on purpose: one recorder follows one search from start to end.
    """

    __slots__ = ("_ceiling", "_fail_above", "_max_trials", "_measurer", "_trials")

    def __init__(self, measurer: Measurer, max_trials: int = DEFAULT_MAX_TRIALS,
                 fail_above_loss_ratio: float = 0.0) -> None:
        """`fail_above_loss_ratio`: the largest loss ratio any goal of the search allows.
        Host-limited trials whose DUT loss floors (results.model) are all above it, in
        every repeat at a load, fail every goal whatever the host dropped."""
        if max_trials < 1:
            raise ValueError(f"max_trials must be at least 1, got {max_trials}")
        self._fail_above = fail_above_loss_ratio
        self._measurer = measurer
        self._max_trials = max_trials
        self._trials: list[TrialResult] = []
        self._ceiling: float | None = None

    @property
    def trials(self) -> tuple[TrialResult, ...]:
        return tuple(self._trials)

    @property
    def trial_seconds(self) -> float:
        """Traffic time spent so far, invalid trials included (they cost time too)."""
        return sum(trial.duration_s for trial in self._trials)

    @property
    def tester_ceiling(self) -> float | None:
        """The lowest load the host could not carry (the tester, or a lab DUT sharing
        the host, kept losing frames itself; None: none so far). Loads at or above it
        are not measured again: they are 'not measurable' here."""
        return self._ceiling

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult | None:
        """A trial the search can use at this load, or None when the host cannot
        carry it. Usable: a valid trial, or a host-limited one that fails every goal
        on the DUT's own loss (see __init__) in every repeat (`_unvouched_load`).

        A failed trial is repeated once, then InvalidTrialError. A tester-limited
        trial is repeated up to TESTER_LIMITED_ATTEMPTS times in all; if every try was
        tester-limited (and one lost no more than a goal allows on the DUT's floor),
        the load becomes the ceiling and None is returned: the
        search must treat the load as not measured (never as the DUT's loss) and
        look below it.
        """
        if self._ceiling is not None and offered_fraction >= self._ceiling:
            return None
        errors: list[str] = []
        limited: list[TrialResult] = []
        busy: list[TrialResult] = []
        while True:
            trial = self._run(duration_s, offered_fraction)
            if trial.valid:
                return trial
            if trial.dut_not_drained and not trial.host_limited:
                busy.append(trial)
                if len(busy) >= NOT_DRAINED_ATTEMPTS:
                    raise InvalidTrialError(not_drained_message(busy))
                continue
            if trial.host_limited:
                limited.append(trial)
                if len(limited) >= TESTER_LIMITED_ATTEMPTS:
                    return self._unvouched_load(limited, offered_fraction)
                continue
            errors.append(trial.error or "no error given")
            if len(errors) >= ERROR_ATTEMPTS:
                raise InvalidTrialError(
                    f"trial at {offered_fraction:.6g} of line rate for {duration_s:g} s was "
                    f"invalid twice in a row: first {errors[0]}; then {errors[1]}"
                )

    def _unvouched_load(self, limited: list[TrialResult],
                        offered_fraction: float) -> TrialResult | None:
        """After TESTER_LIMITED_ATTEMPTS host-limited trials at one load: a failure
        when even the smallest of their DUT loss floors is above every goal, else the
        load becomes the ceiling (None). A floor is believed only when every repeat
        shows it: on a host that starves the tester it may starve a lab DUT beside it
        too, and the frames such a stall bunches into the DUT's queue are dropped there,
        the host's loss in the DUT's counts (a 64-frame queue lost 29 frames at 95 % of
        its rate in a busy-host demo, and an eBPF lab's BMv2 DUT 27 at 92 % in a trial
        whose generator fell behind)."""
        least = min(limited, key=lambda t: t.dut_loss_floor_ratio)
        if least.dut_loss_floor_ratio > self._fail_above:
            return least
        self._ceiling = offered_fraction
        return None

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


def not_drained_message(trials: list[TrialResult]) -> str:
    """Why a load could not be measured: the DUT kept delivering earlier trials' frames
    in every repeat, however long each waited."""
    last = trials[-1]
    return (f"{len(trials)} trial(s) at {last.offered_fraction:.6g} of line rate, "
            f"{last.frame_size} B, each after a longer wait, still received frames of "
            f"earlier trials (last: {last.error}): the DUT did not drain; this frame size "
            "is not measured (raise trial: settle_s and settle_max_s in the profile)")
