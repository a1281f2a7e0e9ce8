"""Flows at scale through OTG (issue 45): the snappi script of snappi_spread, whose
flow steps its IPv4 source over 256 addresses (ipv4.src.increment) and draws its TCP
destination port (tcp.dst_port.random), run against `p4tester otg` on the BMv2
loopback lab. Its counts equal a tcpdump count of what reached the receiving port,
and every captured frame carries the fields its sequence number says, checksums
right."""

from __future__ import annotations

from pathlib import Path

import pytest
from capture import capture_received
from otg_field_checks import assert_frames_as_patterned
from snappi_spread import run_spread
from test_otg_snappi import OtgServer, otg_server  # noqa: F401

from p4tester.lab import ifaces

COUNT = 300
PPS = 100
SIZE = 128


@pytest.mark.topology("loopback.yaml")
def test_snappi_increment_and_random_fields_equal_the_capture(
        otg_server: OtgServer, tmp_path: Path) -> None:  # noqa: F811
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap, ("tcp",)) as stats:
        out = run_spread(otg_server.url, COUNT, PPS, SIZE, otg_server.log)
    assert out["config_warnings"] == []
    flow = out["flow"]
    assert (flow["transmit"], int(flow["frames_tx"]), int(flow["frames_rx"])) == (
        "stopped", COUNT, COUNT)
    assert stats.dropped_by_capture == 0
    assert_frames_as_patterned(pcap, COUNT)
