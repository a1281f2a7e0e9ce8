"""Latency, jitter and histogram bins on the eBPF target. The program's clock is
the kernel's monotonic clock (ns), which Python reads too: frames stamped 1, 2
and 3 s in the past have latencies of those seconds plus their time on the
wire, so every figure follows exactly from the three latencies the registers
hold, and their bins are known."""

from __future__ import annotations

import time

from p4tester.dataplane.constants import IP_VERSION_4
from p4tester.dataplane.headers import TesterHeader, epoch_flags
from p4tester.targets.ebpf.tester import EbpfTester

from .checker_helpers import settle
from .frames import send, stream_frame

SECOND_NS = 1_000_000_000
# Time on the wire and in the program may add this much to a latency on a busy host.
SLACK_NS = 400_000_000


def test_latency_min_max_sum_jitter_and_bins(tester: EbpfTester) -> None:
    tester.expect_stream(0, run=0, epoch_flags=epoch_flags(0), rx_port=2,
                         ip_version=IP_VERSION_4)
    tester.clear_stream(0)
    tester.set_latency_bins([0, SECOND_NS * 3 // 2, SECOND_NS * 5 // 2, SECOND_NS * 7 // 2])
    now = time.monotonic_ns()
    ages = [2 * SECOND_NS, 3 * SECOND_NS, 1 * SECOND_NS]
    send("p4eb2b", [bytes(stream_frame(TesterHeader(stream_id=0, seq=seq,
                                                    tx_ts=(now - age) & 0xFFFFFFFF)))
                    for seq, age in enumerate(ages)])
    settle(tester, 3)
    state = tester.read_stream_registers(0)
    # Latencies l0 ~ 2 s, l1 ~ 3 s (the largest), l2 ~ 1 s (the smallest, the last).
    l2 = state.latency_min
    l1 = state.latency_max
    l0 = state.latency_sum - l1 - l2
    assert state.rx_samples == 3
    assert state.last_latency == l2
    assert state.jitter_sum == (l1 - l0) + (l1 - l2)
    for latency, age in ((l0, ages[0]), (l1, ages[1]), (l2, ages[2])):
        assert age <= latency < age + SLACK_NS
    histogram = tester.histogram("latency_hist", 0)
    assert histogram[:3] == [1, 1, 1]
    assert sum(histogram) == 3
