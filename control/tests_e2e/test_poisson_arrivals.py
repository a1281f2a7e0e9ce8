"""Poisson arrivals (issue 24, item 5) through the CLI on BMv2, against a DUT whose
queueing is known: topologies/linux-router-queue.yaml, a Linux router whose egress token
bucket serves 80 frames/s of 64 B with a bucket of two frames. At 60 frames/s sent
evenly a frame never waits; sent as the tester's Poisson arrivals (a loop 4 times
faster than the frames, each pass drawn with probability 1/4) the frames queue behind
one another: simulated with the token bucket's own rule (below), 5.6 ms on average
(three seeds of 200 000 frames: 5.49 to 5.76 ms). The tester must find that wait in its
latency, and lose nothing: checked against tcpdump captures of where the frames left
the tester and where they came back."""

from __future__ import annotations

import os
import random
import statistics
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest
from capture import capture_received, capture_sent, frame_latencies_us, stream_times
from test_cli_on_bmv2 import run

from p4tester.lab import ifaces
from p4tester.results.jsonl import ResultLog

LOAD_PPS = 60
DURATION_S = 6
GRID = 4
BUCKET_RATE_BPS = 4_800.0  # 38.4 kbit/s
BUCKET_BYTES = 120.0
FRAME_L2_BYTES = 60.0  # tbf counts a 64-B frame without its FCS


def model_arrivals(frames: int, seed: int) -> list[float]:
    """The tester's thinned arrivals as designed: a pass every 1/(LOAD_PPS x GRID) s,
    each sending a frame with probability 1/GRID."""
    rng = random.Random(seed)
    step = 1 / (LOAD_PPS * GRID)
    now, arrivals = 0.0, []
    while len(arrivals) < frames:
        now += step
        if rng.random() < 1 / GRID:
            arrivals.append(now)
    return arrivals


def token_bucket_mean_wait_us(arrivals: list[float]) -> float:
    """The mean wait of frames arriving at these times (s, rising) at the lab's token
    bucket: each frame leaves when the bucket holds a frame's tokens, after the frames
    before it."""
    tokens, refilled_at, free_at, waits = BUCKET_BYTES, arrivals[0], arrivals[0], []
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


def variation(arrivals: list[float]) -> float:
    """Coefficient of variation of the gaps between arrivals: 0 for even ones,
    sqrt(1 - 1/GRID) = 0.87 for the thinned grid."""
    gaps = [b - a for a, b in pairwise(arrivals)]
    return statistics.pstdev(gaps) / statistics.mean(gaps)


@dataclass(frozen=True, slots=True)
class Measured:
    tester_avg_us: float  # the tester's average latency
    capture_avg_us: float  # tcpdump's: port 2's capture time - port 1's, per frame
    arrivals: list[float]  # when port 1's capture saw each frame leave, in order


def measure(lab: Path, tmp_path: Path, shape: str) -> Measured:
    """One `shape` trial of DURATION_S, captured where the frames leave the tester (port 1) and
    where they come back (port 2): what the tester measured, and what the captures
    saw, independently of it."""
    name = shape.split(",")[0]
    sent_pcap, got_pcap = tmp_path / f"{name}-sent.pcap", tmp_path / f"{name}-got.pcap"
    with (capture_sent(ifaces.tester_iface(1), sent_pcap) as sent_capture,
          capture_received(ifaces.tester_iface(2), got_pcap) as got_capture):
        run(lab, tmp_path / name, "shape", "--shape", shape, "--load", f"{LOAD_PPS}pps",
            "--duration", str(DURATION_S), "--step", "1")
    assert (sent_capture.dropped_by_capture, got_capture.dropped_by_capture) == (0, 0)
    (trial,) = [t for t in ResultLog(tmp_path / name / "trials.jsonl").load() if t.valid]
    (stream,) = trial.streams
    assert stream.tx_frames == DURATION_S * LOAD_PPS and stream.lost == 0, stream
    assert stream.latency is not None
    epoch = trial.trial_index % 128
    sent, got = stream_times(sent_pcap, 0, epoch), stream_times(got_pcap, 0, epoch)
    assert len(sent) == DURATION_S * LOAD_PPS and set(got) == set(sent)
    return Measured(stream.latency.avg_us,
                    statistics.mean(frame_latencies_us(sent, got).values()),
                    sorted(sent.values()))


# An even trial counts as the baseline only when its frames left the tester evenly: the
# bucket's rule on the arrivals its capture saw makes them wait at most this share of
# the random ones' expected wait. On a busy host BMv2's egress thread can wake late and
# send a constant stream in bunches (a CI run when the lab served 800 frames/s: gaps of
# 0.02 to 19.8 ms at 600 frames/s, 3047 us on average in the DUT's queue): then even
# ones did meet the queue, and the pair is measured again, a bounded number of times.
EVEN_WAIT_SHARE = 0.2
PAIRS = 3


@pytest.mark.topology("linux-router-queue.yaml")
def test_random_arrivals_wait_in_a_queue_that_even_ones_never_meet(lab: Path,
                                                                   tmp_path: Path) -> None:
    expected_us = statistics.mean(token_bucket_mean_wait_us(model_arrivals(50_000, seed))
                                  for seed in (1, 2))
    assert 5000 <= expected_us <= 6200  # the model itself, as the docstring says
    bunched = []
    for attempt in range(PAIRS):
        (tmp_path / f"pair{attempt}").mkdir()
        even = measure(lab, tmp_path / f"pair{attempt}", "constant")
        random_ = measure(lab, tmp_path / f"pair{attempt}", f"poisson,grid={GRID}")
        even_wait = token_bucket_mean_wait_us(even.arrivals)
        if even_wait <= EVEN_WAIT_SHARE * expected_us:
            break
        bunched.append(round(even_wait))
    else:
        pytest.fail(f"the tester sent its constant stream in bunches in all {PAIRS} tries "
                    f"(the bucket's rule on the captured arrivals: {bunched} us of wait): "
                    f"this host is too busy for the test (host load {os.getloadavg()[0]:.2f})")
    # What the generator sent, seen by the capture: arrivals as random as designed (a
    # busy host's stalls only add bursts to them), which the bucket makes wait.
    assert variation(random_.arrivals) >= 0.7, variation(random_.arrivals)
    # How long they wait depends on the arrivals sent (360 frames: 2.2 to 10.7 ms in 9
    # of 10 simulated trials, 5.7 ms in the long run; a busy host's stall adds a burst):
    # the DUT's queue, seen by the captures, made them wait at least half what the
    # bucket's own rule gives for the arrivals the capture saw.
    waited_in_capture = random_.capture_avg_us - even.capture_avg_us
    bucket_rule_us = token_bucket_mean_wait_us(random_.arrivals) - even_wait
    assert waited_in_capture >= 0.5 * bucket_rule_us, (waited_in_capture, bucket_rule_us)
    # The tester finds that wait in its latency: the captures' figure, within a fifth
    # (or 100 us: the capture's clock is the host's, the tester's its switch's).
    waited = random_.tester_avg_us - even.tester_avg_us
    assert abs(waited - waited_in_capture) <= max(0.2 * waited_in_capture, 100.0), (
        waited, waited_in_capture, bucket_rule_us)
