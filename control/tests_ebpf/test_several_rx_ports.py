"""A replicated stream on the eBPF tester (issue 24, item 1), through a bridge that floods
it to ports 2 and 3 (topologies/ebpf-bridge-replicate.yaml), port 3's egress a token
bucket of 5000 frames/s: at 10 000 frames/s port 2 gets every frame, port 3 about half,
and port 3's loss is exactly the frames its qdisc dropped."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from p4tester.lab.bridge_dut import qdisc_drops
from p4tester.results.jsonl import ResultLog

from .conftest import REPO, lab_up

LAB = REPO / "topologies" / "ebpf-bridge-replicate.yaml"
PROFILE = "topologies/profiles/replicate-2.yaml"
RATE_PPS = 10_000
PORT3_PASSES_PPS = 2400e3 / (60 * 8)  # 5000: tbf counts a 64-B frame as 60 B
CLI_TIMEOUT_S = 600


@pytest.fixture
def replicate_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(LAB, tmp_path / "lab") as topology:
        yield topology


def test_a_replicated_stream_is_judged_port_by_port(replicate_lab: Path, tmp_path: Path) -> None:
    output = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "p4tester", "latency", "-t", str(replicate_lab), "-p", PROFILE,
         "-o", str(output), "--frame-size", "64", "--load", f"{RATE_PPS}pps", "--trials", "3",
         "--duration", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    trials = ResultLog(output / "trials.jsonl").load()
    valid = [t for t in trials if t.valid]
    assert valid, [t.error for t in trials]
    for trial in valid:
        (stream,) = trial.streams
        port2, port3 = stream.receivers
        assert (port2.port, port2.rx_frames, port2.duplicates, port2.gap_events) == (
            2, stream.tx_frames, 0, 0), trial
        lost3 = stream.port_lost(port3)
        assert lost3 is not None
        # 5000 of 10 000 frames/s pass, plus the bucket's burst and queue.
        assert 0.35 * stream.tx_frames <= lost3 <= 0.55 * stream.tx_frames, trial
        assert (stream.frames_due, stream.lost) == (2 * stream.tx_frames, lost3)
    assert sum(s.port_lost(s.receivers[1]) or 0 for t in trials for s in t.streams) == (
        qdisc_drops("p4ld3"))
    assert qdisc_drops("p4ld2") == 0
