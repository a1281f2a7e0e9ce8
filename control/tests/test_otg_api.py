"""The OTG HTTP API with a fake tester behind it: paths, bodies, the models'
error shape, warnings, the transmit state machine and token rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from p4tester.config.topology import load_topology
from p4tester.dataplane.constants import TESTER_UDP_DST_PORT
from p4tester.otg.app import create_app
from p4tester.otg.mapping import MappedConfig, MappedFlow, MappedPort
from p4tester.otg.metrics import flow_metric
from p4tester.otg.readings import FlowCounters, Latency, PortCounters, Reading
from p4tester.otg.state import OtgState
from p4tester.otg.version import API_SPEC_VERSION

LOOPBACK = Path(__file__).resolve().parents[2] / "topologies" / "loopback.yaml"
TOKEN = "otg-unit-token-0123456789"
CONFIG: dict[str, Any] = {
    "ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
    "flows": [{
        "name": "f1",
        "tx_rx": {"choice": "port", "port": {"tx_name": "p1", "rx_names": ["p2"]}},
        "duration": {"choice": "fixed_packets", "fixed_packets": {"packets": 100}},
        "rate": {"choice": "pps", "pps": "50"},
        "size": {"choice": "fixed", "fixed": 128},
        "metrics": {"enable": True, "latency": {"enable": True}},
        "packet": [{"choice": "ethernet", "ethernet": {}}, {"choice": "ipv4", "ipv4": {}},
                   {"choice": "udp", "udp": {"dst_port": {"choice": "value",
                                                          "value": TESTER_UDP_DST_PORT}}}],
    }],
}
START = {"choice": "traffic", "traffic": {"choice": "flow_transmit",
                                          "flow_transmit": {"state": "start"}}}
STOP = {"choice": "traffic", "traffic": {"choice": "flow_transmit",
                                         "flow_transmit": {"state": "stop"}}}
FLOWS = {"choice": "flow", "flow": {"flow_names": []}}
PORTS = {"choice": "port", "port": {"port_names": []}}


class FakeDriver:
    """Sends each started flow's budget at once; stop ends the run."""

    def __init__(self) -> None:
        self.config: MappedConfig | None = None
        self.started: tuple[MappedFlow, ...] = ()
        self.transmitting = False
        self.calls: list[str] = []
        self.capturing_ports: set[str] = set()
        self.paused = False
        self.unvouched: str | None = None  # the self-check's verdict once flows stop

    def apply(self, config: MappedConfig) -> None:
        self.calls.append("apply")
        self.config = config
        self.started = ()

    def start(self, flows: tuple[MappedFlow, ...]) -> list[str]:
        self.calls.append("start")
        self.started = flows
        self.transmitting = True
        return []

    def stop(self) -> None:
        self.calls.append("stop")
        self.transmitting = False

    def pause(self) -> None:
        self.calls.append("pause")
        self.paused = True

    def resume(self) -> None:
        self.calls.append("resume")
        self.paused = False

    def running(self) -> bool:
        return self.transmitting

    def read(self) -> Reading:
        flows = {f.name: FlowCounters(frames_tx=f.budget or 0, frames_rx=(f.budget or 0) - 1,
                                      bytes_tx=(f.budget or 0) * f.members[0].frame_size,
                                      bytes_rx=((f.budget or 0) - 1) * f.members[0].frame_size,
                                      started=self.transmitting, paused=self.paused,
                                      elapsed_s=2.0,
                                      latency=Latency(4000.0, 9000.0, 5000.0))
                 for f in self.started}
        ports = {"p1": PortCounters(frames_tx=100, bytes_tx=12800),
                 "p2": PortCounters(frames_rx=99, bytes_rx=12672)}
        return Reading(flows, ports, unvouched=None if self.transmitting else self.unvouched)

    def start_capture(self, port: MappedPort) -> None:
        self.calls.append(f"capture start {port.number}")
        self.capturing_ports.add(port.name)

    def stop_capture(self, port: MappedPort) -> None:
        self.calls.append(f"capture stop {port.number}")
        self.capturing_ports.discard(port.name)

    def capturing(self, port: MappedPort) -> bool:
        return port.name in self.capturing_ports

    def read_capture(self, port: MappedPort) -> bytes:
        return f"pcap of port {port.number}".encode()

    def close(self) -> None:
        self.calls.append("close")


@pytest.fixture
def driver() -> FakeDriver:
    return FakeDriver()


def client_for(driver: FakeDriver, token: str | None = None) -> TestClient:
    return TestClient(create_app(OtgState(load_topology(LOOPBACK), driver), token))


