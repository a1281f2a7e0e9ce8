"""The application layer's pieces on their own (runs/): requests built from option
values whichever front end read them, their defaults as a user types them, loads
checked before the switch is touched, and the trial runner chosen by target."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.runs.catalog import EXPERIMENTS, RequestError, build_request
from p4tester.runs.loads import check_loads
from p4tester.runs.requests import LatencyRequest, QueueSweepRequest, RampRequest
from p4tester.runs.trial_runners import TRIAL_RUNNERS, open_trial_runner
from p4tester.streams.rates import Rate

REPO = Path(__file__).resolve().parents[2]
TOPOLOGY = REPO / "topologies" / "loopback.yaml"
PROFILE = REPO / "topologies" / "profiles" / "one-stream.yaml"


def test_texts_and_json_values_build_the_same_request() -> None:
    from_argv = build_request("latency", {"frame-size": "64", "load": "50%", "trials": "3"})
    from_json = build_request("latency", {"frame-size": 64, "load": "50%", "trials": 3})
    assert from_argv == from_json == LatencyRequest(64, Rate.parse("50%"), trials=3)


def test_unset_options_keep_the_requests_defaults() -> None:
    request = build_request("queue-sweep", {"buffers": None, "load": "0.4"})
    assert request == QueueSweepRequest(load=0.4)
    assert request.buffer_percents == (1, 10, 20, 40, 60, 80, 100)
    sweep = EXPERIMENTS["queue-sweep"]
    defaults = {o.name: sweep.default_text(o) for o in sweep.options}
    assert defaults == {"frame-sizes": None, "buffers": "1,10,20,40,60,80,100",
                        "load": "0.502", "repetitions": "3", "duration": None}


@pytest.mark.parametrize(("values", "message"), [
    ({"frame-size": "64"}, "p4tester latency: the following arguments are required: --load"),
    ({"frame-size": "x", "load": "50%"},
     "p4tester latency: argument --frame-size: invalid int value: 'x'"),
    ({"frame-size": "64", "load": "fast"}, "p4tester latency: argument --load: load 'fast': "),
    ({"frame-size": "64", "load": "5%", "burst": "3"},
     "p4tester latency: unrecognized arguments: --burst 3"),
    ({"frame-size": "64", "load": "5%", "trials": "0"},
     "p4tester latency: argument --trials: '0': give 1 or more"),
    ({"frame-size": "64", "load": "5%", "trials": "2.5"},
     "p4tester latency: argument --trials: '2.5': give a whole number, 1 or more"),
    ({"frame-size": "64", "load": "5%", "duration": "0"},
     "p4tester latency: argument --duration: '0': give seconds above 0, like 2 or 0.5"),
    ({"frame-size": "64", "load": "5%", "duration": "-1"},
     "p4tester latency: argument --duration: '-1': give seconds above 0, like 2 or 0.5"),
    ({"frame-size": "64", "load": "5%", "duration": "inf"},
     "p4tester latency: argument --duration: 'inf': give seconds above 0, like 2 or 0.5"),
    ({"frame-size": "64", "load": "0%"}, "p4tester latency: argument --load: load '0%': rate "
     "must be positive and finite"),
])
def test_bad_values_name_the_option_and_the_fix(values: dict[str, str], message: str) -> None:
    with pytest.raises(RequestError) as error:
        build_request("latency", values)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(("experiment", "values", "message"), [
    ("back-to-back", {"frame-size": "64", "throughput": "40%", "repetitions": "0"},
     "argument --repetitions: '0': give 1 or more"),
    ("back-to-back", {"frame-size": "64", "throughput": "40%", "max-burst": "-3"},
     "argument --max-burst: '-3': give 1 or more"),
    ("soak", {"load": "30%", "total": "0"}, "argument --total: '0': give seconds above 0"),
    ("soak", {"load": "30%", "total": "10", "interval": "-1"},
     "argument --interval: '-1': give seconds above 0"),
    ("queue-sweep", {"repetitions": "0"}, "argument --repetitions: '0': give 1 or more"),
    ("frame-size-scan", {"start": "64", "end": "128", "step": "0"},
     "argument --step: '0': give 1 or more"),
    ("rfc2889-addresses", {"test": "address-caching", "ageing": "0"},
     "argument --ageing: '0': give seconds above 0"),
    ("rfc2889-addresses", {"test": "address-caching", "ageing": "3", "test-rate": "-5"},
     "argument --test-rate: '-5': give frames/s above 0"),
    ("rfc2889", {"test": "forward-pressure", "mfr-steps": "0"},
     "argument --mfr-steps: '0': give 1 or more"),
    ("y1564", {"performance-duration": "0"},
     "argument --performance-duration: '0': give seconds above 0"),
])
def test_counts_durations_and_rates_must_be_above_zero(experiment: str,
                                                       values: dict[str, str],
                                                       message: str) -> None:
    with pytest.raises(RequestError) as error:
        build_request(experiment, values)
    assert str(error.value).startswith(f"p4tester {experiment}: {message}")


def test_a_load_above_line_rate_is_refused_before_the_switch() -> None:
    topology = load_topology(TOPOLOGY)
    profile = load_profile(PROFILE, topology)
    check_loads(RampRequest(Rate.parse("10%"), Rate.parse("7000pps"), Rate.parse("10%")),
                topology, profile)
    # 7441 frames/s at 64 B: one above the 5-Mbit/s port's 7440.48 (a RateError names it).
    with pytest.raises(ConfigError, match=r"^load 7441 pps: rate 7441 pps is above the port's"):
        check_loads(RampRequest(Rate.parse("10%"), Rate.parse("7441pps"), Rate.parse("10%")),
                    topology, profile)


def test_every_target_offers_a_trial_runner_and_others_are_named() -> None:
    assert sorted(TRIAL_RUNNERS) == ["bmv2", "ebpf", "tofino"]
    topology = load_topology(TOPOLOGY)
    elsewhere = replace(topology, switch=replace(topology.switch, target="xdp"))
    with pytest.raises(ConfigError, match=r"switch target 'xdp' runs no trials; known: "
                                          r"bmv2, ebpf, tofino"):
        open_trial_runner(elsewhere, load_profile(PROFILE, topology), push_pipeline=False)


def test_back_to_back_reports_the_implied_buffer_time_next_to_the_corrected_one(
        tmp_path: Path) -> None:
    """RFC 9004 6.4: corrected = implied x (1 - throughput / line rate), both said."""
    import re
    import threading

    from p4tester.runs.catalog import experiment_named
    from p4tester.runs.execute import RunEnd, plan_run, run_experiment
    from p4tester.server.simulated import SimulatedBackend

    topology = load_topology(TOPOLOGY)
    profile = load_profile(PROFILE, topology)
    request = build_request("back-to-back", {"frame-size": "64", "throughput": "40%",
                                             "repetitions": "2", "duration": "1",
                                             "max-burst": "200"})
    plan = plan_run(experiment_named("back-to-back"), request, topology, profile,
                    tmp_path / "b2b")
    backend = SimulatedBackend(topology, profile, 0.0)
    outcome = run_experiment(plan, backend.trial_runner(threading.Event()))
    assert outcome.end is RunEnd.FINISHED
    match = re.fullmatch(r"back-to-back at 64 B: average burst ([\d.]+) frames \(min \d+, max "
                         r"\d+\); RFC 9004 implied buffer time ([\d.]+) ms, corrected buffer "
                         r"([\d.]+) frames = ([\d.]+) ms", outcome.text)
    assert match is not None, outcome.text
    burst, implied_ms, frames, corrected_ms = map(float, match.groups())
    line_pps = 5e6 / (84 * 8)
    assert implied_ms == pytest.approx(burst / line_pps * 1e3, abs=0.001)
    assert corrected_ms == pytest.approx(implied_ms * 0.6, abs=0.002)
    assert frames == pytest.approx(burst * 0.6, abs=0.05)
