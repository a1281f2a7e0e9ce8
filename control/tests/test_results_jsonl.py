"""ResultLog: one fsynced JSON line per trial; torn lines from a killed writer are
skipped and counted, never fatal; resuming appends safely after them."""

from __future__ import annotations

import json
import logging
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p4tester.results.jsonl import LogContents, ResultLog, ResultLogError, RunHeader
from p4tester.results.model import Histogram, LatencyStats, StreamStats, TrialResult

CONTROL_DIR = Path(__file__).resolve().parents[1]
HEADER = RunHeader(
    experiment="throughput",
    profile="two-streams",
    topology="bmv2-loop",
    started_at=1_700_000_000.5,
    tool_version="0.1.0",
    labels=(("dut", "bmv2"),),
)


def trial(index: int, valid: bool = True, experiment: str = "throughput") -> TrialResult:
    histogram = Histogram(edges=(0, 10, 100), counts=(index, 5), outside=1)
    latency = LatencyStats(index + 6, 1.0, 120.0, 9.5, 0.25, 5.0, 100.0, None, histogram)
    stream = StreamStats(1, 64, 100 + index, 100, 6400, 0, 0, 0, 0, latency)
    return TrialResult(
        experiment=experiment,
        trial_index=index,
        offered_fraction=0.5,
        offered_pps=1000.0 + index,
        duration_s=1.0,
        frame_size=64,
        streams=(stream,),
        started_at=1_700_000_001.0 + index,
        valid=valid,
        error=None if valid else "read failed",
    )


def started_log(path: Path, count: int) -> ResultLog:
    log = ResultLog(path)
    log.start(HEADER)
    for index in range(count):
        log.append(trial(index))
    return log


def test_header_then_one_line_per_trial(tmp_path: Path) -> None:
    path = tmp_path / "results" / "run.jsonl"  # parent directory is created
    log = started_log(path, 3)
    lines = path.read_text().splitlines()
    assert len(lines) == 4
    assert json.loads(lines[0]) == {"run": HEADER.to_dict()}
    assert set(json.loads(lines[1])) == {"trial"}
    assert log.read() == LogContents(HEADER, (trial(0), trial(1), trial(2)), ())
    assert ResultLog(path).load() == [trial(0), trial(1), trial(2)]


