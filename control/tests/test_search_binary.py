"""RFC 2544 binary search against simulated DUTs with known limits, plus the goal and
result types it shares with the MLRsearch adapter."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import pytest

from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.results.model import TrialResult
from p4tester.results.settle import SettleRecord
from p4tester.search import (
    NDR,
    PDR,
    InvalidTrialError,
    SearchGoal,
    SearchResult,
    TrialBudgetError,
    binary_search,
)
from p4tester.search.simulated import CleanDut, FlakyMeasurer, LimitedTester, NoisyDut

# --- goals and results -------------------------------------------------------------


def test_ndr_and_pdr_constants() -> None:
    assert (NDR.name, NDR.loss_ratio, NDR.relative_width) == ("NDR", 0.0, 0.005)
    assert (PDR.name, PDR.loss_ratio) == ("PDR", 0.005)
    assert NDR.final_trial_duration_s == 60.0  # RFC 2544 trial length
    assert SearchGoal.pdr(0.01, relative_width=0.01).loss_ratio == 0.01
    assert NDR.min_duration_sum_s == 60.0


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"loss_ratio": -0.1}, "search goal 'G': loss_ratio must be in [0, 1)"),
        ({"loss_ratio": 1.0}, "loss_ratio must be in [0, 1)"),
        ({"relative_width": 0.0}, "relative_width must be in (0, 1)"),
        ({"relative_width": 1.0}, "relative_width must be in (0, 1)"),
        ({"final_trial_duration_s": 0.0}, "final_trial_duration_s must be positive"),
        ({"initial_trial_duration_s": 90.0}, "initial_trial_duration_s must be in (0, final"),
        ({"exceed_ratio": 1.0}, "exceed_ratio must be in [0, 1)"),
        ({"duration_sum_s": 30.0}, "duration_sum_s (30.0) must be at least final"),
        ({"preceding_targets": -1}, "preceding_targets must not be negative"),
        ({"preceding_targets": 0}, "preceding_targets must be at least 1"),
        ({"name": ""}, "name must not be empty"),
    ],
)
def test_goal_validation_names_the_problem(fields: dict[str, object], fragment: str) -> None:
    kwargs: dict[str, object] = {"name": "G", "loss_ratio": 0.0, **fields}
    with pytest.raises(ValueError, match=re.escape(fragment)):
        SearchGoal(**kwargs)  # type: ignore[arg-type]


def test_result_width_and_validation() -> None:
    result = SearchResult(NDR, 0.5, 0.502, (), 0.0)
    assert result.relative_width == pytest.approx(0.002 / 0.502)
    assert result.within_goal_width
    assert SearchResult(NDR, 1.0, None, (), 0.0).relative_width == 0.0  # line rate passed
    assert SearchResult(NDR, None, 0.001, (), 0.0).relative_width == 1.0  # nothing passed
    with pytest.raises(ValueError, match=r"NDR result: lower bound 0.6 must be below upper"):
        SearchResult(NDR, 0.6, 0.5, (), 0.0)
    with pytest.raises(ValueError, match=re.escape("upper bound must be in (0, 1]")):
        SearchResult(NDR, 0.5, 1.5, (), 0.0)


# --- the search --------------------------------------------------------------------


def test_exact_trial_sequence_on_a_clean_dut() -> None:
    (ndr,) = binary_search(CleanDut(0.6), [NDR])
    loads = [trial.offered_fraction for trial in ndr.trials]
    # Start at line rate, then halve the interval between highest pass and lowest fail.
    assert loads == [
        1.0,
        0.5,
        0.75,
        0.625,
        0.5625,
        0.59375,
        0.609375,
        0.6015625,
        0.59765625,
        0.599609375,
    ]
    assert (ndr.lower_bound_fraction, ndr.upper_bound_fraction) == (0.599609375, 0.6015625)
    assert all(trial.duration_s == 60.0 for trial in ndr.trials)
    assert ndr.trial_seconds == 600.0


@pytest.mark.parametrize("capacity", [0.0123, 0.1, 0.37, 0.5, 0.6, 0.97, 0.999])
@pytest.mark.parametrize("goal", [NDR, PDR, SearchGoal.pdr(0.05, relative_width=0.01)])
def test_bounds_bracket_the_true_limit_within_the_width(capacity: float, goal: SearchGoal) -> None:
    dut = CleanDut(capacity)
    (result,) = binary_search(dut, [goal])
    limit = dut.limit_fraction(goal.loss_ratio)
    assert result.brackets(limit)
    assert result.within_goal_width
    if result.upper_bound_fraction is not None:
        # The upper bound really failed and the lower bound really passed.
        assert dut.loss_ratio_at(result.upper_bound_fraction) > goal.loss_ratio
    assert result.lower_bound_fraction is not None
    assert dut.loss_ratio_at(result.lower_bound_fraction) <= goal.loss_ratio


def test_pdr_sits_above_ndr_by_what_the_loss_curve_implies() -> None:
    # Above capacity c the loss is 1 - c / load, so PDR(r) = c / (1 - r) = NDR / (1 - r).
    capacity, ratio = 0.6, 0.05
    pdr_goal = SearchGoal.pdr(ratio)
    ndr, pdr = binary_search(CleanDut(capacity), [NDR, pdr_goal])
    assert ndr.upper_bound_fraction is not None and pdr.upper_bound_fraction is not None
    assert ndr.lower_bound_fraction is not None and pdr.lower_bound_fraction is not None
    assert pdr.lower_bound_fraction > ndr.upper_bound_fraction
    implied = 1.0 / (1.0 - ratio)
    found = pdr.lower_bound_fraction / ndr.lower_bound_fraction
    # Each lower bound is within its width below its limit.
    assert implied * (1 - pdr_goal.relative_width) <= found <= implied / (1 - NDR.relative_width)


def test_each_goal_is_its_own_search() -> None:
    ndr, pdr = binary_search(CleanDut(0.6), [NDR, PDR])
    assert ndr.trials[0].offered_fraction == pdr.trials[0].offered_fraction == 1.0
    assert {t.trial_index for t in ndr.trials}.isdisjoint(t.trial_index for t in pdr.trials)
    assert ndr.trial_seconds + pdr.trial_seconds == 60.0 * (len(ndr.trials) + len(pdr.trials))


def test_line_rate_passing_ends_after_one_trial() -> None:
    (result,) = binary_search(CleanDut(1.0), [NDR])
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (1.0, None)
    assert len(result.trials) == 1
    assert result.within_goal_width


def test_a_search_capped_at_the_testers_capacity_starts_there_and_goes_no_higher() -> None:
    """The tester carries 0.8 of line rate here: a DUT that passes it is reported at
    the tester's capacity, never as passing line rate; one that fails below it is
    measured as before, its trials never above the cap."""
    (capped,) = binary_search(CleanDut(1.0), [NDR], max_fraction=0.8)
    assert (capped.lower_bound_fraction, capped.upper_bound_fraction) == (0.8, None)
    assert [t.offered_fraction for t in capped.trials] == [0.8]
    assert capped.lower_bound_is_tester_capacity and not capped.upper_bound_is_tester_limit
    (measured,) = binary_search(CleanDut(0.6), [NDR], max_fraction=0.8)
    assert [t.offered_fraction for t in measured.trials][:4] == [0.8, 0.4, 0.6000000000000001,
                                                                 0.5]
    assert max(t.offered_fraction for t in measured.trials) == 0.8
    assert measured.brackets(0.6) and not measured.lower_bound_is_tester_capacity
    (uncapped,) = binary_search(CleanDut(1.0), [NDR])
    assert not uncapped.lower_bound_is_tester_capacity  # line rate itself passed


def test_nothing_passing_stops_at_the_minimum_load() -> None:
    (result,) = binary_search(CleanDut(0.0001), [NDR], min_fraction=0.001)
    assert result.lower_bound_fraction is None
    assert result.upper_bound_fraction == 0.001
    # 1, 1/2, ..., 1/512 then the clamp to the minimum: 11 trials.
    assert len(result.trials) == 11


def test_an_invalid_trial_is_repeated_once() -> None:
    flaky = FlakyMeasurer(CleanDut(0.6), frozenset({2}))
    (result,) = binary_search(flaky, [NDR])
    (clean,) = binary_search(CleanDut(0.6), [NDR])
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (
        clean.lower_bound_fraction,
        clean.upper_bound_fraction,
    )
    invalid = [t for t in result.trials if not t.valid]
    assert len(invalid) == 1
    assert result.trials[3].offered_fraction == invalid[0].offered_fraction == 0.75
    # The repeat costs time: it is counted.
    assert result.trial_seconds == clean.trial_seconds + 60.0


def test_a_trial_invalid_twice_raises() -> None:
    flaky = FlakyMeasurer(CleanDut(0.6), frozenset({1, 2}), error="read timed out")
    with pytest.raises(InvalidTrialError, match=r"0\.5 of line rate for 60 s was invalid twice"):
        binary_search(flaky, [NDR])
    with pytest.raises(InvalidTrialError, match="read timed out"):
        binary_search(
            FlakyMeasurer(CleanDut(0.6), frozenset({0, 1}), error="read timed out"), [NDR]
        )


def test_the_trial_count_is_bounded() -> None:
    with pytest.raises(TrialBudgetError, match="more than max_trials=5"):
        binary_search(CleanDut(0.6), [NDR], max_trials=5)


def test_argument_errors() -> None:
    with pytest.raises(ValueError, match="no goals given"):
        binary_search(CleanDut(0.6), [])
    with pytest.raises(ValueError, match=re.escape(
            "need 0 < min_fraction < max_fraction <= 1 of line rate, got 0.0 and 1.0")):
        binary_search(CleanDut(0.6), [NDR], min_fraction=0.0)
    with pytest.raises(ValueError, match=re.escape("got 0.001 and 1.5")):
        binary_search(CleanDut(0.6), [NDR], max_fraction=1.5)


# --- noise -------------------------------------------------------------------------

NOISE = 0.001  # below PDR's 0.5 %, so only NDR notices it
SEEDS = range(8)


def test_noisy_dut_pdr_is_unaffected_ndr_can_only_land_low() -> None:
    """Documented behaviour: noise only adds loss, so it never makes a load pass that
    should fail. PDR tolerates the noise and brackets its limit for every seed; NDR's
    lower bound never exceeds the true limit, but a noisy failure below capacity
    becomes a false upper bound and the search settles too low (one trial per load,
    no second chance: that is RFC 2544)."""
    missed = []
    for seed in SEEDS:
        dut = NoisyDut(0.6, NOISE, 0.2, seed=seed)
        ndr, pdr = binary_search(dut, [NDR, PDR])
        assert pdr.brackets(dut.limit_fraction(PDR.loss_ratio))
        assert ndr.lower_bound_fraction is not None
        assert ndr.lower_bound_fraction <= 0.6
        assert ndr.within_goal_width  # narrow, just not around the truth
        if not ndr.brackets(0.6):
            missed.append(seed)
            # Every failing trial below capacity was a noisy one.
            for trial in ndr.trials:
                if trial.offered_fraction <= 0.6 and trial.loss_ratio > 0:
                    assert ("noise", "yes") in trial.labels
    assert missed == [1, 3, 4, 6, 7]


def test_noisy_dut_example_seed_4_halves_the_ndr() -> None:
    (ndr,) = binary_search(NoisyDut(0.6, NOISE, 0.2, seed=4), [NDR])
    assert ndr.lower_bound_fraction == pytest.approx(0.3115, abs=1e-4)


def test_noise_free_noisy_dut_is_a_clean_dut() -> None:
    quiet = binary_search(NoisyDut(0.6, NOISE, 0.0), [NDR, PDR])
    clean = binary_search(CleanDut(0.6), [NDR, PDR])
    for a, b in zip(quiet, clean, strict=True):
        assert replace(a, trials=()) == replace(b, trials=())


# --- a tester that cannot keep up (issue 10) ----------------------------------------


def test_a_tester_limited_trial_is_repeated_and_never_counted_as_loss() -> None:
    """Calls 1 and 2 (load 0.5, where the DUT loses nothing) lose a frame inside the
    tester: the load is tried a third time, and the search goes on exactly as on a
    clean tester."""
    limited = LimitedTester(CleanDut(0.6), limited_calls=frozenset({1, 2}))
    (result,) = binary_search(limited, [NDR])
    (clean,) = binary_search(CleanDut(0.6), [NDR])
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (0.599609375, 0.6015625)
    assert [(t.offered_fraction, t.invalid_reason, t.lost, t.dut_loss_floor)
            for t in result.trials[:4]] == [
        (1.0, None, 357142858, 357142858),
        (0.5, "tester-limited", 1, 0), (0.5, "tester-limited", 1, 0), (0.5, None, 0, 0)]
    assert result.tester_ceiling_fraction is None
    assert not result.upper_bound_is_tester_limit
    assert result.trial_seconds == clean.trial_seconds + 120.0


def test_a_tester_limited_trial_the_dut_failed_anyway_is_asked_again() -> None:
    """At line rate the DUT (limit 0.6) loses 357142858 frames itself, the tester one
    more: the floor is not believed from one trial (the host that starved the tester
    may have starved a lab DUT too), the load is tried again, and the vouched repeat
    fails NDR on the DUT's own loss."""
    limited = LimitedTester(CleanDut(0.6), limited_calls=frozenset({0}))
    (result,) = binary_search(limited, [NDR])
    first, second = result.trials[:2]
    assert (first.invalid_reason, first.lost, first.dut_loss_floor) == (
        "tester-limited", 357142859, 357142858)
    assert (second.offered_fraction, second.valid, second.lost) == (1.0, True, 357142858)
    assert result.trials[2].offered_fraction == 0.5
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (0.599609375, 0.6015625)