def test_version_is_the_pinned_models() -> None:
    reply = client_for(FakeDriver()).get("/capabilities/version")
    assert reply.status_code == 200
    assert reply.json() == {"api_spec_version": "1.58.0", "sdk_version": "1.58.0",
                            "app_version": "p4tester"}


def test_version_is_the_pinned_client() -> None:
    """snappi's version_check compares its models version with ours: the client the
    scripts install must be the models version the server serves."""
    pins = (LOOPBACK.parents[1] / "scripts" / "otg-requirements.txt").read_text().split()
    assert f"snappi=={API_SPEC_VERSION}" in pins


def test_config_round_trip_and_warnings(driver: FakeDriver) -> None:
    client = client_for(driver)
    reply = client.post("/config", json=CONFIG)
    assert reply.status_code == 200
    assert reply.json() == {"warnings": []}
    assert client.get("/config").json() == CONFIG
    assert driver.calls == ["apply"]


def test_validation_error_shape(driver: FakeDriver) -> None:
    client = client_for(driver)
    bad = {**CONFIG, "ports": [{"name": "p1", "location": "localhost:5555"},
                               {"name": "p2", "location": "2"}]}
    reply = client.post("/config", json=bad)
    assert reply.status_code == 400
    assert reply.json() == {"code": 400, "kind": "validation", "errors": [
        "ports[0].location 'localhost:5555': give a tester port number as in the topology "
        "'loopback' (\"1\", \"2\")",
        "flows[0].tx_rx.port.tx_name: no port named 'p1'"]}
    assert driver.calls == []


def test_start_metrics_stop(driver: FakeDriver) -> None:
    client = client_for(driver)
    client.post("/config", json=CONFIG)
    assert client.post("/control/state", json=START).json() == {"warnings": []}
    running = client.post("/monitor/metrics", json=FLOWS).json()
    assert running == {"choice": "flow_metrics", "flow_metrics": [{
        "name": "f1", "port_tx": "p1", "port_rx": "p2", "transmit": "started",
        "frames_tx": 100, "frames_rx": 99, "bytes_tx": 12800, "bytes_rx": 12672,
        "frames_tx_rate": 50.0, "frames_rx_rate": 49.5, "loss": 1.0,
        "latency": {"minimum_ns": 4000.0, "maximum_ns": 9000.0, "average_ns": 5000.0}}]}
    assert client.post("/control/state", json=STOP).json() == {"warnings": []}
    stopped = client.post("/monitor/metrics", json=FLOWS).json()["flow_metrics"][0]
    assert (stopped["transmit"], stopped["frames_tx_rate"]) == ("stopped", 0.0)
    ports = client.post("/monitor/metrics", json=PORTS).json()
    assert ports == {"choice": "port_metrics", "port_metrics": [
        {"name": "p1", "location": "1", "link": "up", "capture": "stopped", "frames_tx": 100,
         "frames_rx": 0, "bytes_tx": 12800, "bytes_rx": 0, "transmit": "stopped"},
        {"name": "p2", "location": "2", "link": "up", "capture": "stopped", "frames_tx": 0,
         "frames_rx": 99, "bytes_tx": 0, "bytes_rx": 12672, "transmit": "stopped"}]}
    assert driver.calls == ["apply", "start", "stop"]


def test_flow_loss_is_never_negative(driver: FakeDriver) -> None:
    """A flow that got duplicates back (RX > TX) lost nothing: 0 %, not -10 %."""
    client_for(driver).post("/config", json=CONFIG)
    assert driver.config is not None
    [flow] = driver.config.flows
    assert flow_metric(flow, FlowCounters(frames_tx=100, frames_rx=110))["loss"] == 0.0
    assert flow_metric(flow, FlowCounters(frames_tx=100, frames_rx=90))["loss"] == 10.0
    assert flow_metric(flow, FlowCounters())["loss"] == 0.0


def test_pause_resume(driver: FakeDriver) -> None:
    client = client_for(driver)
    client.post("/config", json=CONFIG)
    client.post("/control/state", json=START)
    for state, transmit, rate in (("pause", "paused", 0.0), ("resume", "started", 50.0)):
        body = {"choice": "traffic", "traffic": {"choice": "flow_transmit",
                                                 "flow_transmit": {"state": state}}}
        assert client.post("/control/state", json=body).json() == {"warnings": []}
        flow = client.post("/monitor/metrics", json=FLOWS).json()["flow_metrics"][0]
        assert (flow["transmit"], flow["frames_tx_rate"]) == (transmit, rate)
    assert driver.calls == ["apply", "start", "pause", "resume"]


def test_metrics_before_config() -> None:
    reply = client_for(FakeDriver()).post("/monitor/metrics", json=FLOWS)
    assert (reply.status_code, reply.json()) == (400, {
        "code": 400, "kind": "validation", "errors": ["no config: POST /config first"]})


