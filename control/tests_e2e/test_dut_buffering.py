"""Issue 21, point 5: a trial through which the DUT's buffer fills is marked. A DUT
queue of 3000 frames drained at 100 frames/s takes 150 frames/s for 2 s: it loses
nothing (the drain waits for the 100 frames it still holds at the end) but every
frame waits longer than the one before: the last tenth about a second longer than
the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.results.jsonl import ResultLog

from conftest import p4tester

PROFILE = Path("topologies/profiles/one-stream.yaml")
SENT = 300  # 150 frames/s for 2 s
# The queue holds 100 frames at the end: 1 s; the first tenth waited ~0.1 s on
# average, the last tenth ~0.9 s.
MIN_RISE_US = 500_000


@pytest.mark.topology("bmv2-deep-queue.yaml")
def test_a_filling_buffer_marks_the_trial(lab: Path, tmp_path: Path) -> None:
    patient = tmp_path / "patient.yaml"
    patient.write_text(PROFILE.read_text().replace("drain_s: 0.5", "drain_s: 3"))
    out = tmp_path / "latency"
    done = p4tester("latency", "-t", str(lab), "-p", str(patient), "-o", str(out),
                    "--frame-size", "64", "--load", "150pps", "--trials", "1",
                    "--duration", "2")
    assert done.returncode == 0, done.stderr + done.stdout
    (trial,) = ResultLog(out / "trials.jsonl").load()
    assert trial.valid, trial.error
    (stream,) = trial.streams
    assert (stream.tx_frames, stream.rx_frames) == (SENT, SENT)
    assert trial.dut_buffering_us is not None and trial.dut_buffering_us > MIN_RISE_US, trial
    # The queue held 100 frames when the last one was sent: they arrived in the drain,
    # late (the read that saw the budget sent lags by up to a 0.1-s interval: 10 frames
    # at the queue's rate, more on a busy host).
    assert trial.late_frames is not None and 75 <= trial.late_frames <= 100, trial
    assert trial.offered_pps_measured is not None
    assert abs(trial.offered_pps_measured - 150) <= 150 * 0.02
