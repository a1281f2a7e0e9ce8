"""The command line: validate needs no switch; every bad input and an unreachable
switch end with one clear message and the documented exit code."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from p4tester.cli import exit_codes
from p4tester.program import main

REPO = Path(__file__).resolve().parents[2]
TOPOLOGY = REPO / "topologies/loopback.yaml"
PROFILE = REPO / "topologies/profiles/one-stream.yaml"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_validate_prints_rates_and_says_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-t", str(TOPOLOGY), "-p", str(PROFILE)]) == exit_codes.OK
    out = capsys.readouterr().out
    assert "7440.5" in out  # 64 B at 5 Mbit/s
    assert out.rstrip().endswith("valid")


def test_validate_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-t", str(TOPOLOGY), "-p", str(PROFILE), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["valid"] is True
    sizes = [row["frame_size"] for row in document["streams"]]
    assert sizes == [64, 512, 1518]
    assert document["streams"][0]["udp_payload"] == 18


def test_bad_profile_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text("name: p\nstreams:\n  - {id: 0, tx_port: 1, rx_port: 5}\n")
    assert main(["validate", "-t", str(TOPOLOGY), "-p", str(profile)]) == exit_codes.BAD_INPUT
    assert "port 5 is not in the topology" in capsys.readouterr().err


def test_load_above_line_rate_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["latency", "-t", str(TOPOLOGY), "-p", str(PROFILE), "-o", "x",
                 "--frame-size", "64", "--load", "120%"])
    assert code == exit_codes.BAD_INPUT
    assert "above the port's 5 Mbit/s line rate" in capsys.readouterr().err


def test_pps_load_above_line_rate_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # 5 Mbit/s at 1518 B is 406.4 frames/s.
    code = main(["soak", "-t", str(TOPOLOGY), "-p", str(PROFILE), "-o", "x",
                 "--frame-size", "1518", "--load", "500pps", "--total", "2"])
    assert code == exit_codes.BAD_INPUT
    assert "load 500 pps" in capsys.readouterr().err


def test_load_units_convert_at_the_frame_size() -> None:
    from p4tester.config.profile import load_profile
    from p4tester.config.topology import load_topology
    from p4tester.runs.loads import fraction_at
    from p4tester.runs.option_parsers import load_rate

    topology = load_topology(TOPOLOGY)
    profile = load_profile(PROFILE, topology)
    line_pps = 5e6 / (84 * 8)
    assert fraction_at(load_rate("50%"), 64, topology, profile) == pytest.approx(0.5)
    assert fraction_at(load_rate("0.25"), 64, topology, profile) == pytest.approx(0.25)
    assert fraction_at(load_rate("3000pps"), 64, topology, profile) == pytest.approx(
        3000 / line_pps)
    assert fraction_at(load_rate("2.5Mbps"), 512, topology, profile) == pytest.approx(0.5)


def test_unreachable_switch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topology = tmp_path / "t.yaml"
    topology.write_text(
        TOPOLOGY.read_text()
        .replace("grpc: 127.0.0.1:9559", f"grpc: 127.0.0.1:{free_port()}\n  timeout_s: 0.5")
    )
    code = main(["throughput", "-t", str(topology), "-p", str(PROFILE), "-o",
                 str(tmp_path / "out")])
    assert code == exit_codes.SWITCH_UNAVAILABLE
    assert "is simple_switch_grpc running" in capsys.readouterr().err


def test_existing_results_need_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "trials.jsonl").write_text("")
    code = main(["soak", "-t", str(TOPOLOGY), "-p", str(PROFILE), "-o", str(out),
                 "--load", "10%", "--total", "2"])
    assert code == exit_codes.BAD_INPUT
    assert "pass --resume to continue that run" in capsys.readouterr().err


TOFINO_TOPOLOGY = REPO / "topologies/tofino-32x100g.yaml"
TOFINO_PROFILE = REPO / "topologies/profiles/tofino-32x100g.yaml"


def test_tofino_experiment_without_the_sde_says_what_to_install(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tofino topology selects the BfRt driver; here bfrt_grpc is absent."""
    code = main(["throughput", "-t", str(TOFINO_TOPOLOGY), "-p", str(TOFINO_PROFILE),
                 "-o", str(tmp_path / "tp")])
    assert code == exit_codes.SWITCH_UNAVAILABLE
    err = capsys.readouterr().err
    assert err.startswith("p4tester: the Tofino target needs the SDE's bfrt_grpc Python package")


def test_stats_on_tofino_is_refused_with_the_alternative(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["stats", "-t", str(TOFINO_TOPOLOGY), "-p", str(TOFINO_PROFILE)])
    assert code == exit_codes.BAD_INPUT
    assert "stats reads BMv2 counters; on tofino run an experiment" in capsys.readouterr().err


def test_calibrate_needs_a_loopback_topology(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["calibrate", "-t", str(REPO / "topologies/bmv2-dut.yaml")])
    assert code == exit_codes.BAD_INPUT
    assert ("calibrate measures the tester alone: " in capsys.readouterr().err)


