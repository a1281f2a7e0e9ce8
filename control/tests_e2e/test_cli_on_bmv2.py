"""Every experiment runs end to end from the CLI on a lab and writes its files;
the throughput search finds the DUT's known bottleneck."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p4tester.results.jsonl import ResultLog
from p4tester.results.model import TrialResult

from conftest import p4tester

PROFILE = "topologies/profiles/one-stream.yaml"
DUT_QUEUE_DEPTH = 64  # frames, the same DUT's egress queue (and bmv2-dut-slow.yaml's)
SLOW_DUT_RATE_PPS = 1000  # topologies/bmv2-dut-slow.yaml
HIGH_PPS, LOW_PPS = 1600, 400  # its shaped stream's steps: 1000 frames/s +- 60 %
OUTPUTS = ("trials.jsonl", "summary.json", "trials.csv", "streams.csv")


def run(lab: Path, out: Path, *args: str) -> dict[str, object]:
    done = p4tester(args[0], "-t", str(lab), "-p", PROFILE, "-o", str(out), "--json", *args[1:])
    assert done.returncode == 0, done.stderr + done.stdout
    for name in OUTPUTS:
        assert (out / name).stat().st_size > 0, name
    trials = ResultLog(out / "trials.jsonl").load()
    # Trials the tester or the lab DUT could not vouch for on this busy host are kept,
    # marked and repeated (issue 10); nothing else may be invalid.
    assert trials and all(t.valid or t.host_limited for t in trials), [
        t.error for t in trials if not t.valid]
    document: dict[str, object] = json.loads(done.stdout)
    assert document["trials"] == len(trials)
    return document


@pytest.mark.topology("bmv2-dut-slow.yaml")
def test_ndr_finds_the_dut_bottleneck(lab: Path, tmp_path: Path) -> None:
    """NDR against a DUT whose egress queue runs at R frames/s lands within 2 % of R
    (above R by at most what its 64-frame buffer absorbs in one 5-s trial: 1.3 %). On
    the slow lab (1000 frames/s): on bmv2-dut.yaml's 3000 a busy CI host left the
    search tester- and dut-limited in a third of its trials and its bound 3.5 % low,
    marked as the tester's capacity."""
    out = tmp_path / "throughput"
    document = run(lab, out, "throughput", "--frame-sizes", "64", "--duration", "5")
    (size,) = document["result"]["sizes"]  # type: ignore[index]
    ndr_pps = size["ndr"]["lower"]["pps"]
    assert abs(ndr_pps - SLOW_DUT_RATE_PPS) / SLOW_DUT_RATE_PPS <= 0.02, ndr_pps
    assert (out / "throughput.png").stat().st_size > 0


@pytest.mark.topology("bmv2-dut-slow.yaml")
def test_every_experiment_writes_its_results(lab: Path, tmp_path: Path) -> None:
    # On the slow lab (2-Mbit/s ports, a DUT of 1000 frames/s): on bmv2-dut.yaml the
    # queue sweep's 3720 frames/s and the scan's 3348 were more than a busy 2-core host
    # let the two BMv2s carry (a CI run under busy-host.sh: 6 of the sweep's 7 trials
    # tester- or dut-limited, the run stopped). Frame loss and back-to-back send at 100 %
    # of line rate at 256 B (906 frames/s here).
    runs = {
        "latency": ("--frame-size", "64", "--load", "30%", "--trials", "2", "--duration", "1"),
        "frame-loss": ("--frame-sizes", "256", "--duration", "1"),
        "back-to-back": ("--frame-size", "256", "--throughput", "40%", "--repetitions", "2",
                         "--duration", "1", "--max-burst", "1000"),
        "frame-size-scan": ("--start", "64", "--end", "704", "--step", "320", "--load", "45%",
                            "--duration", "1"),
        "ramp": ("--start", "400pps", "--end", "1200pps", "--step", "400pps",
                 "--duration", "1"),
        "soak": ("--load", "30%", "--total", "2", "--interval", "1"),
        "queue-sweep": ("--frame-sizes", "64", "--buffers", "10,50,100", "--load", "50%",
                        "--repetitions", "1", "--duration", "1"),
    }
    documents = {experiment: run(lab, tmp_path / experiment, experiment, *options)
                 for experiment, options in runs.items()}
    # The figures are the lab DUT's, on the trials the tester vouched for: below its
    # queue rate (1000 frames/s) nothing is lost, above it what exceeds the rate.
    for experiment in ("latency", "frame-loss", "soak", "back-to-back"):
        for trial in vouched(tmp_path / experiment):
            if trial.offered_pps <= SLOW_DUT_RATE_PPS:
                assert trial.lost == 0, (experiment, trial)
    ramp = vouched(tmp_path / "ramp")
    assert [t.lost for t in ramp if t.offered_pps < SLOW_DUT_RATE_PPS] == [0, 0], ramp
    # The scan offers 45 % of line rate: at 64 B 1339 frames/s, above the DUT's 1000,
    # which loses the excess (the scan's answer from a vouched trial, or from the DUT's
    # own loss in every try the host could not vouch for); at 384 and 704 B 279 and 155,
    # lossless. Where its 64-B trial was vouched, the DUT let 1000 frames/s through, and
    # the 64 its queue held at the end came out in the drain.
    scan = documents["frame-size-scan"]["result"]
    assert [(p["frame_size"], p["lossy"]) for p in scan["points"]] == [  # type: ignore[index]
        (64, True), (384, False), (704, False)], scan
    for trial in vouched(tmp_path / "frame-size-scan"):
        if trial.frame_size == 64:
            assert 0.97 * SLOW_DUT_RATE_PPS <= trial.rx_frames / trial.duration_s <= (
                1.03 * SLOW_DUT_RATE_PPS + DUT_QUEUE_DEPTH), trial
        else:
            assert trial.lost == 0, trial
    assert (tmp_path / "latency/latency.png").exists()
    assert (tmp_path / "frame-loss/frame-loss.png").exists()
    assert (tmp_path / "frame-size-scan/loss-vs-frame-size.png").exists()
    assert (tmp_path / "queue-sweep/latency_vs_buffer_64B.png").exists()
    assert (tmp_path / "ramp/ramp.png").exists()
    assert (tmp_path / "soak/soak.png").exists()


