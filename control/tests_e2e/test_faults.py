"""A switch that dies mid-experiment: the controller says so, the trial it was
running is marked invalid, every finished trial is kept, and the lab still
comes down clean."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p4tester.lab import netdev
from p4tester.results.jsonl import ResultLog

from conftest import REPO

WAIT_S = 60.0


def wait_for_valid_trials(log: Path, count: int) -> None:
    """Until the run has finished `count` trials the tester vouched for: on a busy host
    a soak's interval can be left out (unvouched), and the kill must come after the
    trials the test then checks."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if log.exists() and sum(1 for t in ResultLog(log).load() if t.valid) >= count:
            return
        time.sleep(0.1)
    raise AssertionError(f"{log}: fewer than {count} vouched trials within {WAIT_S} s: "
                         f"{[t.error for t in ResultLog(log).load()] if log.exists() else []}")


@pytest.mark.topology("bmv2-dut.yaml")
@pytest.mark.parametrize("victim", ["tester", "dut"])
def test_switch_dies_mid_soak(lab: Path, tmp_path: Path, victim: str) -> None:
    out = tmp_path / "soak"
    soak = subprocess.Popen(
        [sys.executable, "-m", "p4tester", "soak", "-t", str(lab), "-p",
         "topologies/profiles/one-stream.yaml", "-o", str(out), "--load", "20%",
         "--total", "30", "--interval", "1"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        wait_for_valid_trials(out / "trials.jsonl", 2)
        pids = json.loads((tmp_path / "lab" / "state.json").read_text())["pids"]
        dut_pid, tester_pid = pids
        os.kill(tester_pid if victim == "tester" else dut_pid, signal.SIGKILL)
        _stdout, stderr = soak.communicate(timeout=WAIT_S * 3)
    finally:
        if soak.poll() is None:
            soak.kill()
    trials = ResultLog(out / "trials.jsonl").load()
    valid = [t for t in trials if t.valid]
    invalid = [t for t in trials if not t.valid]
    assert len(valid) >= 2
    assert [t.trial_index for t in trials] == list(range(len(trials)))
    assert all(t.tx_frames == t.rx_frames for t in valid[:2])
    if victim == "tester":
        # Nothing can be read from a dead tester: the trial is invalid and says why.
        assert soak.returncode == 1, stderr
        assert invalid and all(t.error for t in invalid)
        assert "trials invalid, their figures unused; first: trial" in stderr
    else:
        # A dead DUT is what the tester is for: the trials stay valid and show the loss.
        assert soak.returncode == 0, stderr
        assert valid[-1].rx_frames == 0 and valid[-1].tx_frames > 0


def test_lab_down_leaves_nothing_behind() -> None:
    assert netdev.lab_links() == []
    assert netdev.lab_netns() == []
