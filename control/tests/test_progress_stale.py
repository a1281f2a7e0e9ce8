"""The trial line says when a trial saw stale frames, and whose, how many frames
arrived after its end, in the drain, and the tester's own latency (issue 21)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from p4tester.cli.progress import ProgressRunner
from p4tester.experiments.latency import LatencySummary
from p4tester.experiments.runner import TrialSpec
from p4tester.results.model import StreamStats, TrialResult
from p4tester.results.reference import ReferenceLatency
from p4tester.results.tables import trials_table
from p4tester.runs.report_lines import own_latency_line

BASE = TrialResult("latency", 0, 0.5, 150.0, 2.0, 64,
                   (StreamStats(0, 64, 300, 300, 19200, 0, 0, 0, 0),))


class Replay:
    def __init__(self, results: list[TrialResult]) -> None:
        self.results = results

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        return self.results.pop(0)


def test_stale_frames_are_said_in_the_trial_line(capsys: pytest.CaptureFixture[str]) -> None:
    runner = ProgressRunner(Replay([replace(BASE, rx_stale=906),
                                    replace(BASE, trial_index=1, late_frames=0),
                                    replace(BASE, trial_index=2, rx_stale=3,
                                            late_frames=100)]))
    for index in range(3):
        runner.run_trial(TrialSpec("latency", index, 64, 0.5, 2.0))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith("TX 300 RX 300 loss 0.0000% stale 906 (of the run before, "
                             "in no stream)")
    assert lines[1].endswith("TX 300 RX 300 loss 0.0000%")
    assert lines[2].endswith("TX 300 RX 300 loss 0.0000% stale 3 (of earlier trials or runs, "
                             "in no stream) (100 late)")


def test_the_testers_own_latency_is_said_in_the_trial_line_and_table(
        capsys: pytest.CaptureFixture[str]) -> None:
    calm = ReferenceLatency(63, 200, 200, 15.0, 40.5, 268.0, spiked=False)
    spiked = ReferenceLatency(63, 200, 200, 16.0, 105.9, 4334.0, spiked=True)
    trials = [replace(BASE, reference=calm), replace(BASE, trial_index=1, reference=spiked)]
    runner = ProgressRunner(Replay(list(trials)))
    for index in range(2):
        runner.run_trial(TrialSpec("latency", index, 64, 0.5, 2.0, reference_loop=True))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith("loss 0.0000% [tester's own latency 15..268 us (avg 40.5)]")
    assert lines[1].endswith("loss 0.0000% [tester's own latency 16..4334 us (avg 105.9), "
                             "tester spiked]")
    table = trials_table(trials).splitlines()
    assert table[2].endswith("  ok") and table[3].endswith("  ok (tester spiked)")


def test_the_latency_summary_says_what_the_tester_added() -> None:
    summary = LatencySummary(trials=5, typical_latency_us=99.7, worst_case_latency_us=1774.8,
                             typical_p1_us=None, typical_p99_us=None, worst_case_p1_us=None,
                             worst_case_p99_us=None, median_p99_us=None, min_us=52.0,
                             avg_us=115.5, max_us=5723.0, tester_floor_us=14.0,
                             tester_max_us=3634.0, tester_spiked_trials=2)
    assert own_latency_line(summary) == (
        "\ntester's own latency (reference stream looped inside the tester switch): "
        "14..3634 us; it spiked in 2 of 5 trials, enough to account for their max and high "
        "percentiles: the host delayed frames, not only the DUT (trials marked "
        "'tester spiked')")
    assert own_latency_line(replace(summary, tester_spiked_trials=0)) == (
        "\ntester's own latency (reference stream looped inside the tester switch): "
        "14..3634 us")
    assert own_latency_line(replace(summary, tester_floor_us=None,
                                       tester_max_us=None)) == ""
