"""Every trial starts on a drained DUT (issue 42), against a DUT whose queue holds
3000 frames and drains 300 frames/s (topologies/bmv2-deep-queue-300.yaml). A trial
that overloads it leaves up to 10 s of frames in the queue; before, the next trials
received them as stale, lost their own frames behind them and the search ended with
no NDR at all ("lowest failing load 0.10 %"). Now each trial waits until the DUT
stopped delivering earlier frames, whether they came from the same run, from the run
before it, or from the interrupted run a `--resume` continues."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p4tester.results.jsonl import ResultLog
from p4tester.results.model import TrialResult

from conftest import REPO, p4tester

DUT_QUEUE_RATE_PPS = 300
QUEUE_DEPTH = 3000
# RFC 2544 counts what arrives in a trial's drain: with a deep queue a trial passes a
# little above the queue's rate, by what the queue absorbs and delivers before the
# closing edge (about 0.4 s after the last frame left on BMv2: the budget's read lags
# up to one poll, and the closing edge is re-read while frames still arrive). In 4-s
# trials that put the NDR 9.5 % high (328 frames/s); 15-s trials bring it within the
# 3 % the issue asks for (300 x 0.4 / 15 = 8 frames/s).
TRIAL_S = 15
NDR_WITHIN = 0.03
WAIT_FOR_FIRST_TRIAL_S = 120.0


def profile(tmp_path: Path, duration_s: float) -> Path:
    path = tmp_path / "deep.yaml"
    path.write_text(
        "name: deep-queue\n"
        f"trial: {{duration_s: {duration_s}, drain_s: 0.1, settle_s: 0.5, "
        "settle_max_s: 30, initial_duration_s: 2}\n"
        "streams:\n  - {id: 0, tx_port: 1, rx_port: 2}\n")
    return path


def throughput_command(lab: Path, deep: Path, out: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "p4tester", "throughput", "-t", str(lab), "-p", str(deep),
            "-o", str(out), "--json", "--frame-sizes", "64", *more]


def written_trials(out: Path) -> list[TrialResult]:
    log = out / "trials.jsonl"
    return ResultLog(log).load() if log.exists() else []


def assert_waited_for_the_queue(trial: TrialResult, at_least: int) -> None:
    """The trial waited while the DUT delivered what its queue held (`at_least` of its
    3000 frames), for about as long as the queue's rate needs for them."""
    assert trial.settle is not None and trial.settle.drained, trial.settle
    assert at_least <= trial.settle.frames <= QUEUE_DEPTH, trial.settle
    assert trial.settle.waited_s >= trial.settle.frames / DUT_QUEUE_RATE_PPS * 0.9, trial.settle


