"""A DUT that delays every frame by D: the tester's latency is D plus the lab's base
latency (topologies/bmv2-delay.yaml; the reference DUT's P4 delay stands in for
netem's, which this kernel lacks). The base is measured in the same lab with the
delay set to 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import load_topology
from p4tester.dataplane import names
from p4tester.experiments.runner import TrialSpec
from p4tester.lab.dut_impairments import DutImpairments, impairment_entities
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.results.model import LatencyStats
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import SwitchTrialRunner

LINE_RATE_64B_PPS = 5e6 / (84 * 8)
# A held frame leaves at the first pass of the DUT's recirculation loop after its
# release time. On an idle BMv2 a pass waits for thread wake-ups (at 200 frames/s
# releases came 127 us late on average); at 500 frames/s about one frame is always
# in the loop and passes take some microseconds.
RATE_PPS = 500
DURATION_S = 2.0
DELAY_US = 2000  # topologies/bmv2-delay.yaml
RESOLUTION_US = 1.0  # BMv2's clock
DUT_SCHEMA = "p4src/build/dut.p4info.txt"
DELAYED, DELAY_PASSES = 5, 6  # cells of the DUT's impairment counter
MAX_ATTEMPTS = 3
# Bins fine enough (20 us) where the base's and the delayed trial's medians fall: 15
# from 0 to 300 us, one wide bin, 15 from D to D + 300 us (31 bins, all the data plane
# has). A median in the wide bin fails the test: a base latency above 300 us is a lab
# too starved to test with.
BIN_US = 20
LATENCY_BINS_US = [*range(0, 301, BIN_US), *range(DELAY_US, DELAY_US + 301, BIN_US)]


def set_dut_delay(grpc: str, delay_us: int) -> None:
    schema = P4InfoSchema.from_text_file(DUT_SCHEMA)
    with P4RuntimeClient(grpc) as client:
        client.modify(*impairment_entities(schema, DutImpairments(delay_us=delay_us), {1: 2}))


def dut_pass_time_us(grpc: str) -> float:
    """The DUT's release granularity: the mean time of one pass of its hold loop
    (a delayed frame leaves at the first pass after its release time)."""
    schema = P4InfoSchema.from_text_file(DUT_SCHEMA)
    with P4RuntimeClient(grpc) as client:
        counts = client.read_counter(schema, names.DUT_IMPAIRED)
    return DELAY_US * counts[DELAYED].packets / counts[DELAY_PASSES].packets


@pytest.mark.topology("bmv2-delay.yaml")
def test_latency_is_the_delay_plus_the_base_latency(lab: Path) -> None:
    topology = load_topology(lab)
    profile = profile_from_dict({
        "name": "delay", "trial": {"duration_s": DURATION_S, "drain_s": 0.5},
        "frame_sizes": [64], "latency_bins_us": LATENCY_BINS_US,
        "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}],
    }, "delay")
    grpc = dict(topology.dut.settings)["grpc"]
    latency: dict[int, LatencyStats] = {}
    with TesterSession(topology, profile, push_pipeline=True) as session:
        runner = SwitchTrialRunner(session)
        for index, delay in enumerate((DELAY_US, 0)):
            set_dut_delay(grpc, delay)
            # A trial the tester or the lab DUT cannot vouch for (a busy host starved
            # one of the BMv2s: issue 10's self-check) is run again, at most 3 times.
            for attempt in range(MAX_ATTEMPTS):
                trial = runner.run_trial(TrialSpec("delay", 10 * index + attempt, 64,
                                                   RATE_PPS / LINE_RATE_64B_PPS, DURATION_S))
                if trial.valid:
                    break
            assert trial.valid, trial.error
            (stream,) = trial.streams
            assert stream.rx_frames == stream.tx_frames == RATE_PPS * DURATION_S
            assert stream.latency is not None
            latency[delay] = stream.latency
    pass_us = dut_pass_time_us(grpc)  # only the delayed trial made passes
    delayed, base = latency[DELAY_US], latency[0]
    # The fastest frame took D more than the fastest base frame, within the base
    # latency's own spread (its mean |IPDV|: the minima of two trials differ by about
    # that much), the DUT's release granularity and the clock's resolution. Seen:
    # errors of -38 to +6 us, spread 24-75 us, passes of 60-69 us.
    tolerance = base.jitter_us + pass_us + RESOLUTION_US
    assert abs(delayed.min_us - (base.min_us + DELAY_US)) <= tolerance, (delayed, base, pass_us)
    # The typical frame (the median, RFC 8219's typical latency) took D more too. Not
    # the mean: on a busy host the DUT's BMv2 is starved now and then and releases
    # some held frames milliseconds late (seen with one core busy: 30 % of them, mean
    # 3284 us for D = 2000 us, while the DUT's passes averaged 13 us), which moves a
    # mean by any amount and the median little. Tolerance: the base's spread, the
    # DUT's release granularity, and interpolation inside a bin for each median.
    assert delayed.p50_us is not None and base.p50_us is not None, (delayed, base)
    median_tolerance = base.jitter_us + pass_us + 2 * BIN_US + RESOLUTION_US
    assert abs(delayed.p50_us - (base.p50_us + DELAY_US)) <= median_tolerance, (
        delayed, base, pass_us)
