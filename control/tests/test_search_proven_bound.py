"""A bound says what was proven (issue 41): a search's lower bound is reported at the
rate the trial at it proved it offered (TrialResult.offered_pps_measured) where that is
below the rate it was set to, never above; the search itself steers by the intended
loads. The numbers are those of the eBPF tester that reported 'NDR >= 105 773 frames/s'
while it had offered 104 184."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from p4tester.experiments.throughput import _bounds
from p4tester.results.checks import SelfCheck
from p4tester.results.model import StreamStats, TrialResult
from p4tester.results.serialize import trial_from_dict, trial_to_dict
from p4tester.runs.outputs import to_jsonable
from p4tester.runs.rfc2889_body import _proven_line
from p4tester.search import NDR, PDR, SearchResult, binary_search
from p4tester.search.goals import proven_offered_fraction
from p4tester.streams.rates import line_rate_pps

FRAME = 64
# A port of 1 057 730 frames/s at 64 B: 10 % of it is the 105 773 frames/s asked.
LINE_PPS = 1_057_730.0
LINE_BPS = LINE_PPS * (FRAME + 20) * 8
INTENDED = 0.1
INTENDED_PPS = 105_773.0
PROVEN_PPS = 104_184.0  # what the generator sent, measured on the switch's clock
TRIAL_S = 60.0


def trial(fraction: float, measured: float | None, *, lost: int = 0,
          index: int = 0) -> TrialResult:
    """A clean 60-s trial at `fraction` of line rate whose generator was measured to
    send `measured` frames/s (None: not measured)."""
    sent = round((measured or fraction * LINE_PPS) * TRIAL_S)
    stream = StreamStats(0, FRAME, sent, sent - lost, (sent - lost) * FRAME, 0, 0, 0, 0)
    return TrialResult("rfc2544-throughput", index, fraction, fraction * LINE_PPS, TRIAL_S,
                       FRAME, (stream,), offered_pps_measured=measured)


def ndr_result(passing: TrialResult, *others: TrialResult,
               upper: float = 0.101, ceiling: float | None = None) -> SearchResult:
    return SearchResult(NDR, passing.offered_fraction, upper, (*others, passing),
                        TRIAL_S * (len(others) + 1), tester_ceiling_fraction=ceiling)


def reported_pps(result: SearchResult) -> float | None:
    fraction = result.proven_lower_bound_fraction
    return None if fraction is None else fraction * LINE_PPS


def test_line_rate_of_the_example() -> None:
    assert line_rate_pps(LINE_BPS, FRAME) == pytest.approx(LINE_PPS, rel=1e-12)
    asked = INTENDED * LINE_PPS
    assert asked == pytest.approx(INTENDED_PPS, rel=1e-12)


def test_proven_offered_fraction_scales_the_intended_load_by_the_measured_rate() -> None:
    assert proven_offered_fraction(trial(INTENDED, PROVEN_PPS)) == pytest.approx(
        INTENDED * PROVEN_PPS / INTENDED_PPS, rel=1e-12)
    assert proven_offered_fraction(trial(INTENDED, None)) is None


def test_a_bound_whose_trial_offered_less_is_reported_at_what_it_offered() -> None:
    result = ndr_result(trial(INTENDED, PROVEN_PPS))
    assert result.lower_bound_fraction == INTENDED  # the search's own bound: unchanged
    assert reported_pps(result) == pytest.approx(104_184.0, rel=1e-12)
    assert result.lower_bound_below_intended


def test_a_bound_whose_trial_was_not_measured_is_reported_as_intended() -> None:
    result = ndr_result(trial(INTENDED, None))
    assert result.proven_lower_bound_fraction == INTENDED
    assert not result.lower_bound_below_intended


def test_a_bound_whose_trial_offered_more_is_reported_as_intended() -> None:
    """Within the rate tolerance a generator may also send a little more: the bound is
    still the load asked (the search never tried the load measured)."""
    result = ndr_result(trial(INTENDED, 106_500.0))
    assert result.proven_lower_bound_fraction == INTENDED
    assert reported_pps(result) == pytest.approx(105_773.0, rel=1e-12)
    assert not result.lower_bound_below_intended


def test_no_lower_bound_stays_none_and_zero_measured_proves_nothing() -> None:
    assert SearchResult(NDR, None, 0.001, (), 0.0).proven_lower_bound_fraction is None
    nothing = ndr_result(trial(INTENDED, 0.0))
    assert nothing.proven_lower_bound_fraction is None
    assert nothing.lower_bound_below_intended


def test_the_bound_is_the_passing_trials_never_a_tester_limited_one_above_it() -> None:
    """The issue's run: 106 840 and 107 918 frames/s asked, the tester offered 104 184
    and 104 300 (tester-limited, the DUT lost nothing there), 105 773 asked passed at
    104 184 offered. Reported: 104 184, at most what a trial proved it offered within
    the goal, and not 104 300: that trial's zero loss is not vouched for."""
    limited = [replace(trial(pps / LINE_PPS, measured, index=i), valid=False,
                       error="tester-limited: behind",
                       self_check=SelfCheck((), unvouched=f"stream 0 offered {measured:.0f} "
                                            f"frames/s, not its {pps:.0f}"))
               for i, (pps, measured) in enumerate(((107_918.0, 104_300.0),
                                                    (106_840.0, 104_184.0)))]
    result = ndr_result(trial(INTENDED, PROVEN_PPS, index=2), *limited,
                        upper=106_840.0 / LINE_PPS, ceiling=106_840.0 / LINE_PPS)
    assert result.upper_bound_is_tester_limit
    assert reported_pps(result) == pytest.approx(104_184.0, rel=1e-12)


