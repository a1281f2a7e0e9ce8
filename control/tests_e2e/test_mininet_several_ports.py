"""Streams received on several ports (issue 24, item 1) through p4lang/tutorials-format
networks written for p4tester, with the tester in place of their hosts:

- topologies/mininet-multicast.yaml: s1 replicates a multicast MAC's frames to ports
  2, 3 and 4 and prunes port 4's copies: ports 2 and 3 whole, port 4 nothing.
- topologies/mininet-load-balance.yaml: s1 spreads a network over four ECMP members by
  a CRC32 of the 5-tuple, three toward port 2 and one toward port 3: each frame goes
  where its flow's hash sends it, which the test computes frame by frame, for a stream
  whose ports vary and for one whose source address varies (checked against captures
  of both ports too).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from capture import capture_received, stream_frames_by_epoch

from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.dataplane.constants import TESTER_UDP_DST_PORT
from p4tester.experiments.runner import TrialSpec
from p4tester.lab import ifaces
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import SwitchTrialRunner

from conftest import NEEDS_MININET, REPO, valid_latency_trials

pytestmark = NEEDS_MININET

LINE_RATE_64B_PPS = 5e6 / (84 * 8)  # the lab's 5 Mbit/s ports
RATE_PPS = 300  # 600 (multicast: 900) frames/s into the tester: well within its capacity
# topologies/tutorials/load_balance: the stream's flows and the route's members.
FIRST_SRC_PORT = 49152
FLOWS = 256
MEMBERS_TO_PORT = (2, 2, 2, 3)


@pytest.mark.topology("mininet-multicast.yaml")
def test_a_multicast_network_that_prunes_one_replica_port(lab: Path, tmp_path: Path) -> None:
    for trial in valid_latency_trials(lab, "topologies/tutorials/multicast/profile.yaml",
                                      tmp_path / "out", load_pps=RATE_PPS, trials=2):
        (stream,) = trial.streams
        tx = stream.tx_frames
        assert [(r.port, r.rx_frames, r.duplicates, r.reordered, r.gap_events)
                for r in stream.receivers] == [(2, tx, 0, 0, 0), (3, tx, 0, 0, 0),
                                               (4, 0, 0, 0, 0)], trial
        assert [stream.port_lost(r) for r in stream.receivers] == [0, 0, tx]
        assert (stream.frames_due, stream.lost) == (3 * tx, tx)


def ecmp_port(frame: int, vary_address: bool = False) -> int:
    """Where s1 sends frame `frame` of the trial: its flow's source port, or its source
    address (the stream's variation restarts each trial), hashed as ecmp.p4 does (CRC32
    of source and destination address, protocol and ports), modulo the four members."""
    flow = frame % FLOWS
    source = bytes((10, 0, 1, flow if vary_address else 1))
    port = FIRST_SRC_PORT if vary_address else FIRST_SRC_PORT + flow
    key = source + bytes((10, 0, 2, 2, 17)) + struct.pack(">HH", port, TESTER_UDP_DST_PORT)
    return MEMBERS_TO_PORT[zlib.crc32(key) % len(MEMBERS_TO_PORT)]


@pytest.mark.topology("mininet-load-balance.yaml")
def test_an_ecmp_network_spreads_each_flow_where_its_hash_says(lab: Path,
                                                                tmp_path: Path) -> None:
    for trial in valid_latency_trials(lab, "topologies/tutorials/load_balance/profile.yaml",
                                      tmp_path / "out", load_pps=RATE_PPS, trials=2):
        (stream,) = trial.streams
        expected_port3 = sum(1 for frame in range(stream.tx_frames) if ecmp_port(frame) == 3)
        port2, port3 = stream.receivers
        assert (port2.port, port2.rx_frames, port3.port, port3.rx_frames) == (
            2, stream.tx_frames - expected_port3, 3, expected_port3), trial
        assert (stream.lost, stream.duplicates) == (0, 0)
        # Three members of four toward port 2: about three quarters of the frames.
        assert 0.7 <= port2.rx_frames / stream.rx_frames <= 0.8


@pytest.mark.topology("mininet-load-balance.yaml")
def test_source_addresses_spread_where_the_hash_says_and_the_captures_agree(
        lab: Path, tmp_path: Path) -> None:
    """Issue 45, item 7a: the source address steps over 256 addresses (its ports
    fixed): each frame is due once, on the port its address hashes to (recomputed
    here), and each port's count is what a capture of that port saw. A trial the
    tester cannot vouch for is repeated, at most 3."""
    profile = load_profile(REPO / "topologies/tutorials/load_balance/profile-src-ip.yaml")
    refused = []
    for index in range(3):
        pcaps = {port: tmp_path / f"port{port}-{index}.pcap" for port in (2, 3)}
        with (TesterSession(load_topology(lab), profile, push_pipeline=True) as session,
              capture_received(ifaces.tester_iface(2), pcaps[2]) as capture2,
              capture_received(ifaces.tester_iface(3), pcaps[3]) as capture3):
            trial = SwitchTrialRunner(session).run_trial(
                TrialSpec("src-ip", index, 64, RATE_PPS / LINE_RATE_64B_PPS, 2.0))
        assert (capture2.dropped_by_capture, capture3.dropped_by_capture) == (0, 0)
        (stream,) = trial.streams
        captured = {port: stream_frames_by_epoch(path, 0).get(index, 0)
                    for port, path in pcaps.items()}
        if trial.valid:
            expected3 = sum(1 for frame in range(stream.tx_frames)
                            if ecmp_port(frame, vary_address=True) == 3)
            port2, port3 = stream.receivers
            assert (port2.rx_frames, port3.rx_frames) == (
                stream.tx_frames - expected3, expected3), trial
            assert (port2.rx_frames, port3.rx_frames) == (captured[2], captured[3]), trial
            assert (stream.lost, stream.duplicates) == (0, 0)
            # The addresses do spread: both ports get a share.
            assert 0 < expected3 < stream.tx_frames
            return
        refused.append(trial.error)
    pytest.fail(f"no trial of 3 vouched for on this host: {refused}")
