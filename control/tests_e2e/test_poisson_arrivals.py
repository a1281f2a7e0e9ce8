"""Poisson arrivals (issue 24, item 5) through the CLI on BMv2, against a DUT whose
queueing is known: topologies/linux-router-queue.yaml, a Linux router whose egress token
bucket serves 800 frames/s of 64 B with a bucket of two frames. At 600 frames/s sent
evenly a frame never waits; sent as the tester's Poisson arrivals (a loop 4 times
faster than the frames, each pass drawn with probability 1/4) the frames queue behind
one another: simulated with the token bucket's own rule (below), 560 us on average
(three seeds of 200 000 frames: 549 to 576). The tester must find that wait in its
latency, and lose nothing."""

from __future__ import annotations

import random
import statistics
from pathlib import Path

import pytest
from test_cli_on_bmv2 import run

from p4tester.results.jsonl import ResultLog

LOAD_PPS = 600
GRID = 4
BUCKET_RATE_BPS = 48_000.0  # 384 kbit/s
BUCKET_BYTES = 120.0
FRAME_L2_BYTES = 60.0  # tbf counts a 64-B frame without its FCS


def token_bucket_mean_wait_us(frames: int, seed: int) -> float:
    """The mean wait of the tester's thinned arrivals at the lab's token bucket: each
    frame leaves when the bucket holds a frame's tokens, after the frames before it."""
    rng = random.Random(seed)
    step = 1 / (LOAD_PPS * GRID)
    now, arrivals = 0.0, []
    while len(arrivals) < frames:
        now += step
        if rng.random() < 1 / GRID:
            arrivals.append(now)
    tokens, refilled_at, free_at, waits = BUCKET_BYTES, 0.0, 0.0, []
    for arrival in arrivals:
        start = max(arrival, free_at)
        tokens = min(BUCKET_BYTES, tokens + BUCKET_RATE_BPS * (start - refilled_at))
        refilled_at = start
        if tokens < FRAME_L2_BYTES:
            start += (FRAME_L2_BYTES - tokens) / BUCKET_RATE_BPS
            tokens, refilled_at = FRAME_L2_BYTES, start
        tokens -= FRAME_L2_BYTES
        free_at = start
        waits.append(start - arrival)
    return statistics.mean(waits) * 1e6


@pytest.mark.topology("linux-router-queue.yaml")
def test_random_arrivals_wait_in_a_queue_that_even_ones_never_meet(lab: Path,
                                                                   tmp_path: Path) -> None:
    expected_us = statistics.mean(token_bucket_mean_wait_us(50_000, seed) for seed in (1, 2))
    assert 500 <= expected_us <= 620  # the model itself, as the docstring says
    averages = {}
    for shape in ("constant", f"poisson,grid={GRID}"):
        out = tmp_path / shape.split(",")[0]
        run(lab, out, "shape", "--shape", shape, "--load", f"{LOAD_PPS}pps",
            "--duration", "4", "--step", "1")
        (trial,) = [t for t in ResultLog(out / "trials.jsonl").load() if t.valid]
        (stream,) = trial.streams
        assert stream.tx_frames == 4 * LOAD_PPS and stream.lost == 0, stream
        assert stream.latency is not None
        averages[shape] = stream.latency.avg_us
    # The wait is what the random arrivals add to the path's own latency; one 4-s trial
    # of 2400 frames and a busy host's scheduling: within a factor of two.
    waited = averages[f"poisson,grid={GRID}"] - averages["constant"]
    assert 0.5 * expected_us <= waited <= 2.0 * expected_us, (averages, expected_us)