def test_each_goal_reports_its_own_passing_trial() -> None:
    """PDR passed at a higher load than NDR: each bound is its own trial's."""
    ndr_trial = trial(INTENDED, PROVEN_PPS, index=0)
    pdr_trial = trial(0.11, 115_000.0, lost=10, index=1)
    trials = (ndr_trial, pdr_trial)
    ndr = SearchResult(NDR, 0.1, 0.11, trials, 120.0)
    pdr = SearchResult(PDR, 0.11, 0.12, trials, 120.0)
    assert reported_pps(ndr) == pytest.approx(104_184.0, rel=1e-12)
    assert reported_pps(pdr) == pytest.approx(115_000.0, rel=1e-12)


# --- the throughput experiment's figures, and its JSON ------------------------------


def test_rate_bounds_report_the_proven_rate_and_keep_the_intended_one() -> None:
    bounds = _bounds(ndr_result(trial(INTENDED, PROVEN_PPS)), FRAME, LINE_BPS)
    assert bounds.lower is not None and bounds.lower_intended is not None
    assert bounds.lower.pps == pytest.approx(104_184.0, rel=1e-9)
    assert bounds.lower_intended.pps == pytest.approx(105_773.0, rel=1e-9)
    assert bounds.lower_below_intended
    unmeasured = _bounds(ndr_result(trial(INTENDED, None)), FRAME, LINE_BPS)
    assert unmeasured.lower == unmeasured.lower_intended
    assert not unmeasured.lower_below_intended


def test_the_rfc2889_report_says_a_share_is_below_the_load_asked() -> None:
    bounds = _bounds(ndr_result(trial(INTENDED, PROVEN_PPS)), FRAME, LINE_BPS)
    assert _proven_line(FRAME, bounds) == (
        "64 B: NDR ≥ 9.85% (proven offered; 10.00% intended): the trial at the bound "
        "offered less than it was set to")


def test_summary_json_carries_both_bounds() -> None:
    """summary.json (runs.outputs.to_jsonable): `lower` is the reported bound,
    `lower_intended` the search's own."""
    bounds = _bounds(ndr_result(trial(INTENDED, PROVEN_PPS)), FRAME, LINE_BPS)
    document = json.loads(json.dumps(to_jsonable(bounds)))
    assert document["lower"]["pps"] == pytest.approx(104_184.0, rel=1e-9)
    assert document["lower_intended"]["pps"] == pytest.approx(105_773.0, rel=1e-9)
    assert document["lower"]["percent"] < document["lower_intended"]["percent"]


def test_trials_round_trip_through_json_with_their_proof() -> None:
    """The measured rate the bound rests on survives the trial's JSON; a record from
    before version 5 (no measurement) loads and reports the intended load."""
    passing = trial(INTENDED, PROVEN_PPS)
    loaded = trial_from_dict(json.loads(json.dumps(trial_to_dict(passing))))
    assert loaded.offered_pps_measured == 104_184.0
    assert reported_pps(ndr_result(loaded)) == pytest.approx(104_184.0, rel=1e-12)
    old: dict[str, Any] = json.loads(json.dumps(trial_to_dict(passing)))
    old["schema_version"] = 4
    for key in ("offered_pps_measured", "max_burst_frames", "dut_buffering_us",
                "late_frames", "reference", "settle", "clocks"):
        del old[key]
    for stream in old["streams"]:
        for key in ("intervals", "rate_course", "receivers", "replicated"):
            stream.pop(key, None)
    before_v5 = trial_from_dict(old)
    assert before_v5.offered_pps_measured is None
    assert ndr_result(before_v5).proven_lower_bound_fraction == INTENDED


# --- a whole search against a generator that cannot send more ------------------------


class CappedGenerator:
    """A DUT that forwards everything behind a generator that sends at most
    PROVEN_PPS frames/s: a trial more than 2 % short of its rate (tester.trial_course's
    tolerance) is tester-limited, one within it valid at the rate it reached."""

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        asked = offered_fraction * LINE_PPS
        sent = min(asked, PROVEN_PPS)
        found = trial(offered_fraction, sent)
        if sent >= 0.98 * asked:
            return replace(found, duration_s=duration_s)
        return replace(found, duration_s=duration_s, valid=False, error="tester-limited",
                       self_check=SelfCheck((), unvouched=f"stream 0 offered {sent:.0f} "
                                            f"frames/s, not its {asked:g}"))


def test_a_search_at_the_testers_ceiling_reports_what_the_tester_offered() -> None:
    (result,) = binary_search(CappedGenerator(), [NDR])
    assert result.upper_bound_is_tester_limit
    # The search ran on intended loads, as before: 105 876 frames/s asked passed (the
    # tester sent 104 184, within 2 %), 106 393 was the tester's ceiling.
    assert (result.lower_bound_fraction, result.upper_bound_fraction) == (0.10009765625,
                                                                           0.1005859375)
    assert result.tester_ceiling_fraction == 0.1005859375
    assert reported_pps(result) == pytest.approx(104_184.0, rel=1e-12)
