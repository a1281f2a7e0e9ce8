"""A Linux router that ends the VxLAN tunnel: the tester sends a stream inside VxLAN,
the router takes it out and routes it; the tester counts every frame as the
stream's, and the frames it received are plain IPv4/UDP with the TTL the router
decremented (a capture of them shows it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from test_capture import pcap_frames

from p4tester.capture.scapy_layer import find_tester_header

from conftest import p4tester

PROFILE = "topologies/profiles/vxlan-one-stream.yaml"


@pytest.mark.topology("linux-router-vxlan.yaml")
def test_vxlan_stream_through_a_decapsulating_router(lab: Path, tmp_path: Path) -> None:
    out = tmp_path / "decapsulated.pcap"
    done = p4tester("capture", "-t", str(lab), "-p", PROFILE, "--stream", "0", "--count", "5",
                    "--min-gap-us", "0", "--load", "0.05", "--duration", "1", "-o", str(out),
                    "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    document = json.loads(done.stdout)
    (stream,) = document["streams"]
    # 5 % of 5 Mbit/s at 128 B (148 B on the wire) for 1 s: 211 frames, all back.
    assert stream["tx_frames"] == stream["rx_frames"] == 211, document
    assert document["trial_valid"], document
    frames = [Ether(f) for f in pcap_frames(out)]
    assert len(frames) == 5
    for frame in frames:
        # 128 - 4 FCS - the 50 bytes of outer IPv4/UDP/VxLAN/inner Ethernet.
        assert len(bytes(frame)) == 74
        assert frame[IP].src == "192.0.2.1" and frame[IP].dst == "198.51.100.1"
        assert frame[IP].ttl == 63 and frame[UDP].dport == 0x5054
        header = find_tester_header(frame)
        assert header is not None and header.stream_id == 0
    assert [find_tester_header(f).seq for f in frames] == [0, 1, 2, 3, 4]  # type: ignore[union-attr]
