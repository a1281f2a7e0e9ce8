"""The eBPF tester on labs whose DUT is the kernel's: a Linux router and a Linux bridge
in a namespace, each with an egress token bucket as the known limit
(topologies/ebpf-linux-router.yaml and ebpf-linux-bridge.yaml: 10 Mbit/s over 60-B
frames), through the trial loop every target runs (self-check, DUT check, offered load).

Checked against the router's own counters (the token bucket's drop count) and an
independent capture (tcpdump of what reached tester port 2, with its own drop count,
read by the e2e suite's pcap parser, not the controller's)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialSpec
from p4tester.lab import ifaces
from p4tester.lab.netdev import DUT_NETNS
from p4tester.search.trials import TESTER_LIMITED_ATTEMPTS
from p4tester.targets.ebpf.session import EbpfSession
from p4tester.targets.ebpf.trials import EbpfTrialRunner

from .conftest import REPO, lab_up

# The e2e suite's capture and pcap parser: the same independent count as on BMv2 labs.
sys.path.insert(0, str(REPO / "control" / "tests_e2e"))
from capture import (  # type: ignore[import-not-found]
    capture_received,
    stream_frames_by_epoch,
    stream_seqs,
)

# The same limit behind a router and behind a bridge.
TOPOLOGIES = [REPO / "topologies" / "ebpf-linux-router.yaml",
              REPO / "topologies" / "ebpf-linux-bridge.yaml"]
DUT_LIMIT_PPS = 10e6 / (60 * 8)  # tbf 10 Mbit/s counts a 64-B frame as 60 B
LINE_RATE_64B_PPS = 25e6 / (84 * 8)  # the ports' nominal 25 Mbit/s
TRIAL_S = 2.0
CLI_TIMEOUT_S = 600


@pytest.fixture(params=TOPOLOGIES, ids=lambda path: path.stem)
def kernel_dut_lab(request: pytest.FixtureRequest, built: Path, tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(request.param, tmp_path / "lab") as topology:
        yield topology


def token_bucket_drops() -> int:
    shown = subprocess.run(["ip", "netns", "exec", DUT_NETNS, "tc", "-s", "qdisc", "show",
                            "dev", "p4ld2"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"\(dropped (\d+),", shown)
    assert found is not None, shown
    return int(found.group(1))


def test_ndr_finds_the_dut_rate_limit(kernel_dut_lab: Path, tmp_path: Path) -> None:
    """RFC 2544 throughput at 64 B, by MLRsearch, as a user runs it: the NDR is the
    token bucket's rate within 3 %, behind the router and behind the bridge."""
    done = subprocess.run(
        [sys.executable, "-m", "p4tester", "throughput", "-t", str(kernel_dut_lab), "-p",
         "topologies/profiles/one-stream.yaml", "-o", str(tmp_path / "throughput"), "--json",
         "--frame-sizes", "64", "--duration", str(TRIAL_S)],
        cwd=REPO, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    (size,) = json.loads(done.stdout)["result"]["sizes"]
    ndr = float(size["ndr"]["lower"]["pps"])
    assert abs(ndr - DUT_LIMIT_PPS) / DUT_LIMIT_PPS <= 0.03, (ndr, done.stderr[-2000:])


def test_loss_is_what_the_dut_dropped_and_the_capture_holds_the_rest(
        kernel_dut_lab: Path, tmp_path: Path) -> None:
    """A trial 25 % above the limit: every frame sent is either in the capture of
    what reached port 2, or in the token bucket's drop count; the tester's RX is the
    capture's count and its loss the DUT's drops, exactly (in gaps, plus the tail
    after the last frame received), and the trial is vouched for (the tester's and the
    DUT's interfaces lost nothing)."""
    profile = profile_from_dict({
        "name": "over", "trial": {"duration_s": TRIAL_S, "drain_s": 0.5, "settle_s": 0.5},
        "frame_sizes": [64], "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}],
    }, "over")
    rate = 1.25 * DUT_LIMIT_PPS
    # A trial the tester cannot vouch for (on a busy host its sender can fall so far
    # behind that the trial misses its rate) is repeated, as a run does.
    for attempt in range(TESTER_LIMITED_ATTEMPTS):
        pcap = tmp_path / f"rx{attempt}.pcap"
        dropped_before = token_bucket_drops()
        with (EbpfSession(load_topology(kernel_dut_lab), profile) as session,
              capture_received(ifaces.tester_iface(2), pcap) as capture):
            runner = EbpfTrialRunner(session)
            try:
                trial = runner.run_trial(TrialSpec("capture", attempt, 64,
                                                   rate / LINE_RATE_64B_PPS, TRIAL_S))
            finally:
                runner.close()
        dropped = token_bucket_drops() - dropped_before
        if trial.valid:
            break
        assert trial.tester_limited, trial.error
    assert trial.valid, trial.error
    assert capture.dropped_by_capture == 0
    (stream,) = trial.streams
    assert stream.tx_frames == round(rate * TRIAL_S)
    # The trial's frames carry its index as their epoch (capture: one pcap per attempt).
    assert stream.rx_frames == stream_frames_by_epoch(pcap, 0)[trial.trial_index % 128]
    assert stream.tx_frames - stream.rx_frames == dropped
    # The checker counts a loss once a later frame arrives: frames the bucket dropped
    # after the last one received are not in a gap (the trial's tail).
    tail = stream.tx_frames - 1 - max(stream_seqs(pcap, 0))
    assert stream.lost_in_gaps + tail == dropped, (stream.reordered, tail)
    assert stream.duplicates == 0 and stream.reordered == 0
    # Above the limit for 2 s: the bucket drops what exceeds its rate, its 50-frame
    # burst and its 300-frame queue.
    assert dropped >= 0.8 * (rate - DUT_LIMIT_PPS) * TRIAL_S


# Issue 41's bridge five times faster: 100-Mbit/s tester ports, a bucket of 50 Mbit/s
# over 60-B frames (104 167 frames/s), 70 % of line rate.
BRIDGE_FAST = REPO / "topologies" / "ebpf-linux-bridge-fast.yaml"
BRIDGE_FAST_LIMIT_PPS = 50e6 / (60 * 8)
# The bucket's 20 000-B burst and the queues before it hold about 4500 frames: a 4-s
# trial hides a load 1.1 % above the limit (busy CI #14: 105 303 frames/s offered, none
# lost), an 8-s one half that, as the run's buffering note advises.
BRIDGE_FAST_TRIAL_S = 8.0


def test_a_bucket_at_70_percent_of_line_rate_is_found_within_1_percent(
        built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The NDR at 64 B through the fast bridge is the bucket's rate within 1 %, from
    a vouched trial. Above the rate, this VM's bridge spends its CPU on the throttling
    bucket and its own input drops frames: those trials are the DUT's (dut-limited,
    its interfaces' own count), and none is the tester's: the tester's ports lost
    nothing to the DUT's CPU (lab.receive_steering)."""
    monkeypatch.chdir(REPO)
    out = tmp_path / "throughput"
    with lab_up(BRIDGE_FAST, tmp_path / "lab"):
        done = subprocess.run(
            [sys.executable, "-m", "p4tester", "throughput", "-t", str(BRIDGE_FAST), "-p",
             "topologies/profiles/one-stream.yaml", "-o", str(out), "--json",
             "--frame-sizes", "64", "--duration", str(BRIDGE_FAST_TRIAL_S)],
            cwd=REPO, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    (size,) = json.loads(done.stdout)["result"]["sizes"]
    ndr = float(size["ndr"]["lower"]["pps"])
    assert abs(ndr - BRIDGE_FAST_LIMIT_PPS) / BRIDGE_FAST_LIMIT_PPS <= 0.01, (
        ndr, done.stderr[-2000:])
    trials = [record["trial"] for record in map(json.loads, (out / "trials.jsonl").open())
              if "trial" in record]
    # The NDR is a trial's rate: the lesser of what it was set to and what it proved.
    bound = [t for t in trials if t["valid"]
             and sum(s["tx_frames"] - s["rx_frames"] for s in t["streams"]) == 0
             and abs(min(t["offered_pps"], t["offered_pps_measured"]) - ndr) <= 0.5]
    assert bound, f"no vouched loss-free trial at the NDR {ndr}"
    # Frames the tester could not hand to the bridge are those the bridge's input
    # counted as dropped (its own interface's record), and they make the trial the
    # DUT's to answer for (dut-limited), never the tester's.
    for trial in trials:
        refused = {p["port"]: p["interface_tx_dropped"] for p in trial["self_check"]["ports"]
                   if p.get("feeds_dut")}
        assert set(refused) == {1, 2}, trial["self_check"]
        dut_dropped = {p["port"]: p["interface_rx_dropped"]
                       for p in trial["dut_check"]["ports"]}
        assert refused == dut_dropped, (trial["trial_index"], refused, dut_dropped)
        if any(refused.values()):
            assert not trial["dut_check"]["ok"], trial["trial_index"]
            assert trial["self_check"]["tx_dropped"] == 0, trial["trial_index"]
