"""What the tester reports against DUTs whose limits are known (issue: labs)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from conftest import p4tester

QUEUE_DEPTH = 64  # topologies/bmv2-dut.yaml and congestion-2to1.yaml
MAX_BURST = 1000
LINE_RATE_64B_PPS = 5e6 / (84 * 8)  # 5 Mbit/s ports
SLOW_DUT_RATE_PPS = 1000  # topologies/bmv2-dut-slow.yaml
SLOW_LINE_RATE_128B_PPS = 2e6 / (148 * 8)  # its 2 Mbit/s ports


def run_json(*args: str) -> dict[str, object]:
    done = p4tester(*args, "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    document: dict[str, object] = json.loads(done.stdout)
    return document


@pytest.mark.topology("congestion-2to1.yaml")
def test_seed_004_latency_grows_linearly_with_the_dut_buffer(lab: Path, tmp_path: Path) -> None:
    """Two ports at 55 % into one (10 % overload: the buffer fills within a trial on
    these slow ports; seed 004 used 50.2 % of 100G): min latency flat, avg and max linear in the
    buffer threshold (R^2 >= 0.9), over five thresholds; the plot is written. Three trials
    per threshold: the fit goes through their medians, so one scheduling stall of the
    2-core host (a few ms added to one trial's single-frame maximum) does not bend it."""
    out = tmp_path / "sweep"
    document = run_json("queue-sweep", "-t", str(lab), "-p",
                        "topologies/profiles/two-to-one.yaml", "-o", str(out),
                        "--frame-sizes", "64", "--buffers", "20,40,60,80,100", "--load", "55%",
                        "--duration", "2")
    (fit,) = document["result"]["by_size"]  # type: ignore[index]
    fits = fit["fits"]
    report = document["report"]
    # Issue 10: on a busy host (CI may share it) a maximum is one frame per trial and a
    # scheduling stall decides it; the run must then say the fit is not a result, never
    # report it as the DUT's shape. Its evidence is the load or, with a load average that
    # looks quiet (1.25 on 2 CPUs in a CI run), repetitions that disagree at a threshold.
    # The average holds from the vouched trials anyway.
    assert fits["avg"]["r_squared"] >= 0.9, (fits, report)
    if fits["max"]["r_squared"] < 0.9:
        said = [line for line in report  # type: ignore[union-attr]
                if line.startswith("64 B: could not measure max latency vs buffer on this host")]
        assert said, (fits, report)
    else:
        assert fits["max"]["slope"] > 0, fits
    assert fits["avg"]["slope"] > 0, fits
    # Flat minimum: over the whole sweep it moves by less than a tenth of the average's
    # rise (the average, not the max: a max the run disclaimed has no slope to trust).
    rise_avg = fits["avg"]["slope"] * 80
    assert abs(fits["min"]["slope"] * 80) < 0.1 * rise_avg, fits
    assert (out / "latency_vs_buffer_64B.png").stat().st_size > 0


@pytest.mark.topology("bmv2-dut-slow.yaml")
def test_back_to_back_measures_the_dut_buffer(lab: Path, tmp_path: Path) -> None:
    """Bursts at line rate into a queue of 64 frames draining at 1000 frames/s: the
    RFC 9004 corrected buffer (burst x (1 - throughput / line rate)) is 64 frames.
    BMv2 also buffers ahead of its egress queue (the port's libpcap ring, the ingress
    input buffer) and loses frames there when the DUT's threads are not scheduled, so
    on a busy 2-core host single bursts vary: the bounds below check the magnitude.
    128-B frames at 2 Mbit/s (1689 frames/s at line rate): the lab DUT's 31-frame
    capture ring holds 18 ms of a burst. At 5 Mbit/s (4223 frames/s, 7 ms) a DUT the
    host held up overflowed it in three tries in a row, quiet 2-core VM included."""
    document = run_json("back-to-back", "-t", str(lab), "-p",
                        "topologies/profiles/one-stream.yaml", "-o", str(tmp_path / "b2b"),
                        "--frame-size", "128", "--throughput",
                        f"{SLOW_DUT_RATE_PPS / SLOW_LINE_RATE_128B_PPS}",
                        "--repetitions", "3", "--duration", "1", "--max-burst", str(MAX_BURST))
    result = document["result"]
    bursts: list[int] = result["bursts"]  # type: ignore[index]
    # A lab DUT starved by the busy host buffers a burst ahead of its queue too: in two
    # fresh-clone CI runs (at 5 Mbit/s) one repetition's first 1000-frame burst went
    # through whole, 821 of its frames arriving after the last one left the tester. The
    # other repetitions measure the queue: the median burst, RFC 9004-corrected, is the
    # DUT's buffer.
    assert sum(burst < MAX_BURST for burst in bursts) >= 2, result
    # RFC 9004 6.4's figures, from the run's own bursts and the lab's known rates: a
    # correction with another line rate (the 64-B one: factor 0.66, not 0.41), another
    # throughput or the wrong sign fails here, whatever the bursts were.
    average = statistics.fmean(bursts)
    share = SLOW_DUT_RATE_PPS / SLOW_LINE_RATE_128B_PPS
    assert result["line_rate_pps"] == pytest.approx(SLOW_LINE_RATE_128B_PPS, rel=1e-9), result
    assert result["throughput_pps"] == pytest.approx(SLOW_DUT_RATE_PPS, rel=1e-9), result
    assert result["implied_buffer_time_s"] == pytest.approx(
        average / SLOW_LINE_RATE_128B_PPS, rel=1e-9), result
    assert result["corrected_buffer_time_s"] == pytest.approx(
        average / SLOW_LINE_RATE_128B_PPS * (1 - share), rel=1e-9), result
    assert result["corrected_buffer_frames"] == pytest.approx(average * (1 - share),
                                                              rel=1e-9), result
    corrected = statistics.median(bursts) * (1 - share)
    assert QUEUE_DEPTH * 0.5 <= corrected <= QUEUE_DEPTH * 2.0, result