def test_a_tester_limited_load_whose_every_repeat_the_dut_failed_is_a_failure() -> None:
    """Every line-rate trial is tester-limited, and each one's floor is the DUT's loss:
    after three, the load fails NDR (the smallest floor), it is no ceiling."""
    limited = LimitedTester(CleanDut(0.6), limited_calls=frozenset({0, 1, 2}))
    (result,) = binary_search(limited, [NDR])
    assert [(t.offered_fraction, t.invalid_reason) for t in result.trials[:4]] == [
        (1.0, "tester-limited"), (1.0, "tester-limited"), (1.0, "tester-limited"),
        (0.5, None)]
    assert result.tester_ceiling_fraction is None
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (0.599609375, 0.6015625)


def test_a_load_the_tester_cannot_carry_lowers_the_ceiling() -> None:
    """DUT limit 0.6, tester limit 0.4: line rate fails on the DUT's own loss in each of
    its three tester-limited tries; every load in (0.4, 0.6] is tester-limited three
    times and becomes the ceiling; the search ends under it and says that its upper
    bound is the tester's, not the DUT's."""
    (result,) = binary_search(LimitedTester(CleanDut(0.6), capacity_fraction=0.4), [NDR])
    assert [(t.offered_fraction, t.valid) for t in result.trials] == [
        *[(1.0, False)] * 3, *[(0.5, False)] * 3, (0.25, True), (0.375, True),
        *[(0.4375, False)] * 3, *[(0.40625, False)] * 3, (0.390625, True), (0.3984375, True),
        *[(0.40234375, False)] * 3, *[(0.400390625, False)] * 3,
    ]
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (0.3984375,
                                                                           0.400390625)
    assert result.tester_ceiling_fraction == 0.400390625
    assert result.upper_bound_is_tester_limit
    # No trial the search used lost a frame: the DUT was never blamed.
    assert all(t.lost == 0 for t in result.trials if t.valid)


