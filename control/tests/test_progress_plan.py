"""Progress against a run's plan (issue 43, point 3): what each request fixes in
advance, the outlook text and estimate, and one trial count for "Progress" and
"Past runs" (the run's trials.jsonl)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_server_api import AUTH, REPO, gated, make_client, wait_for_trial, wait_idle

from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.runs.catalog import build_request
from p4tester.server.options import parse_options
from p4tester.server.trial_plan import PlanKind, TrialPlan, outlook, plan_of

TOPOLOGY = load_topology(REPO / "topologies" / "loopback.yaml")
PROFILE = load_profile(REPO / "topologies" / "profiles" / "one-stream.yaml", TOPOLOGY)
SERVICES_TOPOLOGY = load_topology(REPO / "topologies" / "bmv2-services.yaml")
SERVICES = load_profile(REPO / "topologies" / "profiles" / "y1564-services.yaml",
                        SERVICES_TOPOLOGY)
RAMP = {"experiment": "ramp",
        "options": {"start": "10%", "end": "50%", "step": "10%", "duration": 1}}


def _plan(experiment: str, options: dict[str, object]) -> TrialPlan:
    request = parse_options(experiment, {k: str(v) for k, v in options.items()})
    return plan_of(request, TOPOLOGY, PROFILE)


@pytest.mark.parametrize(("experiment", "options", "expected"), [
    ("ramp", RAMP["options"], TrialPlan(PlanKind.TRIALS, 5)),
    ("soak", {"load": "30%", "total": 5, "interval": 2},
     TrialPlan(PlanKind.DURATION, 3, (2.0, 2.0, 1.0))),
    ("latency", {"frame-size": 64, "load": "30%", "trials": 3}, TrialPlan(PlanKind.TRIALS, 3)),
    ("frame-size-scan", {"start": 64, "end": 256, "step": 64}, TrialPlan(PlanKind.TRIALS, 4)),
    ("shape", {"shape": "sine", "load": "30%"}, TrialPlan(PlanKind.TRIALS, 1)),
    ("throughput", {"frame-sizes": "64,512"}, TrialPlan(PlanKind.SEARCH, phases=(64, 512))),
    ("throughput", {}, TrialPlan(PlanKind.SEARCH, phases=(64, 512, 1518))),
    ("back-to-back", {"frame-size": 64, "throughput": "50%"}, TrialPlan(PlanKind.OPEN)),
])
def test_each_request_plans_what_it_fixes(experiment: str, options: dict[str, object],
                                          expected: TrialPlan) -> None:
    assert _plan(experiment, options) == expected


def test_y1564_plans_each_services_steps_and_the_performance_test() -> None:
    # gold: 4 CIR steps, EIR, policing; silver (no EIR): 4 CIR steps, policing; then one
    # performance trial for both.
    assert plan_of(build_request("y1564", {}), SERVICES_TOPOLOGY, SERVICES) == TrialPlan(
        PlanKind.TRIALS, 12)
    configuration_only = build_request("y1564", {"tests": "configuration"})
    assert plan_of(configuration_only, SERVICES_TOPOLOGY, SERVICES).planned_trials == 11


def test_outlook_says_how_far_and_what_is_left() -> None:
    soak = outlook(TrialPlan(PlanKind.DURATION, 3, (2.0, 2.0, 1.0)), 2, 8.0, 64)
    assert (soak.text, soak.planned_s, soak.done_s, soak.left_s) == (
        "soak: 4 s of 5 s (2 of 3 intervals)", 5.0, 4.0, 2.0)
    counted = outlook(TrialPlan(PlanKind.TRIALS, 5), 2, 10.0, 64)
    assert (counted.text, counted.planned_trials, counted.left_s) == ("2 of 5 trials", 5, 15.0)
    assert outlook(TrialPlan(PlanKind.TRIALS, 5), 0, 3.0, None).left_s is None
    search = outlook(TrialPlan(PlanKind.SEARCH, phases=(64, 512)), 7, 9.0, 512)
    assert (search.text, search.planned_trials, search.left_s) == (
        "search: frame size 512 B, phase 2 of 2; 7 trials so far", None, None)
    before = outlook(TrialPlan(PlanKind.SEARCH, phases=(64, 512)), 0, 0.1, None)
    assert before.text == "search: 2 frame sizes; 0 trials so far"
    assert outlook(TrialPlan(PlanKind.OPEN), 3, 1.0, 64).text == "3 trials so far"


def test_progress_and_past_runs_count_the_same_trials_while_running(tmp_path: Path) -> None:
    backend = gated()
    with make_client(tmp_path, backend) as client:
        assert client.post("/api/runs", json=RAMP, headers=AUTH).status_code == 201
        for _ in range(2):
            wait_for_trial(backend)
            backend.permits.release()
        wait_for_trial(backend)  # the third trial asks: two are in trials.jsonl
        progress = client.get("/api/current").json()["progress"]
        [listed] = client.get("/api/runs").json()
        backend.permits.release(3)
        ended = wait_idle(client)
    assert (progress["state"], listed["state"]) == ("running", "running")
    assert progress["trials_done"] == listed["trials"] == 2
    assert progress["outlook"]["text"] == "2 of 5 trials"
    assert progress["outlook"]["planned_trials"] == 5
    assert progress["elapsed_s"] > 0
    assert progress["outlook"]["left_s"] == pytest.approx(progress["elapsed_s"] * 3 / 2)
    assert (ended["state"], ended["trials_done"], ended["outlook"]["text"]) == (
        "finished", 5, "5 of 5 trials")
    assert ended["outlook"]["left_s"] is None  # nothing is left of an ended run
    assert ended["elapsed_s"] == pytest.approx(ended["ended_at"] - ended["started_at"])


def test_a_finished_search_says_its_phases(tmp_path: Path) -> None:
    body = {"experiment": "throughput",
            "options": {"frame-sizes": "64,512", "method": "binary", "duration": 1}}
    with make_client(tmp_path) as client:
        assert client.post("/api/runs", json=body, headers=AUTH).status_code == 201
        ended = wait_idle(client)
        [listed] = client.get("/api/runs").json()
    assert ended["trials_done"] == listed["trials"]
    assert ended["outlook"]["text"] == (
        f"search: frame size 512 B, phase 2 of 2; {listed['trials']} trials so far")