@pytest.mark.parametrize(("body", "error"), [
    ({"choice": "port", "port": {"choice": "capture", "capture": {"state": "start"}}},
     "port.capture: the config has no captures"),
    ({"choice": "port", "port": {"choice": "capture", "capture": {"state": "start",
                                                                  "port_names": ["p1"]}}},
     "port.capture.port_names: ['p1'] are in no capture of the config (add them to "
     "captures[].port_names)"),
    ({"choice": "traffic", "traffic": {"choice": "flow_transmit",
                                       "flow_transmit": {"state": "jump"}}},
     "traffic.flow_transmit.state 'jump': use start, stop, pause or resume"),
    ({"choice": "traffic", "traffic": {"choice": "flow_transmit",
                                       "flow_transmit": {"state": "start",
                                                         "flow_names": ["nope"]}}},
     "traffic.flow_transmit.flow_names: no flows named ['nope']"),
    ({"choice": "protocol", "protocol": {}},
     "control_state.choice 'protocol': the tester controls traffic only (no protocol "
     "emulation)"),
])
def test_control_state_refusals(driver: FakeDriver, body: dict[str, Any], error: str) -> None:
    client = client_for(driver)
    client.post("/config", json=CONFIG)
    reply = client.post("/control/state", json=body)
    assert (reply.status_code, reply.json()) == (400, {"code": 400, "kind": "validation",
                                                       "errors": [error]})
    assert driver.calls == ["apply"]


def test_token_needed_for_state_changes(driver: FakeDriver) -> None:
    client = client_for(driver, TOKEN)
    refused = client.post("/config", json=CONFIG)
    assert refused.status_code == 401
    assert refused.json()["kind"] == "validation"
    wrong = client.post("/config", json=CONFIG, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert driver.calls == []
    ok = client.post("/config", json=CONFIG, headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200
    # Reading needs no token.
    assert client.post("/monitor/metrics", json=FLOWS).status_code == 200
    assert client.get("/capabilities/version").status_code == 200


def test_json_content_type_required(driver: FakeDriver) -> None:
    reply = client_for(driver).post("/control/state", content=b"{}",
                                    headers={"Content-Type": "text/plain"})
    assert (reply.status_code, reply.json()) == (400, {
        "code": 400, "kind": "validation",
        "errors": ["Content-Type 'text/plain': send application/json"]})


def test_capture_start_stop_read(driver: FakeDriver) -> None:
    client = client_for(driver)
    with_capture = {**CONFIG, "captures": [{"name": "ca", "port_names": ["p2"],
                                            "format": "pcap"}]}
    assert client.post("/config", json=with_capture).status_code == 200
    start = {"choice": "port", "port": {"choice": "capture", "capture": {"state": "start"}}}
    assert client.post("/control/state", json=start).json() == {"warnings": []}
    ports = client.post("/monitor/metrics", json=PORTS).json()["port_metrics"]
    assert [p["capture"] for p in ports] == ["stopped", "started"]
    stop = {"choice": "port", "port": {"choice": "capture",
                                       "capture": {"state": "stop", "port_names": ["p2"]}}}
    assert client.post("/control/state", json=stop).json() == {"warnings": []}
    reply = client.post("/monitor/capture", json={"port_name": "p2"})
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "application/octet-stream"
    assert reply.content == b"pcap of port 2"
    refused = client.post("/monitor/capture", json={"port_name": "p1"})
    assert (refused.status_code, refused.json()) == (400, {
        "code": 400, "kind": "validation",
        "errors": ["port_name 'p1' is in no capture of the config"]})
    assert driver.calls == ["apply", "capture start 2", "capture stop 2"]


def test_unknown_path_in_error_shape() -> None:
    reply = client_for(FakeDriver()).post("/monitor/states", json={"choice": "ipv4_neighbors"})
    assert reply.status_code == 404
    assert reply.json() == {"code": 404, "kind": "validation", "errors": ["Not Found"]}


def test_a_stop_says_when_the_tester_cannot_vouch_for_the_figures(driver: FakeDriver) -> None:
    """The start's self-check (otg.switch_driver): a tester that lost frames itself says
    so as an OTG warning of the stop that ends the flows, the only answer OTG gives."""
    client = client_for(driver)
    client.post("/config", json=CONFIG)
    client.post("/control/state", json=START)
    driver.unvouched = "tester-limited: port 2: 5 of 35 frames p4lt2 received never " \
                       "reached the program"
    assert client.post("/control/state", json=STOP).json() == {"warnings": [
        "tester-limited: port 2: 5 of 35 frames p4lt2 received never reached the program"]}