def test_dut_limited_trials_also_lower_the_ceiling() -> None:
    """A lab DUT that lost frames to the host (dut-limited) measures nothing either."""

    class DutStarvedAbove:
        def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
            trial = CleanDut(0.6).measure(duration_s, offered_fraction)
            if offered_fraction <= 0.3:
                return trial
            check = SelfCheck((PortCheck(1, "p4ld1", 10, 0, 0, 0, 9, 0),))
            return replace(trial, valid=False, error="dut-limited", dut_check=check)

    (result,) = binary_search(DutStarvedAbove(), [NDR], max_trials=200)
    assert result.upper_bound_is_tester_limit
    assert result.lower_bound_fraction is not None and result.lower_bound_fraction <= 0.3
    assert result.tester_ceiling_fraction == result.upper_bound_fraction
    assert {t.invalid_reason for t in result.trials if not t.valid} == {"dut-limited"}


def test_a_starved_lab_duts_loss_is_believed_only_when_every_repeat_shows_it() -> None:
    """A lab DUT (limit 0.6) starved by the host in the first trial at 0.5 lost a frame
    at its interface and 29 more in its queue: the floor of 29 is the host's stall too,
    so the load is asked again, and the vouched repeat passes. At line rate every repeat
    is starved and every floor is far above the goal: a failure, with the smallest."""
    starved_at = {0, 1, 2, 3}  # calls: line rate three times, then the first 0.5

    class StarvedDut:
        calls = 0

        def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
            trial = CleanDut(0.6).measure(duration_s, offered_fraction)
            call, StarvedDut.calls = StarvedDut.calls, StarvedDut.calls + 1
            if call not in starved_at:
                return trial
            (stream,) = trial.streams
            lost = 1 + 29 if offered_fraction < 1.0 else 1 + call  # 1: at the interface
            starved = replace(stream, rx_frames=stream.rx_frames - lost)
            check = SelfCheck((PortCheck(1, "p4ld1", 10, 0, 0, 0, 9, 0),))
            return replace(trial, streams=(starved,), valid=False, error="dut-limited",
                           dut_check=check)

    (result,) = binary_search(StarvedDut(), [NDR])
    assert [(t.offered_fraction, t.invalid_reason) for t in result.trials[:5]] == [
        (1.0, "dut-limited"), (1.0, "dut-limited"), (1.0, "dut-limited"),
        (0.5, "dut-limited"), (0.5, None)]
    assert [t.dut_loss_floor for t in result.trials[:4]] == [
        357142858, 357142859, 357142860, 29]
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (0.599609375, 0.6015625)
    assert result.tester_ceiling_fraction is None