def vouched(output: Path) -> list[TrialResult]:
    """A run's trials the tester vouched for, at least one."""
    trials = [t for t in ResultLog(output / "trials.jsonl").load() if t.valid]
    assert trials, output
    return trials


@pytest.mark.topology("loopback.yaml")
def test_loopback_is_clean(lab: Path, tmp_path: Path) -> None:
    """No DUT: every frame sent comes back, in order, with a positive latency."""
    document = run(lab, tmp_path / "latency", "latency", "--frame-size", "512", "--load",
                   "50%", "--trials", "2", "--duration", "1")
    for trial in ResultLog(tmp_path / "latency/trials.jsonl").load():
        (stream,) = trial.streams
        assert stream.tx_frames == stream.rx_frames == 587  # 50 % of 1174.8 frames/s, 1 s
        assert stream.reordered == stream.duplicates == stream.gap_events == 0
        assert stream.latency is not None and stream.latency.min_us > 0
        # The reference stream (issue 21.7): looped inside the switch, never lost, in
        # no stream's figures; at most 100 frames/s for the 1-s trial.
        assert trial.reference is not None
        assert 0 < trial.reference.tx_frames == trial.reference.rx_frames <= 100
    assert document["invalid_trials"] == 0
    summary = document["result"]["summary"]  # type: ignore[index]
    floors = [t.reference.min_us for t in ResultLog(tmp_path / "latency/trials.jsonl").load()
              if t.reference is not None]
    assert summary["tester_floor_us"] == min(floors)


@pytest.mark.topology("bmv2-dut-slow.yaml")
def test_a_shaped_stream_loses_only_in_the_steps_above_the_dut(lab: Path,
                                                               tmp_path: Path) -> None:
    """A square wave between 1600 and 400 frames/s (1000 +- 60 %) into a DUT whose queue
    forwards 1000: each step sends its rate (the tester proves it step by step), the
    high steps lose what is above the DUT's rate, the low steps nothing. One period of
    4 s: every 1-s step of a trial must prove its rate, so a longer trial is more often
    one a busy host held up somewhere (8-s trials failed all three tries on a 2-core VM
    with 6-15 % CPU steal, steps 2.5-10 % short). On the slow lab: 3200 frames/s steps
    into a 3000-frames/s DUT came out 2-18 % short in three tries in a row on a busy
    host, and failed on a quiet one."""
    out = tmp_path / "shape"
    document = run(lab, out, "shape", "--shape", "square,period=4,amplitude=0.6",
                   "--load", f"{SLOW_DUT_RATE_PPS}pps", "--duration", "4", "--step", "1")
    assert document["trials"] >= 1
    (trial,) = [t for t in ResultLog(out / "trials.jsonl").load() if t.valid]
    (stream,) = trial.streams
    high = [s for s in stream.rate_course if s.intended_pps == HIGH_PPS]
    low = [s for s in stream.rate_course if s.intended_pps == LOW_PPS]
    assert [s.start_s for s in high] == [0, 1]
    assert [s.start_s for s in low] == [2, 3]
    # Each step sends its rate, to 2 %; a step may also send what the step before fell
    # short (a generator a few frames behind at a step's end repays them in the next
    # one's first moments: 1588 of 1600 frames/s, then 415 of 400, in a CI run under
    # busy-host.sh).
    owed = 0.0
    for step in stream.rate_course:
        assert step.sent_pps is not None and step.received_pps is not None
        asked, sent = step.intended_pps * step.measured_s, step.sent_pps * step.measured_s
        assert -0.02 * asked <= sent - asked <= 0.02 * asked + owed, step
        owed = max(asked - sent, 0.0)
    # Over the high steps together the DUT forwards its rate, to 3 %. A single step's
    # window (0.8 s of reads) may also get frames the lab DUT, starved by a busy host
    # for a moment, let out late in a run (seen: 3240/s in one step of a CI run with a
    # core held busy): each step to 10 %.
    forwarded = sum(s.received_pps * s.measured_s for s in high)
    assert abs(forwarded / sum(s.measured_s for s in high) - SLOW_DUT_RATE_PPS) \
        <= 0.03 * SLOW_DUT_RATE_PPS, high
    for step in high:
        assert abs(step.received_pps - SLOW_DUT_RATE_PPS) <= 0.10 * SLOW_DUT_RATE_PPS, step
    # A low step after a high one also delivers what the DUT's queue held (64 frames).
    for step in low:
        assert step.received_pps >= 0.99 * step.sent_pps, step
    # In all: the frames above the DUT's rate in the 2 s of high steps (each step within
    # its 2 %), less what the 64-frame queue took in at the start of the high spell.
    assert 2 * (0.98 * HIGH_PPS - SLOW_DUT_RATE_PPS) - DUT_QUEUE_DEPTH <= stream.lost \
        <= 2 * (1.02 * HIGH_PPS - SLOW_DUT_RATE_PPS)
    assert (out / "shape.png").stat().st_size > 0
