"""Seed 002: a stream the DUT must punt (TTL 1) measures its slow path. The Linux
router answers each expired frame with an ICMP time-exceeded, which the tester
counts as foreign frames, until the kernel's ICMP rate limit caps the replies."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialSpec
from p4tester.lab import netdev
from p4tester.lab.linux_dut import NAMESPACE
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import SwitchTrialRunner

LINE_RATE_64B_PPS = 5e6 / (84 * 8)
DURATION_S = 2.0


@pytest.mark.topology("linux-router.yaml")
def test_icmp_time_exceeded_rate_vs_offered_rate(lab: Path) -> None:
    icmp_limit = int(netdev.run(["sysctl", "-n", "net.ipv4.icmp_msgs_per_sec"],
                                netns=NAMESPACE))
    profile = profile_from_dict({
        "name": "ttl-1", "trial": {"duration_s": DURATION_S, "drain_s": 0.5, "settle_s": 0.5},
        "frame_sizes": [64], "streams": [{"id": 0, "tx_port": 1, "rx_port": 2, "ttl": 1}],
    }, "ttl-1")
    with TesterSession(load_topology(lab), profile, push_pipeline=True) as session:
        runner = SwitchTrialRunner(session)
        below = runner.run_trial(TrialSpec("exception-path", 0, 64, 400 / LINE_RATE_64B_PPS,
                                           DURATION_S))
        above = runner.run_trial(TrialSpec("exception-path", 1, 64,
                                           4 * icmp_limit / LINE_RATE_64B_PPS, DURATION_S))
    for trial in (below, above):
        (stream,) = trial.streams
        assert stream.rx_frames == 0  # nothing with TTL 1 is forwarded
    # Below the limit, the slow path answers every frame.
    assert below.rx_foreign == below.tx_frames == 800
    # Above it, replies come at the limit (plus its burst allowance), not the offered rate.
    reply_rate = above.rx_foreign / DURATION_S
    assert above.tx_frames == round(4 * icmp_limit * DURATION_S)
    assert 0.8 * icmp_limit <= reply_rate <= 1.2 * icmp_limit, (reply_rate, icmp_limit)