def test_a_load_above_the_calibration_is_warned(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Stored calibration (--calibration): 3720 frames/s at 64 B. A soak at 60 % of the
    5 Mbit/s port (4464 frames/s) is warned about before the (unreachable) switch is
    tried."""
    from p4tester.experiments.calibration import Calibration, SizeCapacity, save_calibration

    stored = save_calibration(
        Calibration("h", "loopback", 0.0, (SizeCapacity(64, 5e6, (0.5,)),)),
        tmp_path / "calibration.json")
    topology = tmp_path / "t.yaml"
    topology.write_text(
        TOPOLOGY.read_text()
        .replace("grpc: 127.0.0.1:9559", f"grpc: 127.0.0.1:{free_port()}\n  timeout_s: 0.5")
    )
    code = main(["soak", "-t", str(topology), "-p", str(PROFILE), "-o", str(tmp_path / "o"),
                 "--load", "60%", "--total", "2", "--calibration", str(stored)])
    assert code == exit_codes.SWITCH_UNAVAILABLE
    err = capsys.readouterr().err
    assert ("warning: 4464 frames/s at 64 B is above the tester's own loss-free rate on this "
            "host (3720 frames/s at 64 B") in err


def test_a_search_that_cannot_go_on_ends_with_its_reason_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A trial that stays invalid stops the search (InvalidTrialError): the run says why,
    exits 1, and every trial it ran is in trials.jsonl (issue 21)."""
    from collections.abc import Iterator
    from contextlib import contextmanager

    from p4tester.cli import experiment_cmds
    from p4tester.experiments.runner import TrialSpec
    from p4tester.results.model import TrialResult

    class BrokenRunner:
        def run_trial(self, spec: TrialSpec) -> TrialResult:
            return TrialResult(experiment=spec.experiment, trial_index=spec.trial_index,
                               offered_fraction=spec.offered_fraction, offered_pps=0.0,
                               duration_s=spec.duration_s, frame_size=spec.frame_size,
                               valid=False, error="read failed")

    @contextmanager
    def broken(*_args: object, **_kwargs: object) -> Iterator[BrokenRunner]:
        yield BrokenRunner()

    monkeypatch.setattr(experiment_cmds, "open_trial_runner", broken)
    out = tmp_path / "out"
    code = main(["throughput", "-t", str(TOPOLOGY), "-p", str(PROFILE), "-o", str(out),
                 "--frame-sizes", "64", "--duration", "1"])
    assert code == exit_codes.INVALID_TRIALS
    err = capsys.readouterr().err
    # MLRsearch's first trials are short (half the final duration).
    assert "throughput stopped: trial at 1 of line rate for 0.5 s was invalid twice in a row: " \
           "first read failed; then read failed" in err
    assert "Traceback" not in err
    trials = [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]
    assert [t["trial"]["error"] for t in trials if "trial" in t] == ["read failed"] * 2


def test_version_is_the_installed_packages(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import metadata

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"p4tester {metadata.version('p4tester')}\n"


def test_a_count_of_zero_is_refused_before_the_switch(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["latency", "-t", "topologies/loopback.yaml", "-p",
              "topologies/profiles/one-stream.yaml", "--frame-size", "64", "--load", "10%",
              "--trials", "0"])
    assert done.value.code == exit_codes.BAD_INPUT
    assert "argument --trials: '0': give 1 or more" in capsys.readouterr().err


def test_a_simulated_throughput_search_needs_no_switch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The simulated DUT forwards 55 % of line rate at 64 B (4092 of the 7440.48
    frames/s of the 5 Mbit/s port) and line rate from 512 B: the search finds the
    highest load below that within its resolution, the same every run."""
    out = tmp_path / "sim"
    code = main(["throughput", "-t", str(TOPOLOGY), "-p", str(PROFILE), "-o", str(out),
                 "--simulate", "--frame-sizes", "64,512"])
    assert code == exit_codes.OK
    printed = capsys.readouterr()
    rows = [line.split()[:3] for line in printed.out.splitlines()[2:4]]
    assert rows == [["64", "54.75", "4074"], ["512", "100.00", "1175"]]
    assert printed.err.endswith("p4tester: measured on the simulated switch and DUT "
                                "(--simulate), not on a device\n")
    confidence = json.loads((out / "summary.json").read_text())["confidence"]
    # 7 trials at 64 B (the search), 3 at 512 B (line rate at each trial duration).
    assert (confidence["trials"], confidence["unchecked"]) == (10, 10)


def test_a_queue_sweep_is_refused_on_the_simulated_switch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["queue-sweep", "-t", str(TOPOLOGY), "-p", str(PROFILE), "-o",
                 str(tmp_path / "q"), "--simulate"])
    assert code == exit_codes.BAD_INPUT
    assert "queue-sweep steps a bmv2 DUT's buffer over thrift: it needs a lab switch, not " \
        "--simulate" in capsys.readouterr().err