# --- a DUT still draining earlier trials (issue 42) ---------------------------------


@dataclass
class UndrainedDut:
    """At the 0-based calls in `busy`, frames of an earlier trial arrive in the trial
    (results.settle): it is not the DUT's result at that load."""

    inner: CleanDut
    busy: frozenset[int]
    calls: int = 0

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        trial = replace(self.inner.measure(duration_s, offered_fraction),
                        settle=SettleRecord(0.5, 0, 0.5))
        call, self.calls = self.calls, self.calls + 1
        if call in self.busy:
            # The stale frames would have looked like the DUT losing at this load.
            streams = tuple(replace(s, rx_frames=0) for s in trial.streams)
            return replace(trial, streams=streams, rx_stale=7, valid=False,
                           error="dut-not-drained: 7 frames of earlier trials arrived")
        return trial


def test_a_trial_the_dut_had_not_drained_for_is_repeated_never_counted_as_loss() -> None:
    (result,) = binary_search(UndrainedDut(CleanDut(0.6), frozenset({1, 2})), [NDR])
    (clean,) = binary_search(CleanDut(0.6), [NDR])
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (
        clean.lower_bound_fraction, clean.upper_bound_fraction)
    assert [(t.offered_fraction, t.invalid_reason) for t in result.trials[:4]] == [
        (1.0, None), (0.5, "dut-not-drained"), (0.5, "dut-not-drained"), (0.5, None)]


def test_a_dut_that_never_drains_stops_the_search_saying_so() -> None:
    with pytest.raises(InvalidTrialError, match=r"^3 trial\(s\) at 0\.5 of line rate, 64 B, "
                                                 r"each after a longer wait, still received "
                                                 r"frames of earlier trials"):
        binary_search(UndrainedDut(CleanDut(0.6), frozenset({1, 2, 3})), [NDR])
