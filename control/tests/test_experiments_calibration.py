"""Tester capacity calibration: bisection to the loss-free, self-check-clean rate,
median of repetitions, stored and read back, warnings above it."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from p4tester.experiments.calibration import (
    Calibration,
    CalibrationConfig,
    SizeCapacity,
    calibration_from_dict,
    calibration_to_dict,
    load_calibration,
    load_warning,
    run_calibration,
    save_calibration,
)
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialSpec
from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.results.model import StreamStats, TrialResult
from p4tester.streams.rates import line_rate_pps

LINE_RATE = 5e6  # the loopback lab's ports: 7440.48 frames/s at 64 B


class SlowTester:
    """Carries `capacity_pps` frames/s (the k-th repetition `step` less); above, it loses
    frames itself: tester-limited trials. Counts every trial it ran."""

    def __init__(self, capacity_pps: float, step: float = 0.0) -> None:
        self.capacity_pps = capacity_pps
        self.step = step
        self.calls = 0

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        self.calls += 1
        repetition = int(dict(spec.labels)["repetition"])
        pps = spec.offered_fraction * line_rate_pps(LINE_RATE, spec.frame_size)
        frames = round(pps * spec.duration_s)
        seen = min(frames, round((self.capacity_pps - repetition * self.step) * spec.duration_s))
        check = SelfCheck((PortCheck(2, "p4lt2", frames, 0, 0, 0, seen, 0),))
        return TrialResult(spec.experiment, spec.trial_index, spec.offered_fraction, pps,
                           spec.duration_s, spec.frame_size,
                           (StreamStats(0, spec.frame_size, frames, seen, seen * 60, 0, 0, 0, 0),),
                           valid=check.ok, error=None if check.ok else "tester-limited",
                           self_check=check)


def test_bisects_to_the_capacity_per_size_with_the_median_of_repetitions() -> None:
    tester = SlowTester(capacity_pps=5000.0, step=500.0)  # 5000, 4500, 4000 frames/s
    config = CalibrationConfig(LINE_RATE, frame_sizes=(64, 1518), repetitions=3)
    calibration = run_calibration(config, Recorder(tester), "loopback")
    small, large = calibration.sizes
    full = line_rate_pps(LINE_RATE, 64)
    # Each repetition ends within 2 % below its own capacity.
    for fraction, capacity in zip(small.fractions, (5000.0, 4500.0, 4000.0), strict=True):
        assert capacity * 0.98 <= fraction * full <= capacity
    assert small.fraction == sorted(small.fractions)[1]
    assert 4500 * 0.98 <= small.pps <= 4500
    assert not small.at_line_rate
    # 1518 B: 406 frames/s at line rate, far below the tester's capacity: one trial each.
    assert large.fractions == (1.0, 1.0, 1.0) and large.at_line_rate
    assert calibration.capacity_pps(128).frame_size == 64
    assert calibration.capacity_pps(1000).frame_size == 1518


def test_a_tester_that_carries_nothing_calibrates_to_zero() -> None:
    calibration = run_calibration(CalibrationConfig(LINE_RATE, frame_sizes=(64,),
                                                    repetitions=1), Recorder(SlowTester(0.0)),
                                  "loopback")
    assert calibration.sizes[0].fractions == (0.0,)


class HiccupTester(SlowTester):
    """A SlowTester whose trials numbered in `hiccups` (counting from 1) lose 3 frames
    inside the tester whatever the load: a host's stall, not its limit."""

    def __init__(self, capacity_pps: float, hiccups: set[int]) -> None:
        super().__init__(capacity_pps)
        self.hiccups = hiccups

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        result = super().run_trial(spec)
        if self.calls not in self.hiccups:
            return result
        frames = result.streams[0].tx_frames
        check = SelfCheck((PortCheck(2, "p4lt2", frames, 0, 0, 0, frames - 3, 0),))
        return replace(result, valid=False, error="tester-limited", self_check=check)


def test_a_lone_hiccup_below_the_capacity_is_tried_again() -> None:
    # Trials: 1.0 fails (the limit), 0.5 hiccups then passes, 0.75 fails...
    tester = HiccupTester(capacity_pps=5000.0, hiccups={4})
    config = CalibrationConfig(LINE_RATE, frame_sizes=(64,), repetitions=1)
    calibration = run_calibration(config, Recorder(tester), "loopback")
    assert 5000 * 0.98 <= calibration.sizes[0].pps <= 5000
    # With one try per load the hiccup at 0.5 caps it below 0.5 (3720 frames/s).
    one_try = run_calibration(replace(config, attempts=1),
                              Recorder(HiccupTester(5000.0, hiccups={2})), "loopback")
    assert 0.49 <= one_try.sizes[0].fractions[0] < 0.5


def test_a_load_above_the_capacity_gets_three_trials_one_the_tester_halves_gets_one() -> None:
    recorder = Recorder(SlowTester(capacity_pps=1000.0))  # 7440 frames/s at line rate
    calibration = run_calibration(CalibrationConfig(LINE_RATE, frame_sizes=(64,),
                                                    repetitions=1), recorder, "loopback")
    tried = [round(t.offered_fraction, 6) for t in recorder.trials]
    # 1.0 and 0.5 carried 13 % and 27 %; 0.25 (1860 frames/s) 54 %: a hiccup could
    # have been all that failed it; 0.125 (930) passes.
    assert tried[:6] == [1.0, 0.5, 0.25, 0.25, 0.25, 0.125]
    assert 1000 * 0.98 <= calibration.sizes[0].pps <= 1000


def test_stored_and_read_back_exactly(tmp_path: Path) -> None:
    calibration = Calibration("host", "loopback", 1.7e9,
                              (SizeCapacity(64, LINE_RATE, (0.5, 0.75, 0.625)),))
    path = save_calibration(calibration, tmp_path / "c" / "calibration.json")
    assert load_calibration(path) == calibration
    assert load_calibration(tmp_path / "none.json") is None
    data = calibration_to_dict(calibration)
    assert data["sizes"] == [{"frame_size": 64, "line_rate_bps": LINE_RATE,
                              "fractions": [0.5, 0.75, 0.625],
                              "capacity_pps": 0.625 * line_rate_pps(LINE_RATE, 64)}]
    with pytest.raises(ValueError, match="calibration version 9"):
        calibration_from_dict({**data, "version": 9}, "c.json")
    with pytest.raises(ValueError, match=r"c\.json: not a p4tester calibration"):
        calibration_from_dict({"version": 1}, "c.json")


def test_warning_above_the_calibrated_capacity() -> None:
    calibration = Calibration("host", "loopback", 0.0,
                              (SizeCapacity(64, LINE_RATE, (0.5,)),
                               SizeCapacity(1518, LINE_RATE, (1.0,))))
    capacity = 0.5 * line_rate_pps(LINE_RATE, 64)
    assert load_warning(calibration, 64, capacity) is None
    warning = load_warning(calibration, 64, math.floor(capacity) + 1)
    assert warning is not None
    assert warning.startswith("3721 frames/s at 64 B is above the tester's own loss-free "
                              "rate on this host (3720 frames/s at 64 B, calibrated")
    assert load_warning(calibration, 1518, 1e9) is None  # line rate passed: no limit known
    assert load_warning(replace(calibration, sizes=calibration.sizes[:1]), 1518, 3721) is not None
