"""A stream received on several ports (issue 24, item 1) through DUTs whose behaviour
is known. Replicated (topologies/bmv2-bridge-replicate.yaml): a bridge floods the
stream to ports 2 and 3, and port 3's egress token bucket lets about half through;
the tester must find port 2 whole and port 3's loss alone, each port judged on every
frame it was due, port 3's loss exactly the frames the bridge's qdisc dropped.
Spread (topologies/linux-router-ecmp.yaml): a router's weighted multipath route."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from p4tester.lab.bridge_dut import qdisc_drops
from p4tester.lab.netdev import DUT_NETNS
from p4tester.results.jsonl import ResultLog

from conftest import valid_latency_trials

PROFILE = "topologies/profiles/replicate-2.yaml"
RATE_PPS = 500  # a few hundred frames/s: well within BMv2's capacity on a busy host
PORT3_PASSES_PPS = 250  # tbf 120 kbit/s, a 64-B frame counted as 60 B



@pytest.mark.topology("bmv2-bridge-replicate.yaml")
def test_a_replicated_stream_is_judged_port_by_port(lab: Path, tmp_path: Path) -> None:
    output = tmp_path / "out"
    valid = valid_latency_trials(lab, PROFILE, output, load_pps=RATE_PPS, trials=3)
    trials = ResultLog(output / "trials.jsonl").load()
    for trial in valid:
        (stream,) = trial.streams
        assert stream.replicated
        port2, port3 = stream.receivers
        assert (port2.port, port3.port) == (2, 3)
        # Port 2 has no fault: every frame, once, in order.
        assert (port2.rx_frames, port2.gap_events, port2.reordered, port2.duplicates) == (
            stream.tx_frames, 0, 0, 0), trial
        assert stream.port_lost(port2) == 0
        # Port 3 passes about half (250 of 500 frames/s, plus its bucket and queue).
        lost3 = stream.port_lost(port3)
        assert lost3 is not None
        assert 0.25 * stream.tx_frames <= lost3 <= 0.6 * stream.tx_frames, trial
        assert port3.duplicates == 0
        # The stream's loss is port 3's alone, over the frames due on both ports.
        assert stream.frames_due == 2 * stream.tx_frames
        assert stream.lost == lost3
        assert trial.lost == lost3
    # Every frame port 3 lost in the run is one the bridge's qdisc dropped; port 2's
    # queue dropped none. Invalid trials lost frames at the DUT too: count them all.
    lost_in_run = sum(s.port_lost(s.receivers[1]) or 0 for t in trials for s in t.streams)
    assert lost_in_run == qdisc_drops("p4ld3")
    assert qdisc_drops("p4ld2") == 0
    report = (output / "result.txt").read_text()
    assert "per RX port, trial" in report
    assert re.search(r"\n\s+0\s+replicate\s+2\s+\d+\s+\d+\s+0\s+-", report), report
    assert (output / "receivers.csv").read_text().startswith(
        "experiment,trial_index,stream_id,receive,rx_port,")


def router_tx_packets(device: str) -> int:
    """Frames the lab router sent out of one of its interfaces since the lab came up."""
    shown = subprocess.run(["ip", "netns", "exec", DUT_NETNS, "ip", "-s", "-j", "link", "show",
                            "dev", device], capture_output=True, text=True, check=True).stdout
    packets: int = json.loads(shown)[0]["stats64"]["tx"]["packets"]
    return packets


@pytest.mark.topology("linux-router-ecmp.yaml")
def test_a_spread_stream_is_received_once_over_the_ports(lab: Path, tmp_path: Path) -> None:
    """The router spreads the stream's 256 flows over ports 2 and 3, weights 1 and 3:
    every frame comes back once, about a quarter on port 2, and each port's count is
    what the router sent out of it."""
    output = tmp_path / "out"
    valid = valid_latency_trials(lab, "topologies/profiles/spread-2.yaml", output,
                                 load_pps=RATE_PPS, trials=3)
    trials = ResultLog(output / "trials.jsonl").load()
    splits = set()
    for trial in valid:
        (stream,) = trial.streams
        assert not stream.replicated
        port2, port3 = stream.receivers
        assert (port2.port, port3.port) == (2, 3)
        assert (stream.rx_frames, stream.lost, stream.duplicates) == (stream.tx_frames, 0, 0)
        assert stream.frames_due == stream.tx_frames
        assert 0.12 <= port2.rx_frames / stream.rx_frames <= 0.38, trial
        splits.add((port2.rx_frames, port3.rx_frames))
    # Each trial sends the same flows in the same order (the variation restarts), and
    # the router's hash seed is fixed: every trial splits them the same way.
    assert len(splits) == 1, splits
    # The tester's count per port is what the router sent out of it, frame for frame.
    for index, device in ((0, "p4ld2"), (1, "p4ld3")):
        assert sum(t.streams[0].receivers[index].rx_frames for t in trials) == (
            router_tx_packets(device))
    assert "spread over 2 ports, 0 lost" in (output / "result.txt").read_text()


@pytest.mark.topology("linux-router-ecmp-l3.yaml")
def test_varied_destinations_spread_over_a_router_that_hashes_addresses(
        lab: Path, tmp_path: Path) -> None:
    """Flows at scale (issue 45, item 7b): the router hashes source and destination
    address only. The stream whose destination address steps over 200 addresses
    spreads over ports 2 and 3, every frame once, the same way each trial, each
    port's count what the router sent out of it; a stream whose ports vary (its
    addresses fixed) stays on one path."""
    output = tmp_path / "out"
    valid = valid_latency_trials(lab, "topologies/profiles/spread-dst-ip.yaml", output,
                                 load_pps=RATE_PPS, trials=3)
    splits = set()
    for trial in valid:
        (stream,) = trial.streams
        port2, port3 = stream.receivers
        assert (stream.rx_frames, stream.lost, stream.duplicates) == (stream.tx_frames, 0, 0)
        assert port2.rx_frames > 0 and port3.rx_frames > 0, trial
        splits.add((port2.rx_frames, port3.rx_frames))
    assert len(splits) == 1, splits
    # The run says which addresses it sent: 200, frame by frame.
    flows = (output / "flows.csv").read_text().splitlines()
    assert (len(flows), flows[1], flows[200]) == (201, "0,0,198.51.100.1", "0,199,198.51.100.200")
    assert ("stream 0 varies dst_ip 198.51.100.1 .. 198.51.100.200 (200 values, step 1): 200 "
            "frames before its fields repeat") in (output / "result.txt").read_text()
    ports_only = tmp_path / "ports"
    # Two trials: at least one vouched for on a busy host (valid_latency_trials).
    for trial in valid_latency_trials(lab, "topologies/profiles/spread-2.yaml", ports_only,
                                      load_pps=RATE_PPS, trials=2):
        (stream,) = trial.streams
        counts = sorted(r.rx_frames for r in stream.receivers)
        assert counts == [0, stream.tx_frames], trial
    # Every trial of both runs, valid or not: what the tester counted per port is what
    # the router sent out of it.
    trials = [*ResultLog(output / "trials.jsonl").load(),
              *ResultLog(ports_only / "trials.jsonl").load()]
    for index, device in ((0, "p4ld2"), (1, "p4ld3")):
        assert sum(t.streams[0].receivers[index].rx_frames for t in trials) == (
            router_tx_packets(device))
