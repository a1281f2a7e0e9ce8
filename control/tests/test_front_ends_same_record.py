"""The same experiment started from the CLI and from the REST API takes the same path
(runs.execute) and writes the same record: every trial line of trials.jsonl, the
summary's result and report, and the report a person reads (issue 22)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialRunner
from p4tester.program import main
from p4tester.server.app import create_app
from p4tester.server.settings import Bind, ServerSettings
from p4tester.server.simulated import SimulatedBackend

REPO = Path(__file__).resolve().parents[2]
TOPOLOGY = REPO / "topologies" / "loopback.yaml"
PROFILE = REPO / "topologies" / "profiles" / "one-stream.yaml"
TOKEN = "test-token-0123456789abcdef"
WAIT_S = 30.0


def simulated_backend() -> SimulatedBackend:
    """A fresh simulated switch and DUT (seeded: two of them answer alike)."""
    topology = load_topology(TOPOLOGY)
    return SimulatedBackend(topology, load_profile(PROFILE, topology), 0.0)


def trial_lines(run_dir: Path) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in (run_dir / "trials.jsonl").read_text().splitlines()]
    return [record for record in records if "trial" in record]


def summary_of(run_dir: Path) -> tuple[Any, Any, int]:
    summary = json.loads((run_dir / "summary.json").read_text())
    return summary["result"], summary["report"], summary["trials"]


def run_from_cli(experiment: str, options: dict[str, str], output: Path,
                 monkeypatch: pytest.MonkeyPatch) -> int:
    @contextmanager
    def simulated(*_args: object, **_kwargs: object) -> Iterator[TrialRunner]:
        with simulated_backend().trial_runner(threading.Event()) as runner:
            yield runner

    monkeypatch.setattr("p4tester.cli.experiment_cmds.open_trial_runner", simulated)
    argv = [experiment, "-t", str(TOPOLOGY), "-p", str(PROFILE), "-o", str(output)]
    for name, value in options.items():
        argv += [f"--{name}", value]
    return main(argv)


def run_from_api(experiment: str, options: dict[str, str], results: Path) -> Path:
    topology = load_topology(TOPOLOGY)
    profile = load_profile(PROFILE, topology)
    settings = ServerSettings.checked(Bind("127.0.0.1", 8080), TOKEN, results, simulate=True,
                                      sim_time_scale=0.0)
    with TestClient(create_app(settings, topology, profile, simulated_backend())) as client:
        started = client.post("/api/runs", json={"experiment": experiment, "options": options},
                              headers={"Authorization": f"Bearer {TOKEN}"})
        assert started.status_code == 201, started.text
        run_id = started.json()["progress"]["run_id"]
        deadline = time.monotonic() + WAIT_S
        while client.get("/api/current").json()["busy"] and time.monotonic() < deadline:
            time.sleep(0.05)
        progress = client.get("/api/current").json()["progress"]
        assert progress["state"] == "finished", progress
    return results / run_id


@pytest.mark.parametrize(("experiment", "options"), [
    ("throughput", {"frame-sizes": "64", "method": "binary", "duration": "1"}),
    ("latency", {"frame-size": "512", "load": "50%", "trials": "3", "duration": "1"}),
    ("ramp", {"start": "30%", "end": "70%", "step": "20%", "duration": "1"}),
])
def test_the_cli_and_the_api_write_the_same_record(
        experiment: str, options: dict[str, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    cli_dir = tmp_path / "cli"
    assert run_from_cli(experiment, options, cli_dir, monkeypatch) == 0
    api_dir = run_from_api(experiment, options, tmp_path / "api")
    cli_trials, api_trials = trial_lines(cli_dir), trial_lines(api_dir)
    assert len(cli_trials) >= 3
    assert cli_trials == api_trials
    assert summary_of(cli_dir) == summary_of(api_dir)
    assert (cli_dir / "result.txt").read_text() == (api_dir / "result.txt").read_text()
