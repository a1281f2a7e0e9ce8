"""Every trial starts on a drained DUT (issue 42): a throughput search against a DUT
whose queue holds 3000 frames and drains 300 frames/s (topologies/bmv2-deep-queue-300.yaml).
A trial that overloads it leaves up to 10 s of frames in the queue; before, the next
trials received them as stale, lost their own frames behind them and the search ended
with no NDR at all ("lowest failing load 0.10 %"). Now each trial waits until the DUT
stopped delivering earlier frames, and the NDR is the queue's rate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p4tester.results.jsonl import ResultLog

from conftest import p4tester

DUT_QUEUE_RATE_PPS = 300
QUEUE_DEPTH = 3000
TRIAL_S = 4
DRAIN_S = 0.1
# A trial at R > 300 frames/s leaves (R - 300) x 4 s in the queue; what arrives within
# the 0.1-s drain counts (30 frames): an NDR above 300 by at most 30 / 4 s, 2.5 %.
NDR_ABOVE_AT_MOST = DUT_QUEUE_RATE_PPS * DRAIN_S / TRIAL_S


def profile(tmp_path: Path) -> Path:
    path = tmp_path / "deep.yaml"
    path.write_text(
        "name: deep-queue\n"
        f"trial: {{duration_s: {TRIAL_S}, drain_s: {DRAIN_S}, settle_s: 0.5, "
        "settle_max_s: 30}\n"
        "search: {method: binary}\n"
        "streams:\n  - {id: 0, tx_port: 1, rx_port: 2}\n")
    return path


@pytest.mark.topology("bmv2-deep-queue-300.yaml")
def test_the_search_waits_for_the_deep_queue_and_finds_its_rate(lab: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "throughput"
    done = p4tester("throughput", "-t", str(lab), "-p", str(profile(tmp_path)), "-o",
                    str(out), "--json", "--frame-sizes", "64")
    assert done.returncode == 0, done.stderr + done.stdout
    (size,) = json.loads(done.stdout)["result"]["sizes"]
    ndr = float(size["ndr"]["lower"]["pps"])
    assert DUT_QUEUE_RATE_PPS * 0.99 <= ndr <= DUT_QUEUE_RATE_PPS + NDR_ABOVE_AT_MOST, ndr
    trials = ResultLog(out / "trials.jsonl").load()
    # No trial counted an earlier one's frames: each waited until the DUT stopped
    # delivering them, and those that came after an overloading trial waited for what
    # its queue held (the search starts at line rate: 3000 frames, 10 s).
    assert all(t.settle is not None for t in trials)
    assert sum(t.rx_stale for t in trials if t.valid) == 0
    second = trials[1].settle
    assert second is not None and second.drained
    assert QUEUE_DEPTH * 0.9 <= second.frames <= QUEUE_DEPTH
    assert second.waited_s >= second.frames / DUT_QUEUE_RATE_PPS * 0.9
    assert "frames of earlier trials before trials started (waits up to" in done.stderr