@pytest.mark.topology("bmv2-deep-queue-300.yaml")
def test_an_interrupted_search_resumes_on_a_drained_dut_and_finds_its_rate(
        lab: Path, tmp_path: Path) -> None:
    """The search's first trial (line rate) fills the queue; the run is interrupted
    while the next trial waits for it to drain. `--resume` keeps the finished trial,
    waits for the frames the interrupted run left in the DUT, and the search ends at
    the queue's rate within 3 %."""
    out = tmp_path / "throughput"
    deep = profile(tmp_path, TRIAL_S)
    # Ctrl-C as in a terminal (a background job, as in CI, inherits SIGINT ignored),
    # once a line-rate trial is written: its frames filled the queue whether or not the
    # tester could vouch for it (a loaded host may not let it, three times over, and
    # the search then goes on at lower loads).
    with subprocess.Popen(throughput_command(lab, deep, out), cwd=REPO, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)
                          ) as search:
        deadline = time.monotonic() + WAIT_FOR_FIRST_TRIAL_S
        while not any(t.offered_fraction == 1.0 for t in written_trials(out)) \
                and time.monotonic() < deadline:
            time.sleep(0.2)
        search.send_signal(signal.SIGINT)
        try:
            _, stderr = search.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            # Seen once under load: the run did not end. Its threads' stacks say on what.
            search.send_signal(signal.SIGUSR1)
            time.sleep(2)
            search.kill()
            _, stderr = search.communicate()
            pytest.fail(f"the search did not end within 60 s of Ctrl-C; its threads:\n"
                        f"{stderr[-8000:]}")
    assert search.returncode == 130, stderr
    assert "interrupted; finished trials are kept" in stderr
    before = written_trials(out)
    line_rate = [t for t in before if t.offered_fraction == 1.0]
    # Each overflowed the 3000-frame queue (1786 frames/s into 300 for 2 s); any trial
    # not vouched for says it was the host's.
    assert line_rate and all(t.tx_frames - t.rx_frames > 0 for t in line_rate), before
    assert all(t.valid or t.host_limited for t in before), [t.error for t in before]

    done = p4tester(*throughput_command(lab, deep, out, "--resume")[3:])
    assert done.returncode == 0, done.stderr + done.stdout
    trials = written_trials(out)
    assert trials[:len(before)] == before  # the interrupted run's trials kept as they were
    # The line-rate trial (2 s) left about 2970 frames in the queue, 10 s of its rate;
    # the new run's start (a few seconds) let some of them out before its first trial
    # waited for the rest.
    assert_waited_for_the_queue(trials[len(before)], at_least=100)
    # No trial counted an earlier one's frames: each waited until the DUT stopped
    # delivering them.
    assert all(t.settle is not None and t.settle.drained for t in trials)
    assert sum(t.rx_stale for t in trials if t.valid) == 0
    (size,) = json.loads(done.stdout)["result"]["sizes"]
    ndr = float(size["ndr"]["lower"]["pps"])
    assert abs(ndr - DUT_QUEUE_RATE_PPS) <= NDR_WITHIN * DUT_QUEUE_RATE_PPS, ndr
    # The report says what the DUT did in the NDR's trial: it forwarded about its
    # queue's rate while the queue grew.
    forwarded = re.search(rf"64 B NDR: the DUT was filling its buffer in the {TRIAL_S}-s "
                          r"trial at [\d.]+ % \(latency rose [\d.]+ ms\): the DUT forwarded "
                          r"about (\d+) frames/s", (out / "result.txt").read_text())
    assert forwarded is not None, (out / "result.txt").read_text()
    assert abs(int(forwarded.group(1)) - DUT_QUEUE_RATE_PPS) <= 0.03 * DUT_QUEUE_RATE_PPS
    assert "frames of earlier trials before trials started (waits up to" in done.stderr


@pytest.mark.topology("bmv2-deep-queue-300.yaml")
def test_a_latency_run_after_an_overload_measures_its_own_frames(lab: Path,
                                                                 tmp_path: Path) -> None:
    """A run at line rate fills the queue; the latency run right after it waits for the
    queue to drain, then receives exactly the 300 frames it sent at 150 frames/s."""
    deep = profile(tmp_path, 2)
    overload = p4tester("latency", "-t", str(lab), "-p", str(deep), "-o",
                        str(tmp_path / "overload"), "--frame-size", "64", "--load", "100%",
                        "--trials", "1", "--duration", "2")
    assert overload.returncode == 0, overload.stderr + overload.stdout
    # A trial the host could not vouch for is repeated: the run ends on a vouched one.
    assert written_trials(tmp_path / "overload")[-1].lost > 0

    done = p4tester("latency", "-t", str(lab), "-p", str(deep), "-o", str(tmp_path / "after"),
                    "--frame-size", "64", "--load", "150pps", "--trials", "1",
                    "--duration", "2")
    assert done.returncode == 0, done.stderr + done.stdout
    trials = written_trials(tmp_path / "after")
    assert_waited_for_the_queue(trials[0], at_least=1000)
    vouched = [t for t in trials if t.valid]
    assert vouched, [t.error for t in trials]
    for trial in vouched:
        assert trial.rx_stale == 0, trial
        (stream,) = trial.streams
        assert (stream.tx_frames, stream.rx_frames, stream.lost) == (300, 300, 0), stream
