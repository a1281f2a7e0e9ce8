"""A DUT that delays every frame by D: the tester's latency is D plus the lab's base
latency (topologies/bmv2-delay.yaml; the reference DUT's P4 delay stands in for
netem's, which this kernel lacks). The base is measured in the same lab with the
delay set to 0."""

from __future__ import annotations

import statistics
from itertools import pairwise
from pathlib import Path

import pytest
from capture import capture_received, capture_sent, frame_latencies_us, stream_times

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import load_topology
from p4tester.dataplane import names
from p4tester.experiments.runner import TrialSpec
from p4tester.lab import ifaces
from p4tester.lab.dut_impairments import DutImpairments, impairment_entities
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.results.latency import P50
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
# The tester stamps frames in its switch, the captures where tcpdump taps the tester's
# ports: a frame's two latencies differ by that path (the eBPF bursts lab: up to 16 us).
TAP_TOLERANCE_US = 100.0
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
def test_latency_is_the_delay_plus_the_base_latency(lab: Path, tmp_path: Path) -> None:
    topology = load_topology(lab)
    profile = profile_from_dict({
        "name": "delay", "trial": {"duration_s": DURATION_S, "drain_s": 0.5, "settle_s": 0.5},
        "frame_sizes": [64], "latency_bins_us": LATENCY_BINS_US,
        "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}],
    }, "delay")
    grpc = dict(topology.dut.settings)["grpc"]
    latency: dict[int, LatencyStats] = {}
    captured: dict[int, dict[int, float]] = {}
    own_spike_us: dict[int, float] = {}  # the tester's own, from its reference stream
    with TesterSession(topology, profile, push_pipeline=True) as session:
        runner = SwitchTrialRunner(session)
        for index, delay in enumerate((DELAY_US, 0)):
            set_dut_delay(grpc, delay)
            # A trial the tester or the lab DUT cannot vouch for (a busy host starved
            # one of the BMv2s: issue 10's self-check) is run again, at most 3 times.
            for attempt in range(MAX_ATTEMPTS):
                trial_index = 10 * index + attempt
                sent_pcap = tmp_path / f"{trial_index}-sent.pcap"
                got_pcap = tmp_path / f"{trial_index}-got.pcap"
                with (capture_sent(ifaces.tester_iface(1), sent_pcap) as sent_capture,
                      capture_received(ifaces.tester_iface(2), got_pcap) as got_capture):
                    trial = runner.run_trial(TrialSpec("delay", trial_index, 64,
                                                       RATE_PPS / LINE_RATE_64B_PPS,
                                                       DURATION_S, reference_loop=True))
                if trial.valid:
                    break
            assert trial.valid, trial.error
            (stream,) = trial.streams
            assert stream.rx_frames == stream.tx_frames == RATE_PPS * DURATION_S
            assert stream.latency is not None
            assert (sent_capture.dropped_by_capture, got_capture.dropped_by_capture) == (0, 0)
            epoch = trial_index % 128
            sent, got = stream_times(sent_pcap, 0, epoch), stream_times(got_pcap, 0, epoch)
            assert len(sent) == len(got) == stream.rx_frames
            latency[delay] = stream.latency
            captured[delay] = frame_latencies_us(sent, got)
            assert trial.reference is not None
            own_spike_us[delay] = trial.reference.spike_us
    pass_us = dut_pass_time_us(grpc)  # only the delayed trial made passes
    delayed, base = latency[DELAY_US], latency[0]
    # The DUT held every frame at least D: its own rule, seen by the captures.
    assert min(captured[DELAY_US].values()) >= DELAY_US, min(captured[DELAY_US].values())
    # The fastest frame took D more than the fastest base frame, within the base
    # latency's own spread (its mean |IPDV|: the minima of two trials differ by about
    # that much), the DUT's release granularity and the clock's resolution. Seen:
    # errors of -38 to +6 us, spread 24-75 us, passes of 60-69 us.
    tolerance = base.jitter_us + pass_us + RESOLUTION_US
    assert abs(delayed.min_us - (base.min_us + DELAY_US)) <= tolerance, (delayed, base, pass_us)
    # Every figure of both trials is the frames' own, as the captures saw them: min,
    # max and the median (RFC 8219's typical latency). How long the typical frame took
    # is the DUT's: on a busy host its BMv2 is starved now and then and releases held
    # frames milliseconds late (seen: 529 of 1000 beyond D + 300 us, a median the
    # histogram can only bound), which the tester must report as it was.
    for delay, stats in latency.items():
        assert_figures_are_the_captures(stats, captured[delay], own_spike_us[delay])


def assert_figures_are_the_captures(stats: LatencyStats, captured: dict[int, float],
                                    own_spike_us: float) -> None:
    """The tester's figures against the captures' own, each within the tap tolerance
    plus what the tester's own latency varied by in the trial (its reference stream:
    the host holds up the tester's switch too, and a frame it reads late is stamped
    late; seen: 63 of 1000 frames pushed past an edge, the reference spiking by ms).
    min within that; the max at least the capture's; the median within a bin of the
    capture's, or, when the histogram only bounds it, the capture's at or above it."""
    slack = TAP_TOLERANCE_US + own_spike_us
    values = sorted(captured.values())
    assert abs(stats.min_us - values[0]) <= slack, (stats, values[0], own_spike_us)
    assert stats.max_us >= values[-1] - TAP_TOLERANCE_US, (stats, values[-1])
    median = statistics.median(values)
    assert stats.p50_us is not None, stats
    if stats.is_lower_bound(P50):
        last_edge = LATENCY_BINS_US[-1]
        assert median >= stats.p50_us - slack, (stats, median, own_spike_us)
        assert (count_at_or_above(values, last_edge + TAP_TOLERANCE_US)
                <= stats.beyond_histogram
                <= count_at_or_above(values, last_edge - slack)), (stats, median, own_spike_us)
    else:
        assert abs(stats.p50_us - median) <= _bin_width_at(stats.p50_us) + slack, (
            stats, median, own_spike_us)


def count_at_or_above(values: list[float], bound_us: float) -> int:
    return sum(1 for value in values if value >= bound_us)


def _bin_width_at(value_us: float) -> float:
    """The width of the histogram bin holding `value_us` (interpolation inside it)."""
    for low, high in pairwise(LATENCY_BINS_US):
        if low <= value_us <= high:
            return float(high - low)
    return float(BIN_US)
