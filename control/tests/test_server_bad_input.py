"""Bad input through the REST API: every option of every experiment, given a value it
cannot take, is refused with 400 and the words the CLI uses, before any run starts
(never a 500, never a run that fails at once for its input), naming the option the
page shows the message next to."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from p4tester.config.profile import load_profile
from p4tester.config.serving import Bind
from p4tester.config.topology import load_topology
from p4tester.runs.catalog import EXPERIMENTS
from p4tester.server.app import create_app
from p4tester.server.settings import ServerSettings
from p4tester.server.simulated import SimulatedBackend

REPO = Path(__file__).resolve().parents[2]
TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

# Per experiment: the lab it needs and the valid options it needs beside the one under
# test, so the walked option is the only thing wrong with a request.
SETUPS: dict[str, tuple[str, str, dict[str, str]]] = {
    "throughput": ("loopback.yaml", "one-stream.yaml", {}),
    "latency": ("loopback.yaml", "one-stream.yaml", {"frame-size": "64", "load": "10%"}),
    "frame-loss": ("loopback.yaml", "one-stream.yaml", {}),
    "back-to-back": ("loopback.yaml", "one-stream.yaml",
                     {"frame-size": "64", "throughput": "10%"}),
    "frame-size-scan": ("loopback.yaml", "one-stream.yaml", {"start": "64", "end": "128"}),
    "ramp": ("loopback.yaml", "one-stream.yaml", {"start": "10%", "end": "20%", "step": "5%"}),
    "soak": ("loopback.yaml", "one-stream.yaml", {"load": "10%", "total": "2"}),
    "shape": ("loopback.yaml", "one-stream.yaml", {"shape": "sine", "load": "10%"}),
    "rfc2889": ("loopback.yaml", "both-ways.yaml", {"test": "fully-meshed", "ports": "1,2"}),
    "rfc2889-addresses": ("loopback.yaml", "addresses-64.yaml",
                          {"test": "address-caching", "ageing": "3"}),
    "y1564": ("bmv2-services.yaml", "y1564-services.yaml", {}),
}
# A value no option of its kind takes: not a number, below zero; one outside a list.
NUMERIC_BAD = ("x", "-5")
CHOICE_BAD = "nonsense"


def client_for(experiment: str, results: Path) -> TestClient:
    topology_name, profile_name, _ = SETUPS[experiment]
    topology = load_topology(REPO / "topologies" / topology_name)
    profile = load_profile(REPO / "topologies" / "profiles" / profile_name, topology)
    settings = ServerSettings.checked(Bind("127.0.0.1", 8080), TOKEN, results, simulate=True,
                                      sim_time_scale=0.0)
    return TestClient(create_app(settings, topology, profile,
                                 SimulatedBackend(topology, profile, 0.0)))


def test_every_experiment_has_a_setup() -> None:
    # queue-sweep steps a lab DUT's buffer: the simulated switch refuses it whole.
    assert sorted(SETUPS) == sorted(set(EXPERIMENTS) - {"queue-sweep"})


def test_the_simulated_switch_refuses_a_queue_sweep(tmp_path: Path) -> None:
    answer = client_for("throughput", tmp_path).post("/api/runs", headers=AUTH, json={
        "experiment": "queue-sweep", "options": {"buffers": "-5"}})
    assert (answer.status_code, answer.json()) == (400, {"detail": (
        "p4tester queue-sweep: argument --buffers: '-5': each percent must be in (0, 100], "
        "like 1,10,50,100"), "option": "buffers"})
    answer = client_for("throughput", tmp_path).post("/api/runs", headers=AUTH, json={
        "experiment": "queue-sweep", "options": {}})
    assert (answer.status_code, answer.json()) == (400, {"detail": (
        "queue-sweep steps a bmv2 DUT's buffer over thrift: it needs a lab switch, not "
        "--simulate")})


@pytest.mark.parametrize("experiment", sorted(SETUPS))
def test_every_option_refuses_a_value_it_cannot_take(experiment: str, tmp_path: Path) -> None:
    client = client_for(experiment, tmp_path)
    base = SETUPS[experiment][2]
    for option in EXPERIMENTS[experiment].options:
        values = (CHOICE_BAD,) if option.choices else NUMERIC_BAD
        if option.name == "test" and experiment.startswith("rfc2889"):
            values = (CHOICE_BAD,)
        for value in values:
            answer = client.post("/api/runs", headers=AUTH, json={
                "experiment": experiment, "options": {**base, option.name: value}})
            detail = answer.json().get("detail")
            assert answer.status_code == 400, (option.name, value, answer.text)
            # The CLI's words: the option named, or the value it was given.
            assert f"--{option.name}" in detail or repr(value) in detail or \
                f"{value} B" in detail, (option.name, value, detail)
            # The option it is about, for the page to say the message by its field.
            assert answer.json()["option"] == option.name, (option.name, value, detail)
    assert client.get("/api/runs").json() == []  # no run was started by any of them


def test_a_frame_size_no_stream_carries_is_refused_before_the_run() -> None:
    """It used to start a run that failed at once, with a ValueError in its message."""
    client = client_for("throughput", Path("/nonexistent-results"))
    answer = client.post("/api/runs", headers=AUTH, json={
        "experiment": "throughput", "options": {"frame-sizes": "64,20"}})
    assert (answer.status_code, answer.json()) == (400, {"detail": (
        "stream 0: frame size 20 B is outside 64..9216 B for Ethernet/IPv4/UDP/tester "
        "(headers 42 B + tester header 18 B + FCS 4 B); choose a size in that range"),
        "option": "frame-sizes"})


def test_what_an_experiment_needs_of_the_profile_is_refused_before_the_run(
        tmp_path: Path) -> None:
    client = client_for("throughput", tmp_path)  # one-stream: no services, no addresses
    y1564 = client.post("/api/runs", headers=AUTH, json={"experiment": "y1564", "options": {}})
    assert y1564.status_code == 400
    assert y1564.json()["detail"].endswith(
        "one-stream.yaml: the profile has no `services`; add them (name, stream, cir, eir, "
        "sla) to run Y.1564, see docs/y1564.md")
    mesh = client.post("/api/runs", headers=AUTH, json={
        "experiment": "rfc2889", "options": {"test": "fully-meshed", "ports": "1,2"}})
    assert (mesh.status_code, mesh.json()["detail"]) == (400, (
        "RFC 2889 fully-meshed: the profile has no stream from port 2 to port 1; add one, or "
        "a mesh of the ports: `- {mesh: [1, 2], id: 0}`"))
    assert client.get("/api/runs").json() == []
