"""The reference DUT as an MPLS edge: it pushes a label on one stream and pops the
label another stream carries; the tester counts both streams whole, and a capture
of the first shows the label the DUT pushed, the tester header behind it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scapy.contrib.mpls import MPLS
from scapy.layers.l2 import Ether
from test_capture import pcap_frames

from p4tester.capture.scapy_layer import find_tester_header

from conftest import p4tester

PROFILE = "topologies/profiles/mpls-push-pop.yaml"


@pytest.mark.topology("bmv2-mpls.yaml")
def test_streams_through_an_mpls_push_and_pop(lab: Path, tmp_path: Path) -> None:
    out = tmp_path / "pushed.pcap"
    done = p4tester("capture", "-t", str(lab), "-p", PROFILE, "--stream", "0", "--count", "5",
                    "--min-gap-us", "0", "--load", "0.05", "--duration", "1", "-o", str(out),
                    "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    document = json.loads(done.stdout)
    # 5 % of 5 Mbit/s at 128 B (148 B on the wire) for 1 s: 211 frames each, all back.
    assert [(s["stream"], s["tx_frames"], s["rx_frames"]) for s in document["streams"]] == [
        (0, 211, 211), (1, 211, 211)], document
    frames = [Ether(f) for f in pcap_frames(out)]
    assert len(frames) == 5
    for seq, frame in enumerate(frames):
        assert frame.type == 0x8847
        label = frame[MPLS]
        assert (label.label, label.s, label.ttl) == (1000, 1, 64)
        assert len(bytes(frame)) == 128  # 124 B sent + the 4-byte label
        header = find_tester_header(frame)
        assert header is not None and (header.stream_id, header.seq) == (0, seq)
