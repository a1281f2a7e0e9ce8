"""What the labs do for the tester's capacity (issue 20): the BMv2 build they run, the
link MTU that sizes the switch's capture rings, the frames a link carries, and the trial a
switch too busy to answer becomes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.topology import DEFAULT_LINK_MTU, topology_from_dict
from p4tester.dataplane.program import DataplaneError, SwitchUnansweredError
from p4tester.lab import processes
from p4tester.lab.netdev import LabError
from p4tester.results.checks import TESTER_LIMITED, PortCheck, SelfCheck
from p4tester.results.model import TrialResult
from p4tester.results.serialize import trial_from_dict, trial_to_dict
from p4tester.tester.link_frames import check_frame_fits, max_link_frame

REPO = Path(__file__).resolve().parents[2]


def topology(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"name": "t", "ports": {1: {"line_rate": "5Mbps", "peer": "2"},
                                                   2: {"line_rate": "5Mbps", "peer": "1"}}}
    data.update(changes)
    return data


def test_the_default_link_mtu_carries_rfc_2544_sizes_with_a_tag() -> None:
    topo = topology_from_dict(topology(), "t.yaml")
    assert topo.link_mtu == DEFAULT_LINK_MTU == 1500
    assert topo.max_lab_frame == 1522


def test_a_jumbo_lab_says_so() -> None:
    topo = topology_from_dict(topology(link_mtu=9500), "t.yaml")
    assert (topo.link_mtu, topo.max_lab_frame) == (9500, 9522)


@pytest.mark.parametrize("value", [1279, 9501, "9500", True, 1500.5])
def test_a_bad_link_mtu_names_the_range_and_the_fix(value: object) -> None:
    with pytest.raises(ConfigError, match=r"t.yaml: link_mtu: .* is not an MTU in 1280..9500; "
                                          r"use 1500 \(frames up to 1522 B\) or 9500"):
        topology_from_dict(topology(link_mtu=value), "t.yaml")


def test_link_mtu_is_for_veth_labs() -> None:
    with pytest.raises(ConfigError, match="link_mtu is for lab: veth"):
        topology_from_dict(topology(link_mtu=9500, lab="mininet"), "t.yaml")


def test_the_ptf_lab_is_jumbo_and_the_measurement_labs_are_not() -> None:
    from p4tester.config.topology import load_topology

    assert load_topology(REPO / "topologies/ptf.yaml").link_mtu == 9500
    for name in ("loopback", "bmv2-dut", "bench-loopback"):
        assert load_topology(REPO / f"topologies/{name}.yaml").link_mtu == 1500


def sysfs(tmp_path: Path, name: str, mtu: int) -> Path:
    (tmp_path / name).mkdir()
    (tmp_path / name / "mtu").write_text(f"{mtu}\n")
    return tmp_path


def test_a_link_carries_frames_up_to_its_mtu_plus_header_tag_and_fcs(tmp_path: Path) -> None:
    root = sysfs(tmp_path, "p4lt1", 1500)
    assert max_link_frame("p4lt1", root) == 1522
    check_frame_fits("p4lt1", 1522, "stream 0, port 1", root)
    with pytest.raises(ConfigError, match=r"^stream 0, port 1: 1523-B frames do not fit lab link "
                                          r"p4lt1 \(frames up to 1522 B at its MTU\); set "
                                          r"link_mtu: 9500 in the topology for jumbo frames$"):
        check_frame_fits("p4lt1", 1523, "stream 0, port 1", root)


def test_a_port_with_no_host_interface_is_not_checked(tmp_path: Path) -> None:
    assert max_link_frame("1/0", tmp_path) is None
    check_frame_fits("1/0", 9216, "stream 0, port 1", tmp_path)


def test_labs_run_the_measurement_build_unless_a_trace_is_wanted(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    measurement = tmp_path / "simple_switch_grpc"
    measurement.write_text("#!/bin/sh\n")
    measurement.chmod(0o755)
    monkeypatch.setitem(processes.SWITCH_BINARIES, processes.MEASUREMENT, str(measurement))
    monkeypatch.delenv(processes.BUILD_ENV, raising=False)
    assert processes.switch_binary(log=False) == str(measurement)
    assert processes.switch_binary(log=True) == "simple_switch_grpc"
    monkeypatch.setenv(processes.BUILD_ENV, "logging")
    assert processes.switch_binary(log=False) == "simple_switch_grpc"


def test_a_missing_measurement_build_names_the_install_and_the_way_around(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(processes.SWITCH_BINARIES, processes.MEASUREMENT,
                        str(tmp_path / "absent"))
    monkeypatch.delenv(processes.BUILD_ENV, raising=False)
    with pytest.raises(LabError, match=r"measurement build of BMv2 .* is not installed: run "
                                       r"'make setup' .* or set P4TESTER_BMV2_BUILD=logging"):
        processes.switch_binary(log=False)
    monkeypatch.setenv(processes.BUILD_ENV, "fast")
    with pytest.raises(LabError, match="P4TESTER_BMV2_BUILD='fast': use measurement or logging"):
        processes.switch_binary(log=False)


def test_an_unanswered_request_blames_the_load_first() -> None:
    error = SwitchUnansweredError("register read", 0, 2.0)
    assert isinstance(error, DataplaneError)
    assert str(error).startswith("the switch did not answer the in-band register read of "
                                 "stream 0 within 2 s: it is busy (a load above what it "
                                 "processes, or a host that starves it)")


def unanswered_trial() -> TrialResult:
    reason = ("the switch did not answer the in-band clear of stream 0 within 2 s: ... "
              "(host load 3.10 on 2 CPUs, CPU steal 12%)")
    return TrialResult(experiment="throughput", trial_index=4, offered_fraction=1.0,
                       offered_pps=148810.0, duration_s=1.0, frame_size=64, valid=False,
                       error=f"{TESTER_LIMITED}: {reason}",
                       self_check=SelfCheck((), unvouched=reason))


def test_a_switch_that_did_not_answer_makes_the_trial_tester_limited() -> None:
    trial = unanswered_trial()
    assert trial.self_check is not None
    assert not trial.self_check.ok
    assert trial.tester_limited and trial.host_limited
    assert trial.invalid_reason == TESTER_LIMITED
    assert trial.self_check.describe().startswith("the switch did not answer the in-band clear")
    # No figures were read: nothing of it can pass for the DUT's loss.
    assert (trial.tx_frames, trial.rx_frames, trial.host_dropped) == (0, 0, 0)


def test_an_unanswered_check_survives_the_results_file() -> None:
    trial = unanswered_trial()
    written = json.loads(json.dumps(trial_to_dict(trial)))
    assert written["self_check"]["ok"] is False
    assert written["self_check"]["unvouched"] == trial.error.split(": ", 1)[1]  # type: ignore[union-attr]
    assert trial_from_dict(written) == trial


def test_an_answered_check_is_written_as_before() -> None:
    port = PortCheck(1, "p4lt1", 10, 10, 0, 0, 10, 10)
    trial = TrialResult(experiment="x", trial_index=0, offered_fraction=0.5, offered_pps=10.0,
                        duration_s=1.0, frame_size=64, self_check=SelfCheck((port,)))
    written = trial_to_dict(trial)
    assert "unvouched" not in written["self_check"]  # type: ignore[operator]
    assert trial_from_dict(json.loads(json.dumps(written))) == trial


def test_a_lab_needs_its_dut_limit_with_a_margin_and_nothing_without_one() -> None:
    from p4tester.config.dut_limits import DutLimit, dut_limit, lab_need

    fast_dut = topology_from_dict(topology(ports={1: {"line_rate": "5Mbps", "peer": "dut:1"},
                                                  2: {"line_rate": "5Mbps", "peer": "dut:2"}},
                                           dut={"kind": "bmv2", "queue_rate_pps": 5000}),
                                  "t.yaml")
    need = lab_need(fast_dut)
    assert need is not None and need.frames_per_s == 6250.0
    assert need.reason == "1.25 x the DUT's limit of 5000 frames/s (t.yaml: dut: queue_rate_pps)"
    # The demo's DUT (3000 frames/s) needs 3750, whatever its ports' line rate: a search
    # stops at the tester's capacity, so the ports need not be carried at line rate.
    bmv2 = topology_from_dict(topology(dut={"kind": "bmv2", "queue_rate_pps": 3000}), "b.yaml")
    assert dut_limit(bmv2) is not None
    bmv2_need = lab_need(bmv2)
    assert bmv2_need is not None and bmv2_need.frames_per_s == 3750.0
    assert lab_need(topology_from_dict(topology(), "l.yaml")) is None
    # tbf rate 1mbit: 10^6 / (60 B x 8) frames/s of 64 B (tc counts no FCS).
    router = topology_from_dict(topology(dut={"kind": "linux", "qdisc": "tbf rate 1mbit "
                                              "burst 3000 limit 30000"}), "r.yaml")
    limit = dut_limit(router)
    assert limit is not None and round(limit.frames_per_s, 1) == 2083.3
    assert limit.source == "r.yaml: dut: qdisc 'tbf rate 1mbit burst 3000 limit 30000'"
    assert dut_limit(topology_from_dict(topology(), "l.yaml")) is None
    # A queue rate per port (the Y.1564 lab): the ports together.
    shaped = topology_from_dict(topology(dut={"kind": "bmv2", "queue_rate_pps": 3000,
                                              "queue_rates_pps": "2:222, 4:88"}), "s.yaml")
    assert dut_limit(shaped) == DutLimit(310.0, "s.yaml: dut: queue_rates_pps")


def test_per_port_queue_rates_override_the_common_one() -> None:
    from p4tester.config.dut_limits import port_queue_rates
    from p4tester.lab.bmv2_dut import configure_dut_queues

    class Thrift:
        def __init__(self) -> None:
            self.commands: list[str] = []

        def run(self, commands: list[str]) -> None:
            self.commands.extend(commands)

    thrift = Thrift()
    settings = {"queue_rate_pps": "3000", "queue_rates_pps": "2:222,4:88", "queue_depth": "16"}
    configure_dut_queues(thrift, settings, {1: 2, 3: 4, 5: 6}, "s.yaml")  # type: ignore[arg-type]
    assert thrift.commands == ["set_queue_rate 222 2", "set_queue_depth 16 2",
                               "set_queue_rate 88 4", "set_queue_depth 16 4",
                               "set_queue_rate 3000 6", "set_queue_depth 16 6"]
    with pytest.raises(ConfigError, match=r"dut.queue_rates_pps '2=222': give 'port:frames/s"):
        port_queue_rates({"queue_rates_pps": "2=222"}, "s.yaml")


@pytest.mark.parametrize(("text", "bps"), [("1mbit", 1e6), ("500kbit", 5e5), ("2mbps", 16e6),
                                           ("1.5gbit", 1.5e9), ("800bit", 800.0)])
def test_tc_rates(text: str, bps: float) -> None:
    from p4tester.config.dut_limits import tc_rate_bps

    assert tc_rate_bps(text, "t.yaml: dut: qdisc") == bps


def test_a_tc_rate_that_is_not_one_names_the_form() -> None:
    from p4tester.config.dut_limits import tc_rate_bps

    with pytest.raises(ConfigError, match=r"t.yaml: dut: qdisc: rate '1 megabit' is not a tc "
                                          r"rate such as 1mbit or 500kbit"):
        tc_rate_bps("1 megabit", "t.yaml: dut: qdisc")


def calibration(fraction: float, line_rate_bps: float = 5e6) -> Any:
    from p4tester.experiments.calibration import Calibration, SizeCapacity

    return Calibration("h", "loopback.yaml", 0.0,
                       (SizeCapacity(64, line_rate_bps, (fraction,)),
                        SizeCapacity(1518, line_rate_bps, (1.0,))))


def test_a_host_that_carries_the_need_passes_and_one_that_does_not_says_both_figures() -> None:
    from p4tester.experiments.calibration import capacity_shortfall

    # 5 Mbit/s at 64 B is 7440.48 frames/s; the tester carried all of it.
    assert capacity_shortfall(calibration(1.0), 6000.0, "why") is None
    assert capacity_shortfall(calibration(1.0), 7440.0, "why") is None
    # 40 % of it: 2976 frames/s, below a 3000-frames/s DUT's 6000.
    assert capacity_shortfall(calibration(0.4), 6000.0, "2 x the DUT's limit") == (
        "this host is too slow for the lab: the tester carries 2976 frames/s loss-free at "
        "64 B here, and the lab needs 6000 (2 x the DUT's limit); run it on a less loaded "
        "host or with lower DUT limits")
    # Measured at the port's line rate, the capacity is a lower bound, and says so.
    assert "7440 frames/s loss-free at 64 B here (the calibration port's line rate)" in str(
        capacity_shortfall(calibration(1.0), 9000.0, "why"))
