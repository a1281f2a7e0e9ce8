"""`p4tester capture` writes K frames of a stream equal, byte for byte and in order,
to the first K that a tcpdump on the receiving interface saw; the pcap reads back
with tcpdump; the trial it watched lost nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from capture import capture_received

from p4tester.lab import ifaces

from conftest import p4tester

PROFILE = "topologies/profiles/one-stream.yaml"
PCAP_GLOBAL_HEADER = 24
PCAP_RECORD_HEADER = 16
K = 40


def pcap_frames(path: Path) -> list[bytes]:
    """Frames of a classic pcap, read with this test's own parser."""
    data = path.read_bytes()
    frames, at = [], PCAP_GLOBAL_HEADER
    while at < len(data):
        length = int.from_bytes(data[at + 8:at + 12], "little")
        frames.append(data[at + PCAP_RECORD_HEADER:at + PCAP_RECORD_HEADER + length])
        at += PCAP_RECORD_HEADER + length
    return frames


@pytest.mark.topology("loopback.yaml")
def test_capture_equals_a_tcpdump_of_the_same_frames(lab: Path, tmp_path: Path) -> None:
    out = tmp_path / "stream0.pcap"
    reference = tmp_path / "tcpdump.pcap"
    with capture_received(ifaces.tester_iface(2), reference) as stats:
        done = p4tester("capture", "-t", str(lab), "-p", PROFILE, "--stream", "0",
                        "--count", str(K), "--min-gap-us", "0", "--load", "0.05",
                        "--duration", "1", "--frame-size", "128", "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    assert stats.dropped_by_capture == 0
    document = json.loads(done.stdout)
    (stream,) = document["streams"]
    # 5 % of 5 Mbit/s at 128 B (148 B on the wire) for 1 s: 211 frames, all back, all
    # copied (no gap limit).
    assert stream["tx_frames"] == stream["rx_frames"] == 211, document
    assert (document["copied"], document["skipped_by_rate_limit"]) == (211, 0), document
    assert (document["written"], document["ports"]) == (K, [2]), document
    captured = pcap_frames(out)
    assert len(captured) == K
    assert {len(f) for f in captured} == {124}
    assert captured == pcap_frames(reference)[:K]
    # tcpdump reads the file: K records, Ethernet, the tester's UDP port.
    read = subprocess.run(["tcpdump", "-nn", "-r", str(out)], capture_output=True, text=True,
                          timeout=30, check=True)
    lines = read.stdout.strip().splitlines()
    assert len(lines) == K and all(".20564: UDP, length 82" in line for line in lines), lines[:3]


@pytest.mark.topology("loopback.yaml")
def test_rate_limited_capture_is_a_sample_and_says_so(lab: Path, tmp_path: Path) -> None:
    out = tmp_path / "sample.pcap"
    done = p4tester("capture", "-t", str(lab), "-p", PROFILE, "--stream", "0", "--count", "5",
                    "--min-gap-us", "100000", "--load", "0.05", "--duration", "1",
                    "--frame-size", "128", "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    document = json.loads(done.stdout)
    (stream,) = document["streams"]
    assert stream["rx_frames"] == 211
    # One copy per 100 ms of switch time over a 1 s trial: 10 or 11 of the 211.
    assert document["copied"] in (10, 11), document
    assert document["copied"] + document["skipped_by_rate_limit"] == 211
    assert document["written"] == 5 and len(pcap_frames(out)) == 5
