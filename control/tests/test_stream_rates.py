"""Frames/s of a profile's streams at a load (config.stream_rates): the one place the
trial runners, the web server, calibration and validation take them from."""

from __future__ import annotations

import pytest

from p4tester.config.profile import profile_from_dict
from p4tester.config.stream_rates import busiest_stream_pps, profile_pps, stream_pps
from p4tester.config.topology import topology_from_dict

# Port 1 at 5 Mbit/s (7440.48 frames/s at 64 B), port 2 at 10 Mbit/s.
TOPOLOGY = topology_from_dict({
    "name": "t", "switch": {"grpc": "127.0.0.1:9559", "thrift_port": 9090},
    "ports": {1: {"line_rate": "5Mbps"}, 2: {"line_rate": "10Mbps"}},
    "dut": {"kind": "loopback"}}, "t.yaml")
PROFILE = profile_from_dict({"name": "p", "streams": [
    {"id": 0, "tx_port": 1, "rx_port": 2, "share": 0.25},
    {"id": 1, "tx_port": 2, "rx_port": 1, "frame_size": 1518}]}, "p.yaml")


def test_a_stream_takes_its_share_of_its_ports_line_rate_at_its_size() -> None:
    first, second = PROFILE.streams
    assert stream_pps(TOPOLOGY, first, 64) == pytest.approx(0.25 * 5e6 / (84 * 8))
    assert stream_pps(TOPOLOGY, first, 64, 0.5) == pytest.approx(0.5 * 0.25 * 5e6 / (84 * 8))
    # A fixed-size stream (an IMIX member) keeps its 1518 B whatever the trial's size.
    assert stream_pps(TOPOLOGY, second, 64, 0.5) == pytest.approx(0.5 * 10e6 / (1538 * 8))


def test_the_profile_together_and_its_busiest_stream() -> None:
    quarter = 0.25 * 5e6 / (84 * 8)  # 1860.1
    full_1518 = 10e6 / (1538 * 8)  # 812.7
    assert profile_pps(TOPOLOGY, PROFILE, 64) == pytest.approx(quarter + full_1518)
    assert busiest_stream_pps(TOPOLOGY, PROFILE, 64) == pytest.approx(quarter)
    assert busiest_stream_pps(TOPOLOGY, PROFILE, 64, 0.1) == pytest.approx(0.1 * quarter)
