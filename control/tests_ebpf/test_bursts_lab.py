"""Micro-bursts on the eBPF tester (issue 24, item 5), by the shape command, the trial
loop and OTG's burst duration, against a DUT whose buffer is known:
topologies/ebpf-bridge-bursts.yaml, a Linux bridge whose egress token bucket lets 25
frames of a burst through at once and queues 20 more. A burst of 60 frames therefore
loses 15, and the same load sent smoothly loses none: what a micro-burst test is for.
Checked against the token bucket's own drop count and an independent capture (tcpdump
of what left tester port 1 and reached tester port 2, read by the e2e suite's pcap
parser): its counts, and each frame's latency from its two capture times."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path

import pytest

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialSpec
from p4tester.lab import ifaces
from p4tester.streams.shapes import ShapeKind, TrafficShape
from p4tester.targets.ebpf.session import EbpfSession
from p4tester.targets.ebpf.trials import EbpfTrialRunner

from .conftest import REPO, lab_up
from .test_kernel_dut_labs import token_bucket_drops
from .test_otg_on_ebpf import OtgServer, config, flow

# The e2e suite's capture and pcap parser: the same independent count as on BMv2 labs.
sys.path.insert(0, str(REPO / "control" / "tests_e2e"))
from capture import (  # type: ignore[import-not-found]
    capture_received,
    capture_sent,
    frame_latencies_us,
    stream_frames_by_epoch,
    stream_times,
)
from served import ServerProcess  # type: ignore[import-not-found]

TOPOLOGY = REPO / "topologies" / "ebpf-bridge-bursts.yaml"
LINE_RATE_64B_PPS = 25e6 / (84 * 8)  # the ports' nominal 25 Mbit/s
BURST = 60
PASSED_AT_ONCE = 25  # the bucket: 1500 B of 60-B frames
QUEUED = 20  # the queue: 1200 B
LOAD = 0.1  # 3720 frames/s: a burst every 16 ms; the bucket refills in 1.2 ms
TRIAL_S = 2.0
CLI_TIMEOUT_S = 300
# The tester stamps a frame in its programs, the capture where tcpdump taps the ports
# (after the generator's egress hook, before the checker's ingress hook): a frame's two
# latencies differ by that path, seen up to 16 us on this lab.
TAP_TOLERANCE_US = 100.0


@pytest.fixture
def bursts_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(TOPOLOGY, tmp_path / "lab") as topology:
        yield topology


def test_each_burst_loses_what_overflows_the_duts_buffer(bursts_lab: Path,
                                                         tmp_path: Path) -> None:
    profile = profile_from_dict({
        "name": "bursts", "trial": {"duration_s": TRIAL_S, "drain_s": 0.5, "settle_s": 0.5},
        "frame_sizes": [64], "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}],
    }, "bursts")
    shape = TrafficShape(ShapeKind.BURSTS, burst_frames=BURST)
    sent_pcap, pcap = tmp_path / "tx.pcap", tmp_path / "rx.pcap"
    with EbpfSession(load_topology(bursts_lab), profile) as session:
        runner = EbpfTrialRunner(session)
        try:
            smooth = runner.run_trial(TrialSpec("smooth", 0, 64, LOAD, TRIAL_S))
            dropped_before = token_bucket_drops()
            with (capture_sent(ifaces.tester_iface(1), sent_pcap) as sent_capture,
                  capture_received(ifaces.tester_iface(2), pcap) as capture):
                bursty = runner.run_trial(TrialSpec("bursts", 1, 64, LOAD, TRIAL_S,
                                                    shapes=((0, shape),), shape_step_s=0.5))
        finally:
            runner.close()
    dropped = token_bucket_drops() - dropped_before
    # Smoothly, the same mean load passes whole: the DUT forwards 20 833 frames/s.
    assert smooth.valid, smooth.error
    assert smooth.streams[0].lost == 0
    # Bursts: a trial the host let the sender fall behind in (two bursts merged) is
    # unvouched, and says so; the one here must have offered the bursts asked.
    assert bursty.valid, bursty.error
    (stream,) = bursty.streams
    bursts = stream.tx_frames // BURST
    assert stream.tx_frames == bursts * BURST == round(LOAD * LINE_RATE_64B_PPS * TRIAL_S)
    # The tester's loss is the DUT's drops, and what it received the capture's count.
    assert sent_capture.dropped_by_capture == capture.dropped_by_capture == 0
    assert stream.rx_frames == stream_frames_by_epoch(pcap, 0)[1]  # stream 0, trial 1
    assert stream.lost == dropped
    # The bursts lose frames where the same load sent smoothly lost none. How many is the
    # DUT's, on this host: on an idle one each burst loses what exceeds the bucket and
    # the queue, 15 frames (seen: 3716 of 248 x 15); on a busy one the bridge takes a
    # burst in over a while, its bucket refilling meanwhile (seen: 1201 and 1049 of
    # 124 x 15). The bucket's own drop count above is the record it is judged by.
    assert_bursts_lost_what_the_bucket_dropped(stream.lost, dropped, bursts)
    # Latency, against each frame's own from the two captures.
    sent, received = stream_times(sent_pcap, 0, 1), stream_times(pcap, 0, 1)
    assert received.keys() <= sent.keys(), sorted(received.keys() - sent.keys())[:10]
    captured = frame_latencies_us(sent, received)
    assert len(captured) == stream.rx_frames
    latency = stream.latency
    assert latency is not None and latency.histogram is not None
    assert latency.samples == stream.rx_frames
    assert abs(latency.min_us - min(captured.values())) <= TAP_TOLERANCE_US, latency
    assert abs(latency.max_us - max(captured.values())) <= TAP_TOLERANCE_US, latency
    # The histogram bins the same frames: below each edge, at least the frames the
    # capture saw clearly below it and at most those it saw not clearly above it.
    for edge, below in zip(latency.histogram.edges[1:], accumulate(latency.histogram.counts),
                           strict=True):
        assert (count_below(captured, edge - TAP_TOLERANCE_US) <= below
                <= count_below(captured, edge + TAP_TOLERANCE_US)), (edge, below, latency)
    # The DUT's queue shows as latency: a burst's frames wait at most what the queue
    # holds, 20 frames' service (0.96 ms; the median burst, since a host this busy can
    # hold the lab DUT's queue, a qdisc the kernel drains in softirq time, for a while:
    # seen, 3 bursts of 124 waited 13 ms for the next, which the tester then reports as
    # the latency it was, the captures agreeing), and a burst whose overflow the bucket
    # dropped had its queue full: its last frame waited most of that. How full the
    # median burst's queue got is the DUT's, on this host: 0.96 ms on an idle one, 0.78
    # ms where the busy host let the bucket refill while the bridge took the burst in.
    spreads = burst_latency_spreads_us(captured)
    assert statistics.median(spreads) <= 1.1e3, sorted(spreads)
    assert latency.max_us - latency.min_us >= 0.8e3, latency


def assert_bursts_lost_what_the_bucket_dropped(lost: int, dropped: int, bursts: int) -> None:
    """The tester's loss is the token bucket's drop count, and the bursts lost frames,
    never more than the bucket's rule allows whatever the host's timing: its tokens
    refill in 1.2 ms, so each burst meets a full bucket; frames of the burst before
    that a held queue still keeps take at most QUEUED of its tokens, so each burst
    passes at least PASSED_AT_ONCE - QUEUED frames and queues QUEUED."""
    assert lost == dropped, (lost, dropped)
    assert 0 < lost <= bursts * (BURST - PASSED_AT_ONCE), (lost, bursts)


def count_below(latencies_us: dict[int, float], bound_us: float) -> int:
    return sum(1 for latency in latencies_us.values() if latency < bound_us)


def burst_latency_spreads_us(latencies_us: dict[int, float]) -> list[float]:
    """Per burst (BURST consecutive sequence numbers from 0), how much longer its
    slowest received frame took than its fastest."""
    by_burst: dict[int, list[float]] = {}
    for seq, latency in latencies_us.items():
        by_burst.setdefault(seq // BURST, []).append(latency)
    return [max(latencies) - min(latencies) for latencies in by_burst.values()]


def test_the_shape_command_reports_the_bursts(bursts_lab: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "p4tester", "shape", "-t", str(bursts_lab), "-p",
         "topologies/profiles/one-stream.yaml", "-o", str(tmp_path / "shape"), "--json",
         "--frame-size", "64", "--load", f"{LOAD:.0%}", "--shape", f"bursts,frames={BURST}",
         "--duration", str(TRIAL_S), "--step", "0.5"],
        cwd=REPO, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    report = json.loads(done.stdout)["report"]
    assert f"stream 0: bursts,frames={BURST}" in report, report
    assert any(line.startswith(f"bursts of {BURST} frames back to back at line rate, one "
                               "every 16.13 ms (3720 frames/s); latency ")
               for line in report), report
    assert (tmp_path / "shape" / "shape.png").stat().st_size > 0


class BurstsOtgServer(OtgServer):
    """`p4tester otg` on the bursts lab."""

    def __init__(self, log_path: Path) -> None:
        ServerProcess.__init__(self, [sys.executable, "-m", "p4tester", "otg", "-t",
                                      str(TOPOLOGY)], REPO, log_path)


def test_an_otg_burst_duration_meets_the_same_buffer(bursts_lab: Path, tmp_path: Path) -> None:
    """snappi's `duration.burst` (otg.bursts): 100 bursts of 60 frames, one every 20 ms
    (60 frames of 26.88 us at 25 Mbit/s, then 18391.04 us instead of the last 12-B gap);
    each loses the 15 the bucket and queue cannot hold."""
    bursts, period_us = 100, 20_000
    gap_us = period_us - BURST * 26.88 + 3.84
    burst_flow = flow("bursts", pps=1000, duration={"choice": "burst", "burst": {
        "bursts": bursts, "packets": BURST, "inter_burst_gap": {
            "choice": "microseconds", "microseconds": gap_us}}}, mac="02:00:00:00:0d:04")
    burst_flow["size"] = {"choice": "fixed", "fixed": 64}
    server = BurstsOtgServer(tmp_path / "otg.log")
    try:
        server.wait_listening()
        answer = server.post("/config", config(burst_flow))
        assert answer["warnings"] == [
            "flows[0].rate: not used by a burst duration: a burst's frames leave back to back "
            "at line rate, and inter_burst_gap sets how often"], answer
        dropped_before = token_bucket_drops()
        pcap = tmp_path / "rx.pcap"
        with capture_received(ifaces.tester_iface(2), pcap) as capture:
            server.traffic("start")
            flows = server.wait_stopped(["bursts"])
        dropped = token_bucket_drops() - dropped_before
    finally:
        server.stop()
    sent, received = int(flows["bursts"]["frames_tx"]), int(flows["bursts"]["frames_rx"])
    assert sent == bursts * BURST
    assert capture.dropped_by_capture == 0
    assert received == stream_frames_by_epoch(pcap, 0)[0]
    assert_bursts_lost_what_the_bucket_dropped(sent - received, dropped, bursts)
