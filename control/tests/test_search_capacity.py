"""A search goes no higher than the tester's calibrated capacity on this host
(runs.search_capacity): the cap per frame size, what the report says, and a throughput
run on a simulated DUT above and below the cap."""

from __future__ import annotations

from pathlib import Path

from p4tester.config.profile import Profile, load_profile
from p4tester.config.topology import Topology, load_topology
from p4tester.experiments.calibration import Calibration, SizeCapacity, save_calibration
from p4tester.experiments.recording import Recorder
from p4tester.experiments.simulated_runner import SimulatedDut, SimulatedRunner
from p4tester.experiments.throughput import SearchMethod, ThroughputConfig, run_throughput
from p4tester.runs.report_lines import capacity_lines
from p4tester.runs.search_capacity import search_capacity
from p4tester.search import SearchGoal
from p4tester.streams.rates import line_rate_pps

REPO = Path(__file__).resolve().parents[2]
FIVE_MBIT = 5e6
SHORT = {"final_trial_duration_s": 1.0, "initial_trial_duration_s": 0.1}


def stored(tmp_path: Path, fraction: float, target: str = "bmv2") -> Path:
    """A calibration of the 5-Mbit/s loopback port: `fraction` of its 64-B line rate."""
    calibration = Calibration("host", "topologies/loopback.yaml", 0.0,
                              (SizeCapacity(64, FIVE_MBIT, (fraction,) * 3),), target)
    return save_calibration(calibration, tmp_path / "calibration.json")


def demo_lab() -> tuple[Topology, Profile]:
    topology = load_topology(REPO / "topologies/bmv2-dut.yaml")
    return topology, load_profile(REPO / "topologies/profiles/one-stream.yaml", topology)


def test_the_cap_is_nine_tenths_of_the_capacity_where_that_is_below_line_rate(
        tmp_path: Path) -> None:
    topology, profile = demo_lab()
    path = stored(tmp_path, 0.8)  # 5952 frames/s at 64 B; 1518 B's line rate is 406
    capacity = search_capacity((64, 1518), topology, profile, path)
    assert capacity.max_fractions == ((64, 0.9 * 0.8),)
    assert capacity.notes[0].startswith(
        "64 B: the search offers at most 5357 frames/s (72.00% of line rate): 90% of the "
        "tester's loss-free rate on this host is 5952 frames/s at 64 B (")
    assert capacity.notes[1].startswith(
        "1518 B: the tester's loss-free rate on this host is 5952 frames/s at 64 B (")
    assert capacity.notes[1].endswith(": the search starts at line rate (406 frames/s)")


def test_no_cap_without_a_calibration_or_with_another_targets(tmp_path: Path) -> None:
    topology, profile = demo_lab()
    nothing = search_capacity((64,), topology, profile,
                              tmp_path / "none.json")
    assert (nothing.max_fractions, nothing.notes) == ((), ())
    ebpf = search_capacity((64,), topology, profile,
                           stored(tmp_path, 0.5, target="ebpf"))
    assert (ebpf.max_fractions, ebpf.notes) == ((), ())
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    ignored = search_capacity((64,), topology, profile, broken)
    assert ignored.max_fractions == ()
    assert ignored.notes[0].startswith(f"searches start at line rate: ignoring {broken}: ")


def test_a_calibration_without_a_target_is_bmv2s(tmp_path: Path) -> None:
    from p4tester.experiments.calibration import calibration_from_dict, calibration_to_dict

    written = calibration_to_dict(Calibration("h", "l.yaml", 0.0,
                                              (SizeCapacity(64, FIVE_MBIT, (0.5,)),), "ebpf"))
    assert written["target"] == "ebpf"
    assert calibration_from_dict(written, "x").target == "ebpf"
    del written["target"]
    assert calibration_from_dict(written, "x").target == "bmv2"


def capped_run(dut_fraction: float) -> list[str]:
    """A throughput search at 64 B capped at 0.72 of line rate on a DUT that forwards
    `dut_fraction` of it; the report's capacity lines."""
    config = ThroughputConfig(FIVE_MBIT, (64,), method=SearchMethod.BINARY,
                              ndr=SearchGoal.ndr(**SHORT), pdr=SearchGoal.pdr(0.005, **SHORT),
                              max_fractions=((64, 0.72),))
    dut = SimulatedDut(capacity_by_size=lambda size: dut_fraction)
    recorder = Recorder(SimulatedRunner(dut))
    result = run_throughput(config, recorder)
    assert max(t.offered_fraction for t in recorder.trials) == 0.72
    found = result.at(64)
    if dut_fraction >= 0.72:
        assert found.ndr.at_tester_capacity and found.ndr.tester_limited
        assert found.ndr.lower_fraction == 0.72 and found.ndr.upper is None
        assert result.points()[0].ndr_tester_limited
    else:
        assert not found.ndr.at_tester_capacity and not found.ndr.tester_limited
        assert found.ndr.upper_fraction is not None
        assert found.ndr.lower_fraction is not None
        assert found.ndr.lower_fraction <= dut_fraction <= found.ndr.upper_fraction
    return capacity_lines(result)


def test_a_dut_above_the_cap_is_reported_at_the_testers_capacity() -> None:
    pps = 0.72 * line_rate_pps(FIVE_MBIT, 64)
    assert capped_run(1.0) == [
        f"64 B NDR >= {pps:.0f} frames/s (72.00 %): the tester's capacity here; the DUT met "
        "the goal up to it, and its limit may lie anywhere above",
        f"64 B PDR >= {pps:.0f} frames/s (72.00 %): the tester's capacity here; the DUT met "
        "the goal up to it, and its limit may lie anywhere above"]


def test_a_dut_below_the_cap_is_measured_as_without_one() -> None:
    assert capped_run(0.403) == []
