"""ITU-T Y.1564 against policed services whose bandwidth profiles are known exactly
(experiments.simulated_services): a well configured service passes, a policer set
below CIR fails at the step where the loss begins, a DUT that lets the overshoot
through fails the policing test, and an outage costs availability as MEF 10.3 counts it.

1 Gbit/s ports, 512-B frames (4096 L2 bits): 4.096 Mbit/s is 1000 frames/s."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.config.services import ServiceConfig, ServiceSla
from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialRunner
from p4tester.experiments.simulated_services import PolicedStream, SimulatedServicesRunner
from p4tester.experiments.y1564 import (
    STEP_CIR,
    STEP_EIR,
    STEP_POLICING,
    Y1564Config,
    policing_rate_bps,
    run_y1564,
)
from p4tester.program import main
from p4tester.results.availability import availability_pct, high_loss, unavailable
from p4tester.results.latency import linear_bin_edges
from p4tester.results.model import IntervalCounts
from p4tester.runs.y1564_body import y1564_report

GIGABIT = 1e9
FPS_1000 = 4.096e6  # bit/s of 1000 512-B frames per second
VOICE = ServiceConfig("voice", 0, FPS_1000, 0.0, ServiceSla(1.0, 0.5, 0.001, 99.0))
DATA = ServiceConfig("data", 1, 2 * FPS_1000, FPS_1000, ServiceSla(5.0, 2.0, 0.001, 99.0))


def config(*services: ServiceConfig, **changes: object) -> Y1564Config:
    n = len(services)
    values: dict[str, object] = {"step_duration_s": 2.0, "performance_duration_s": 10.0}
    values.update(changes)
    return Y1564Config(services, (GIGABIT,) * n, (512,) * n, 512, **values)  # type: ignore[arg-type]


def test_a_policer_below_cir_fails_from_the_step_it_drops_at() -> None:
    # voice: policed at its CIR (1000 frames/s); data: CIR 2000 frames/s, EIR 1000, but
    # policed at 1500 frames/s.
    runner = SimulatedServicesRunner(GIGABIT, (PolicedStream(0, FPS_1000, 100.0, 200.0),
                                               PolicedStream(1, 1.5 * FPS_1000, 300.0)))
    recorder = Recorder(runner)
    result = run_y1564(config(VOICE, DATA), recorder)

    voice, data = result.services
    assert [(s.step, s.cir_share, s.offered_bps, s.ir_bps, s.flr, s.passed)
            for s in voice.configuration] == [
        (STEP_CIR, 0.25, 1.024e6, 1.024e6, 0.0, True),
        (STEP_CIR, 0.5, 2.048e6, 2.048e6, 0.0, True),
        (STEP_CIR, 0.75, 3.072e6, 3.072e6, 0.0, True),
        (STEP_CIR, 1.0, 4.096e6, 4.096e6, 0.0, True),
        # 1.25 x CIR (no EIR): 1250 frames/s offered, 1000 pass: IR = CIR, within bounds.
        (STEP_POLICING, None, 5.12e6, 4.096e6, 0.2, True)]
    assert voice.configuration[0].ftd_ms == pytest.approx(0.2)  # 100..300 us: mean 200
    assert voice.configuration[0].fdv_ms == pytest.approx(0.2)  # p99.9 (the max) - min
    assert voice.passed

    assert [(s.step, s.ir_bps, s.flr, s.failed_on) for s in data.configuration] == [
        (STEP_CIR, 2.048e6, 0.0, ()),
        (STEP_CIR, 4.096e6, 0.0, ()),
        (STEP_CIR, 6.144e6, 0.0, ()),
        (STEP_CIR, 6.144e6, 0.25, ("IR", "FLR")),  # 2000 offered, 1500 pass
        (STEP_EIR, 6.144e6, 0.5, ("IR",)),  # below CIR x (1 - 0.001) x 0.95
        # CIR + 1.25 x EIR = 3250 frames/s
        (STEP_POLICING, 6.144e6, 1 - 1500 / 3250, ("IR",))]
    assert [(s.service, s.ir_bps, s.flr, s.availability_pct, s.failed_on)
            for s in (voice.performance, data.performance) if s is not None] == [
        ("voice", 4.096e6, 0.0, 100.0, ()), ("data", 6.144e6, 0.25, 100.0, ("IR", "FLR"))]
    assert not data.passed and not result.passed
    assert result.trial_count == 12 == runner.calls

    trials = recorder.trials
    assert [dict(t.labels)["step"] for t in trials[:5]] == ["cir"] * 4 + ["policing"]
    assert dict(trials[0].labels) == {"service": "voice", "step": "cir", "cir_share": "0.25"}
    assert dict(trials[-1].labels) == {"service": "voice,data", "step": "performance"}
    # 1000 frames/s of 512 B is (512 + 20) x 8 x 1000 = 4.256 Mbit/s of L1 line rate.
    assert trials[3].streams[0].tx_frames == 2000
    assert trials[3].offered_fraction == pytest.approx(4.256e-3)
    assert [s.stream_id for s in trials[-1].streams] == [0, 1]


def test_a_dut_that_lets_the_overshoot_through_fails_policing_only() -> None:
    runner = SimulatedServicesRunner(GIGABIT, (PolicedStream(1, GIGABIT),))
    result = run_y1564(config(DATA, performance_test=False), Recorder(runner))
    steps = result.services[0].configuration
    assert [(s.step, s.failed_on) for s in steps] == [
        (STEP_CIR, ()), (STEP_CIR, ()), (STEP_CIR, ()), (STEP_CIR, ()),
        # CIR + EIR = 3000 frames/s is within (CIR..CIR+EIR) x (1 +- M).
        (STEP_EIR, ()),
        # 3250 frames/s came through: above (CIR + EIR) x 1.05 = 12.9024 Mbit/s.
        (STEP_POLICING, ("IR",))]
    assert steps[-1].ir_bps == 3250 * 4096
    assert result.services[0].performance is None
    assert result.trial_count == 6


def test_an_outage_costs_availability_from_its_tenth_bad_second_on() -> None:
    # 20 s at CIR; seconds 2..13 lose everything: 10 in a row make time unavailable
    # from second 2, and it takes 10 good ones in a row to come back: only 6 follow.
    runner = SimulatedServicesRunner(GIGABIT, (PolicedStream(0, FPS_1000,
                                                             outages=tuple(range(2, 14))),))
    result = run_y1564(config(VOICE, configuration_test=False, performance_duration_s=20.0),
                       Recorder(runner))
    performance = result.services[0].performance
    assert performance is not None
    assert performance.availability_pct == 10.0
    assert performance.failed_on == ("IR", "FLR", "AVAIL")
    # Nine bad seconds never make time unavailable; the loss still fails the service.
    runner = SimulatedServicesRunner(GIGABIT, (PolicedStream(0, FPS_1000,
                                                             outages=tuple(range(2, 11))),))
    result = run_y1564(config(VOICE, configuration_test=False, performance_duration_s=20.0),
                       Recorder(runner))
    performance = result.services[0].performance
    assert performance is not None
    assert (performance.availability_pct, performance.flr) == (100.0, 9 / 20)
    assert performance.failed_on == ("IR", "FLR")


def test_availability_follows_mef_10_3() -> None:
    counts = IntervalCounts(1.0, (10, 10, 10, 0, 10), (4, 6, 10, 0, 5))
    # Lost 6/10 > 0.5: high loss; 4/10 and 5/10 are not; nothing sent: not.
    assert high_loss(counts) == (True, False, False, False, False)
    # Three bad in a row: unavailable from the first; three good: available again from
    # the first of them; a last bad one alone changes nothing.
    flags = (False, True, True, True, False, False, False, True)
    assert unavailable(flags, run=3) == (False, True, True, True, False, False, False, False)
    assert unavailable((True, True, False, False, False, True), run=2) == (
        True, True, False, False, False, False)
    assert availability_pct(IntervalCounts(1.0, (10,) * 4, (10, 0, 0, 10)), run=2) == 25.0
    assert availability_pct(IntervalCounts(1.0, (10,) * 4, (0, 0, 0, 10)), run=3) == 0.0
    assert availability_pct(IntervalCounts(1.0, (), ())) == 100.0


def test_policing_overshoots_eir_or_a_small_eirs_cir() -> None:
    assert policing_rate_bps(DATA) == 2 * FPS_1000 + 1.25 * FPS_1000
    assert policing_rate_bps(VOICE) == 1.25 * FPS_1000
    small = ServiceConfig("s", 2, 10e6, 1e6, VOICE.sla)  # EIR < 20 % of CIR
    assert policing_rate_bps(small) == 1.25 * 10e6 + 1e6


def test_a_service_beyond_line_rate_is_refused_before_any_trial() -> None:
    big = ServiceConfig("big", 0, 900e6, 0.0, VOICE.sla)  # 1.25 x 900 Mbit/s L2 > 1 G L1
    with pytest.raises(ValueError, match=r"service big's policing step needs 1125 Mbit/s at "
                                         r"L2, more than its port's line rate \(1000 Mbit/s "
                                         r"L1\) carries at 512 B"):
        config(big)
    with pytest.raises(ValueError, match=r"no services; give the profile a `services` list"):
        Y1564Config((), (), (), 512)


def test_the_report_says_each_step_and_each_service() -> None:
    runner = SimulatedServicesRunner(GIGABIT, (PolicedStream(0, FPS_1000, 100.0, 200.0),))
    lines = y1564_report(run_y1564(config(VOICE), Recorder(runner)))
    assert lines[0] == "Y.1564 service configuration test"
    assert lines[2] == ("voice        cir 25%        1.0240 Mb/s  1.0240 Mb/s  0.00e+00    "
                        "0.200    0.200   100.00  pass")
    assert lines[6] == ("voice        policing       5.1200 Mb/s  4.0960 Mb/s  2.00e-01    "
                        "0.200    0.200   100.00  pass")
    assert lines[8] == "Y.1564 service performance test (10 s, all services at CIR)"
    assert lines[-2:] == ["service voice: PASS", "Y.1564: PASS (6 trials)"]


SERVICES_PROFILE = {"name": "p", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2},
                                             {"id": 1, "tx_port": 1, "rx_port": 2}]}


def services_profile(services: object) -> object:
    return profile_from_dict({**SERVICES_PROFILE, "services": services}, "p.yaml")


def test_profile_services_parse_with_l2_rates() -> None:
    profile = services_profile([
        {"name": "voice", "stream": 0, "cir": "2Mbps", "sla": {"ftd_ms": 10, "fdv_ms": 2,
                                                               "flr": 0.001}},
        {"name": "data", "stream": 1, "cir": "l2:10Mbps", "eir": 5e6,
         "sla": {"ftd_ms": 20, "fdv_ms": 5, "flr": 0.01, "availability_pct": 99.5}}])
    assert profile.services == (  # type: ignore[attr-defined]
        ServiceConfig("voice", 0, 2e6, 0.0, ServiceSla(10.0, 2.0, 0.001, 99.9)),
        ServiceConfig("data", 1, 10e6, 5e6, ServiceSla(20.0, 5.0, 0.01, 99.5)))


@pytest.mark.parametrize(("services", "message"), [
    ([{"name": "v", "stream": 3, "cir": "2Mbps", "sla": {"ftd_ms": 1, "fdv_ms": 1, "flr": 0}}],
     r"services\[0\]: stream 3 is not one of the profile's streams \[0, 1\]"),
    ([{"name": "v", "stream": 0, "cir": "l1:2Mbps", "sla": {"ftd_ms": 1, "fdv_ms": 1,
                                                            "flr": 0}}],
     r"cir: 'l1:2Mbps': Y.1564 rates count L2 bits \(MEF 10.3\); drop the 'l1:' prefix"),
    ([{"name": "v", "stream": 0, "cir": "2Mbps", "sla": {"ftd_ms": 1, "fdv_ms": 1,
                                                         "flr": 5}}],
     r"sla: flr 5 is a ratio: give 0..1"),
    ([{"name": "v", "stream": 0, "cir": "2Mbps", "sla": {"ftd_ms": 1, "fdv": 1, "flr": 0}}],
     r"sla: missing 'fdv_ms'"),
    ([{"name": "v", "stream": 0, "cir": "2Mbps", "sla": {"ftd_ms": 1, "fdv_ms": 1, "flr": 0}},
      {"name": "w", "stream": 0, "cir": "1Mbps", "sla": {"ftd_ms": 1, "fdv_ms": 1, "flr": 0}}],
     r"each service needs a stream of its own, got streams \[0, 0\]"),
    ([], r"services: give a list of services"),
])
def test_bad_services_name_the_problem(services: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        services_profile(services)


def test_the_cli_runs_y1564_and_reports_it(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repo = Path(__file__).resolve().parents[2]
    profile = tmp_path / "services.yaml"
    profile.write_text(
        "name: services\ntrial: {duration_s: 2, drain_s: 0}\nstreams:\n"
        "  - {id: 0, tx_port: 1, rx_port: 2}\nservices:\n"
        "  - {name: voice, stream: 0, cir: 1Mbps, sla: {ftd_ms: 1, fdv_ms: 1, flr: 0.001}}\n")

    @contextmanager
    def simulated(*_args: object, **_kwargs: object) -> Iterator[TrialRunner]:
        # loopback.yaml's ports are 5 Mbit/s; the DUT polices voice at its CIR.
        yield SimulatedServicesRunner(5e6, (PolicedStream(0, 1e6, 50.0),))

    monkeypatch.setattr("p4tester.cli.experiment_cmds.open_trial_runner", simulated)
    code = main(["y1564", "-t", str(repo / "topologies" / "loopback.yaml"), "-p", str(profile),
                 "-o", str(tmp_path / "out"), "--frame-size", "500",
                 "--performance-duration", "4"])
    assert code == 0
    report = (tmp_path / "out" / "result.txt").read_text()
    # 1 Mbit/s of 500-B frames is 250 frames/s; policing offers 312.5, 250 pass.
    assert "voice        policing       1.2500 Mb/s  1.0000 Mb/s  2.00e-01" in report
    assert report.rstrip().endswith("Y.1564: PASS (6 trials)"), report


def test_fdv_beyond_the_histogram_is_judged_on_the_max_not_the_lower_bound() -> None:
    """A p99.9 beyond the last bin edge is only a lower bound: judging FDV on it would
    pass a service whose delay varies more than its SLA allows. 100..900 us against
    bins up to 300 us: the max, 900 us, gives the FDV (0.8 ms > 0.5 ms)."""
    runner = SimulatedServicesRunner(GIGABIT, (PolicedStream(0, FPS_1000, 100.0, 800.0),),
                                     edges_us=linear_bin_edges(300, 30))
    voice = run_y1564(config(VOICE), Recorder(runner)).services[0]
    first = voice.configuration[0]
    assert first.fdv_ms == pytest.approx(0.8)
    assert "FDV" in first.failed_on
