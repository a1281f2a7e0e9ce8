"""What a throughput search looks for (SearchGoal) and what it found (SearchResult).

Loads are fractions of the TX ports' line rate, in (0, 1]; durations are seconds.
Definitions follow design.md section 4: NDR is the highest load with zero loss, PDR
the highest load with a loss ratio at or below a set ratio; RFC 2544 trials last 60 s.
A trial's loss is judged stream by stream (results.model): NDR fails when any stream
lost a frame, whatever another stream duplicated.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4tester.results.model import StreamLoss, TrialResult

# RFC 2544 section 24: a throughput trial lasts at least 60 s.
RFC2544_TRIAL_DURATION_S = 60.0
# 0.5 %: the width FD.io CSIT asks of its NDR/PDR searches, and our default.
DEFAULT_RELATIVE_WIDTH = 0.005
# PDR as used by FD.io CSIT and design.md: at most 0.5 % of the frames lost.
DEFAULT_PDR_LOSS_RATIO = 0.005
# MLRsearch's first, short trials only steer the search; 1 s is its own default.
DEFAULT_INITIAL_TRIAL_DURATION_S = 1.0
# Below 0.1 % of line rate a DUT is broken rather than slow: searches stop there.
DEFAULT_MIN_FRACTION = 0.001


def relative_width(lower: float | None, upper: float | None) -> float:
    """(upper - lower) / upper, the width measure of RFC 9971 and of SearchGoal.

    A missing upper bound means line rate passed: the limit is known exactly (0.0).
    A missing lower bound means nothing passed: the interval is (0, upper] (1.0).
    """
    if upper is None:
        return 0.0
    return (upper - (lower or 0.0)) / upper


def proven_offered_fraction(trial: TrialResult) -> float | None:
    """The load (fraction of line rate) the trial proved it offered: its intended load
    scaled by the rate its generator was measured to send, on the switch's clock, over
    the rate it was set to (both all streams together); None when not measured."""
    measured = trial.offered_pps_measured
    if measured is None or trial.offered_pps <= 0.0:
        return None
    return trial.offered_fraction * measured / trial.offered_pps


@dataclass(frozen=True, slots=True)
class SearchGoal:
    """One conditional-throughput goal.

    Every search uses `loss_ratio`, `relative_width` and `final_trial_duration_s`.
    The rest only shapes the MLRsearch adapter (RFC 9971 terms): its early trials last
    `initial_trial_duration_s`, a load is classified once trials at the final duration
    sum to `duration_sum_s` (None: one final trial), and up to `exceed_ratio` of that
    sum may fail the loss ratio. The RFC 2544 binary search runs exactly one final
    trial per load, i.e. exceed_ratio 0 and one trial, whatever these say.
    """

    name: str
    loss_ratio: float
    relative_width: float = DEFAULT_RELATIVE_WIDTH
    final_trial_duration_s: float = RFC2544_TRIAL_DURATION_S
    initial_trial_duration_s: float = DEFAULT_INITIAL_TRIAL_DURATION_S
    exceed_ratio: float = 0.0
    duration_sum_s: float | None = None
    preceding_targets: int = 2  # MLRsearch: coarser short-trial phases before the final one

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise ValueError(f"search goal {self.name!r}: {problem}")

    def _problem(self) -> str | None:
        """The first thing wrong with the goal, as a message, or None."""
        if not self.name:
            return "name must not be empty"
        if not 0.0 <= self.loss_ratio < 1.0:
            return (
                f"loss_ratio must be in [0, 1) (0 for NDR, e.g. 0.005 for PDR), "
                f"got {self.loss_ratio}"
            )
        if not 0.0 < self.relative_width < 1.0:
            return (
                f"relative_width must be in (0, 1) (e.g. 0.005 for 0.5 %), "
                f"got {self.relative_width}"
            )
        if not self.final_trial_duration_s > 0.0:
            return f"final_trial_duration_s must be positive, got {self.final_trial_duration_s}"
        if not 0.0 < self.initial_trial_duration_s <= self.final_trial_duration_s:
            return (
                f"initial_trial_duration_s must be in (0, final_trial_duration_s="
                f"{self.final_trial_duration_s}], got {self.initial_trial_duration_s}"
            )
        if not 0.0 <= self.exceed_ratio < 1.0:
            return f"exceed_ratio must be in [0, 1), got {self.exceed_ratio}"
        if self.duration_sum_s is not None and self.duration_sum_s < self.final_trial_duration_s:
            return (
                f"duration_sum_s ({self.duration_sum_s}) must be at least "
                f"final_trial_duration_s ({self.final_trial_duration_s})"
            )
        if self.preceding_targets < 0:
            return f"preceding_targets must not be negative, got {self.preceding_targets}"
        # MLRsearch needs a short-trial phase to start from unless the first trial
        # already reaches the duration sum.
        if self.preceding_targets == 0 and self.initial_trial_duration_s < self.min_duration_sum_s:
            return (
                "preceding_targets must be at least 1 when initial trials are shorter "
                "than the duration sum"
            )
        return None

    @property
    def min_duration_sum_s(self) -> float:
        """Seconds of final-duration trials needed to classify a load."""
        if self.duration_sum_s is None:
            return self.final_trial_duration_s
        return self.duration_sum_s

    def is_met_by(self, trial: TrialResult) -> bool:
        """Whether one (valid) trial meets the goal's loss ratio: the streams' losses
        added up over all frames sent (TrialResult.loss_ratio)."""
        return trial.loss_ratio <= self.loss_ratio

    def is_failed_by_dut(self, trial: TrialResult) -> bool:
        """Whether the trial fails the goal on loss the DUT caused: a valid trial over
        the goal's ratio, or a host-limited one whose DUT loss floor alone is over it
        (the trials a search counts as failures, search.trials)."""
        if trial.valid:
            return not self.is_met_by(trial)
        return trial.host_limited and trial.dut_loss_floor_ratio > self.loss_ratio

    @classmethod
    def ndr(
        cls,
        *,
        relative_width: float = DEFAULT_RELATIVE_WIDTH,
        final_trial_duration_s: float = RFC2544_TRIAL_DURATION_S,
        initial_trial_duration_s: float = DEFAULT_INITIAL_TRIAL_DURATION_S,
    ) -> SearchGoal:
        """Non-drop rate: the highest load without any loss."""
        return cls(
            "NDR",
            0.0,
            relative_width=relative_width,
            final_trial_duration_s=final_trial_duration_s,
            initial_trial_duration_s=initial_trial_duration_s,
        )

    @classmethod
    def pdr(
        cls,
        loss_ratio: float = DEFAULT_PDR_LOSS_RATIO,
        *,
        relative_width: float = DEFAULT_RELATIVE_WIDTH,
        final_trial_duration_s: float = RFC2544_TRIAL_DURATION_S,
        initial_trial_duration_s: float = DEFAULT_INITIAL_TRIAL_DURATION_S,
    ) -> SearchGoal:
        """Partial drop rate: the highest load losing at most `loss_ratio` of frames."""
        return cls(
            "PDR",
            loss_ratio,
            relative_width=relative_width,
            final_trial_duration_s=final_trial_duration_s,
            initial_trial_duration_s=initial_trial_duration_s,
        )


NDR = SearchGoal.ndr()
PDR = SearchGoal.pdr()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Where one goal's limit lies, as fractions of line rate.

    `lower_bound_fraction`: the highest load known to meet the goal, as the trials were
    set to offer it (the search steers by it; a report gives
    `proven_lower_bound_fraction`); None when not even the search's minimum load did.
    `upper_bound_fraction`: the lowest load known to fail it; None when line rate itself
    meets the goal (then the lower bound is 1.0).
    `trials` are the trials the search ran for this result, invalid ones included,
    and `trial_seconds` their summed durations: the search's cost in traffic time.
    `tester_ceiling_fraction`: the lowest load the tester itself could not carry on
    this host (its trials stayed tester-limited); None when every load was measured.
    `max_fraction`: the highest load the search offered: line rate (1.0), or the
    tester's calibrated capacity on this host where that is lower (runs.search_capacity).
    """

    goal: SearchGoal
    lower_bound_fraction: float | None
    upper_bound_fraction: float | None
    trials: tuple[TrialResult, ...]
    trial_seconds: float
    tester_ceiling_fraction: float | None = None
    max_fraction: float = 1.0

    def __post_init__(self) -> None:
        lower, upper = self.lower_bound_fraction, self.upper_bound_fraction
        bounds = (("lower", lower), ("upper", upper), ("tester ceiling",
                                                       self.tester_ceiling_fraction),
                  ("highest load", self.max_fraction))
        for label, bound in bounds:
            if bound is not None and not 0.0 < bound <= 1.0:
                raise ValueError(
                    f"{self.goal.name} result: {label} bound must be in (0, 1] of line rate, "
                    f"got {bound}"
                )
        if lower is not None and upper is not None and not lower < upper:
            raise ValueError(
                f"{self.goal.name} result: lower bound {lower} must be below upper bound {upper}"
            )

    @property
    def relative_width(self) -> float:
        """See the module function `relative_width`."""
        return relative_width(self.lower_bound_fraction, self.upper_bound_fraction)

    @property
    def lower_bound_is_tester_capacity(self) -> bool:
        """The goal was met at the highest load the search offered, and that load was
        the tester's capacity on this host, not line rate: the DUT's limit is at least
        the lower bound and may lie anywhere above it."""
        return (self.max_fraction < 1.0 and self.upper_bound_fraction is None
                and self.lower_bound_fraction == self.max_fraction)

    @property
    def upper_bound_is_tester_limit(self) -> bool:
        """The upper bound is where the tester gave out, not where the DUT lost
        frames: the DUT's limit may lie anywhere above the lower bound."""
        ceiling, upper = self.tester_ceiling_fraction, self.upper_bound_fraction
        return ceiling is not None and upper is not None and upper >= ceiling

    @property
    def failing_trial(self) -> TrialResult | None:
        """The trial that failed the goal at the upper bound (the lowest failing load):
        the longest there (MLRsearch may have run short and final trials at it), the
        latest of equals. None without an upper bound, or when it is the tester's
        ceiling (no trial there failed on the DUT's loss)."""
        upper = self.upper_bound_fraction
        if upper is None or self.upper_bound_is_tester_limit:
            return None
        failed = [t for t in self.trials
                  if t.offered_fraction == upper and self.goal.is_failed_by_dut(t)]
        return max(reversed(failed), key=lambda t: t.duration_s, default=None)

    @property
    def passing_trial(self) -> TrialResult | None:
        """The trial that met the goal at the lower bound: the longest there, the latest
        of equals; None without a lower bound."""
        lower = self.lower_bound_fraction
        passed = [t for t in self.trials if t.offered_fraction == lower and t.valid
                  and not self.goal.is_failed_by_dut(t)]
        return max(reversed(passed), key=lambda t: t.duration_s, default=None)

    @property
    def proven_lower_bound_fraction(self) -> float | None:
        """The lower bound as reported: min(intended, proven), the load the search set
        (`lower_bound_fraction`, which it keeps steering by) or, when lower, the load
        `passing_trial` proved it offered (proven_offered_fraction); the intended load
        when that trial's rate was not measured. None without a lower bound, and when
        the trial measured no frames/s at all (it proved no load).

        A bound is a claim about the DUT: it carried what reached it, not what the
        generator was set to send. A trial within the rate tolerance
        (tester.trial_course) is valid and still offered up to that much less, and at
        the tester's ceiling it offers exactly as much less as it can: reported at the
        intended load, "NDR >=" would claim a rate the tester never offered.

        Only the passing trial proves the bound, never a tester-limited trial above it
        whose DUT lost nothing at a higher measured rate. That trial's rate is measured
        right, but its loss is not vouched for: the self-check that made it invalid
        may also have found frames from before the trial counted as a stream's
        (received counts too high, loss too low), and the trial keeps only one reason
        (tester.trial_loop: a rate shortfall replaces that finding), so "lost nothing"
        there is not proven. Hence the bound is at most the highest rate a trial proved
        it offered within the goal."""
        lower = self.lower_bound_fraction
        trial = self.passing_trial
        proven = None if trial is None else proven_offered_fraction(trial)
        if lower is None or proven is None:
            return lower
        if proven <= 0.0:
            return None
        return min(lower, proven)

    @property
    def lower_bound_below_intended(self) -> bool:
        """The reported lower bound (`proven_lower_bound_fraction`) is below the
        search's own because the trial at it offered less than it was set to."""
        lower = self.lower_bound_fraction
        proven = self.proven_lower_bound_fraction
        return lower is not None and (proven is None or proven < lower)

    @property
    def buffered_at_lower_bound_us(self) -> float | None:
        """The latency rise (us) through the trial at the lower bound when the DUT's
        buffer was filling in it (TrialResult.dut_buffering_us): the bound may only hold
        for trials this short."""
        trial = self.passing_trial
        return None if trial is None else trial.dut_buffering_us

    @property
    def losing_streams(self) -> tuple[StreamLoss, ...]:
        """The streams that lost frames at the lowest failing load, worst first
        (TrialResult.losing_streams of `failing_trial`); () when none is known."""
        trial = self.failing_trial
        return () if trial is None else trial.losing_streams

    @property
    def within_goal_width(self) -> bool:
        return self.relative_width <= self.goal.relative_width

    def brackets(self, limit_fraction: float) -> bool:
        """Whether the true limit lies between the bounds (a missing lower bound is 0,
        a missing upper bound is line rate)."""
        lower = self.lower_bound_fraction or 0.0
        upper = 1.0 if self.upper_bound_fraction is None else self.upper_bound_fraction
        return lower <= limit_fraction <= upper
