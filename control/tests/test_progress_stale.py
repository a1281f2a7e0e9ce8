"""The trial line says when a trial saw stale frames, and whose, and how many frames
arrived after its end, in the drain (issue 21)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from p4tester.cli.experiment_cmds import ProgressRunner
from p4tester.experiments.runner import TrialSpec
from p4tester.results.model import StreamStats, TrialResult

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
