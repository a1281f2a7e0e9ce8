"""A DUT that delays every frame by D: the tester's latency is D plus the lab's base
latency (topologies/bmv2-delay.yaml; the reference DUT's P4 delay stands in for
netem's, which this kernel lacks). The base is measured in the same lab with the
delay set to 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialSpec
from p4tester.lab.dut_impairments import DutImpairments, impairment_entities
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.results.model import LatencyStats
from p4tester.tester.session import SwitchTrialRunner, TesterSession

LINE_RATE_64B_PPS = 5e6 / (84 * 8)
RATE_PPS = 500
DURATION_S = 2.0
DELAY_US = 2000  # topologies/bmv2-delay.yaml
RESOLUTION_US = 1.0  # BMv2's clock


def set_dut_delay(grpc: str, delay_us: int) -> None:
    schema = P4InfoSchema.from_text_file("p4src/build/dut.p4info.txt")
    with P4RuntimeClient(grpc) as client:
        client.modify(*impairment_entities(schema, DutImpairments(delay_us=delay_us), {1: 2}))


@pytest.mark.topology("bmv2-delay.yaml")
def test_latency_is_the_delay_plus_the_base_latency(lab: Path) -> None:
    topology = load_topology(lab)
    profile = profile_from_dict({
        "name": "delay", "trial": {"duration_s": DURATION_S, "drain_s": 0.5},
        "frame_sizes": [64], "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}],
    }, "delay")
    grpc = dict(topology.dut.settings)["grpc"]
    latency: dict[int, LatencyStats] = {}
    with TesterSession(topology, profile, push_pipeline=True) as session:
        runner = SwitchTrialRunner(session)
        for index, delay in enumerate((DELAY_US, 0)):
            set_dut_delay(grpc, delay)
            trial = runner.run_trial(TrialSpec("delay", index, 64,
                                               RATE_PPS / LINE_RATE_64B_PPS, DURATION_S))
            (stream,) = trial.streams
            assert stream.rx_frames == stream.tx_frames == RATE_PPS * DURATION_S
            assert stream.latency is not None
            latency[delay] = stream.latency
    delayed, base = latency[DELAY_US], latency[0]
    # Never early: the fastest delayed frame took D more than the fastest base frame.
    assert delayed.min_us >= base.min_us + DELAY_US - RESOLUTION_US
    # On average D more, within the base latency's own spread (its p99 above its
    # median) plus one pass of the DUT's hold loop.
    assert base.p50_us is not None and base.p99_us is not None
    spread = base.p99_us - base.p50_us
    assert abs(delayed.avg_us - (base.avg_us + DELAY_US)) <= spread + 100.0, (delayed, base)
