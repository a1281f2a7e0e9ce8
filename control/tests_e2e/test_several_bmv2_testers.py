"""Two BMv2 testers, each a switch of its own, joined through the reference DUT
(topologies/bmv2-two-testers.yaml): streams each way, one-way figures corrected by
the offset the probes measure, and that offset the one the run gave east's clock."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from p4tester.config.topology import load_topology
from p4tester.results.clocks import ClockRecord
from p4tester.targets.bmv2_thrift import Bmv2Thrift

from conftest import REPO, valid_latency_trials

INJECTED_OFFSET_US = 1500  # topologies/bmv2-two-testers.yaml, east's simulated clock
LOAD_PPS = 500


def east_minus_west_us(record: ClockRecord) -> float:
    return record.offset_us if record.a == "west" else -record.offset_us


@pytest.fixture
def no_drift(tmp_path: Path) -> Path:
    """The lab's topology with east's offset and no drift: the offset stays the
    injected one through the run."""
    data = yaml.safe_load((REPO / "topologies/bmv2-two-testers.yaml").read_text())
    data["testers"]["east"]["simulated_clock"] = {"offset_us": INJECTED_OFFSET_US}
    variant = tmp_path / "two-bmv2-testers.yaml"
    variant.write_text(yaml.safe_dump(data))
    return variant


@pytest.mark.topology("bmv2-two-testers.yaml")
def test_two_bmv2_testers_measure_the_injected_offset_and_lose_nothing(
        lab: Path, no_drift: Path, tmp_path: Path) -> None:
    """Each switch's clock is set to this host's (to within what thrift reads of it
    tell) plus east's 1.5 ms: the probes find 1.5 ms within their stated uncertainty
    and those reads' spans; every frame of both streams arrives; no one-way delay is
    below zero."""
    trials = valid_latency_trials(no_drift, "topologies/profiles/two-testers.yaml",
                                  tmp_path / "out", load_pps=LOAD_PPS, trials=2)
    # How closely a switch's clock can be set to the host's: the same reads the
    # controller makes, now (each switch's start, known to within half a read's span).
    topology = load_topology(no_drift)
    setting_us = sum(Bmv2Thrift(t.switch.thrift_port).clock_start_us().within_us
                     for t in topology.testers)
    for trial in trials:
        (record,) = trial.clocks
        assert record.jump == "", record
        assert abs(east_minus_west_us(record) - INJECTED_OFFSET_US) \
            <= record.uncertainty_us + 2 * setting_us, (record, setting_us)
        assert {record.direction(0), record.direction(1)} == {("west", "east"),
                                                              ("east", "west")}
        for stream in trial.streams:
            assert stream.rx_frames == stream.tx_frames > 0, stream
            assert stream.latency is not None and stream.latency.min_us >= 0, stream