def test_torn_last_line_is_skipped_and_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "run.jsonl"
    started_log(path, 5)
    whole = path.read_bytes().splitlines()[-1]
    with path.open("ab") as stream:  # a writer killed halfway through its write
        stream.write(whole[: len(whole) // 2])
    log = ResultLog(path)
    with caplog.at_level(logging.WARNING):
        loaded = log.load()
    assert loaded == [trial(i) for i in range(5)]
    assert log.read().torn_lines == (7,)
    assert "skipped 1 torn line(s) (line 7)" in caplog.text


def test_append_after_torn_line_keeps_new_trial(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    started_log(path, 2)
    with path.open("ab") as stream:
        stream.write(b'{"trial":{"schema_version":1,"experi\xc3')  # cut inside a character
    log = ResultLog(path)
    assert log.start(HEADER) == HEADER  # resume
    log.append(trial(2))
    contents = log.read()
    assert contents.trials == (trial(0), trial(1), trial(2))
    assert contents.torn_lines == (4,)


def test_torn_header_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"run":{"schema_ver')
    log = ResultLog(path)
    assert log.read() == LogContents(None, (), (1,))
    log.start(HEADER)
    log.append(trial(0))
    assert log.read() == LogContents(HEADER, (trial(0),), (1,))


def test_finished_keys_skip_invalid_trials(tmp_path: Path) -> None:
    log = started_log(tmp_path / "run.jsonl", 2)
    log.append(trial(2, valid=False))
    assert log.finished_keys() == {("throughput", 0), ("throughput", 1)}
    assert log.finished_keys(include_invalid=True) == {
        ("throughput", 0),
        ("throughput", 1),
        ("throughput", 2),
    }
    assert ResultLog(tmp_path / "absent.jsonl").finished_keys() == frozenset()


def test_resume_keeps_the_original_header(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    started_log(path, 1)
    later = RunHeader.now("throughput", "two-streams", "bmv2-loop")
    assert later.started_at > HEADER.started_at
    assert ResultLog(path).start(later) == HEADER
    assert path.read_text().count('"run"') == 1


def test_other_experiment_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    started_log(path, 1)
    other = RunHeader.now("latency", "p", "t")
    with pytest.raises(ResultLogError, match=r"holds experiment 'throughput', not 'latency'"):
        ResultLog(path).start(other)


def test_append_needs_a_header(tmp_path: Path) -> None:
    with pytest.raises(ResultLogError, match=r"call ResultLog\.start\(header\) before append"):
        ResultLog(tmp_path / "run.jsonl").append(trial(0))


def test_foreign_and_newer_lines_raise_with_line_number(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    started_log(path, 1)
    with path.open("a") as stream:
        stream.write('{"colour": "blue"}\n')
    with pytest.raises(ResultLogError, match=r"run\.jsonl:3: unknown record kind 'colour'"):
        ResultLog(path).load()

    path = tmp_path / "newer.jsonl"
    started_log(path, 1)
    text = path.read_text().replace(
        '"schema_version":13,"experiment":"throughput","trial_index"',
        '"schema_version":14,"experiment":"throughput","trial_index"',
    )
    path.write_text(text)
    with pytest.raises(ResultLogError, match=r"newer\.jsonl:2: unknown schema version 14"):
        ResultLog(path).load()


# A writer that appends trials until it is killed; it prints each index once append
# returned, i.e. once the trial is on disk.
_WRITER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from p4tester.results.jsonl import ResultLog, RunHeader
from p4tester.results.model import Histogram, LatencyStats, StreamStats, TrialResult

histogram = Histogram(tuple(range(32)), tuple(range(31)), 3)
latency = LatencyStats(500, 1.0, 31.0, 12.5, 0.5, 12.0, 30.5, None, histogram)
streams = tuple(
    StreamStats(i, 64, 1000, 999, 999 * 64, 1, 1, 0, 0, latency, histogram) for i in range(16)
)
log = ResultLog(sys.argv[2])
log.start(RunHeader.now("kill-test", "profile", "topology"))
deadline = time.monotonic() + 30.0  # never outlive a broken test
index = 0
while time.monotonic() < deadline:
    log.append(TrialResult("kill-test", index, 0.5, 1000.0, 1.0, 64, streams))
    print(index, flush=True)
    index += 1
"""


def test_sigkill_mid_loop_loses_no_finished_trial(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    wanted = 40
    process = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(CONTROL_DIR), str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    output = b""
    deadline = time.monotonic() + 20.0
    try:
        while output.count(b"\n") < wanted and time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 0.5)
            if ready:
                chunk = os.read(process.stdout.fileno(), 65536)
                if not chunk:
                    break  # the writer died on its own
                output += chunk
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        assert process.stderr is not None
        errors = process.stderr.read().decode()
        process.stdout.close()
        process.stderr.close()
    finished = [int(line) for line in output.splitlines()[: output.count(b"\n")]]
    assert len(finished) >= wanted, f"writer printed {len(finished)} indexes; stderr: {errors}"

    log = ResultLog(path)
    contents = log.read()
    keys = log.finished_keys()
    assert {("kill-test", index) for index in finished} <= keys
    # At most the one trial being written when the kill came may be there unreported,
    # and at most one line may be torn.
    assert len(contents.trials) - len(finished) in (0, 1)
    assert len(contents.torn_lines) <= 1
    assert [t.trial_index for t in contents.trials] == list(range(len(contents.trials)))
    # The run can go on in the same file.
    log.start(RunHeader.now("kill-test", "profile", "topology"))
    log.append(trial(10_000, experiment="kill-test"))
    assert log.load()[-1] == trial(10_000, experiment="kill-test")
