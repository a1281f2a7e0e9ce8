"""A tester agent (otg.agent) and the controller's side of it (targets.remote_tester)
over real HTTP on loopback, with a stand-in tester behind the agent: every value the
trial loop exchanges crosses as it was (tester.agent_codec), a refused or unanswered
request says which tester and why. The lab run of agents is in tests_ebpf."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
import uvicorn

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig, load_profile
from p4tester.config.topology import Topology, load_topology
from p4tester.experiments.errors import TesterUnanswered
from p4tester.experiments.runner import TrialSpec
from p4tester.otg.agent import TesterAgent, _Opened
from p4tester.otg.app import create_app
from p4tester.otg.state import OtgState
from p4tester.otg.switch_driver import SwitchDriver
from p4tester.p4rt import CounterValue
from p4tester.results.model import Histogram, LatencyStats, StreamStats
from p4tester.streams.shapes import ShapeKind, TrafficShape
from p4tester.targets.remote_tester import RemoteTester
from p4tester.tester.agent_codec import CodecError, decode, encode
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.rate_schedule import build_schedule
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_course import StreamSample
from p4tester.tester.trial_loop import ArmedTrial, Extras, RxKinds

REPO = Path(__file__).resolve().parents[2]
TOPOLOGY = REPO / "topologies" / "ebpf-two-testers-bridge.yaml"
PROFILE = REPO / "topologies" / "profiles" / "two-testers.yaml"
TOKEN = "agent-unit-token-0123456789"
SPEC = TrialSpec("latency", 4, 64, 0.3, 1.0, labels=(("load", "0.3"),))
SNAPSHOT = CounterSnapshot({"tx_stream": {1: CounterValue(100, 6400)},
                            "rx_kind": {0: CounterValue(98, 6272)}})
PORTS = ProgramPortCounts({2: 98}, {2: 100}, None)
LATENCY = LatencyStats(98, 3.5, 40.25, 12.0, 1.5, p50_us=11.0, p99_us=30.0,
                       histogram=Histogram((0, 10, 100), (40, 58), 0))
STATS = (StreamStats(0, 64, 100, 98, 6272, 1, 2, 0, 0, latency=LATENCY),)


@dataclass
class StandIn:
    """What the agent opens in place of an eBPF tester: it answers each read with a
    fixed value and records each write."""

    poll_s: float = 0.1
    drain_s: float = 0.5
    settle_s: float = 0.5
    settle_max_s: float = 5.0
    host_bound: bool = True
    dut_between: bool = True
    queues_input: bool = False
    calls: list[tuple[object, ...]] = field(default_factory=list)

    def port_names(self) -> Mapping[int, str]:
        return {2: "p4lt2"}

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        return {2: InterfaceCounters(98, 100, 0, 0)}

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return SNAPSHOT, PORTS

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        return SNAPSHOT, PORTS

    def arm(self, spec: TrialSpec) -> ArmedTrial:
        self.calls.append(("arm", spec))
        shape = TrafficShape(ShapeKind.SQUARE, period_s=2.0, amplitude=0.5)
        schedule = build_schedule({1: shape}, {1: 1000.0}, {1: 5000.0}, 1.0, 0.5,
                                  lambda sid, pps: round(pps))
        return ArmedTrial((Sender(1, 100, 100.0),), 100.0, schedule=schedule)

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        self.calls.append(("start", trial.senders, spec))

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        return {s.key: SentReading(50, 50, StreamSample(123, 50, 0, 0)) for s in senders}

    def read_received(self, stream_ids: Sequence[int]) -> Mapping[int, tuple[int, int]]:
        return {sid: (48, 480) for sid in stream_ids}

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        self.calls.append(("correction", stream_id, correction_ns))

    def stop(self, trial: ArmedTrial) -> None:
        self.calls.append(("stop",))

    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds:
        return RxKinds(1, 2, 3, 6, 5)

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        self.calls.append(("bins", edges_us))

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        assert (before, after) == (SNAPSHOT, SNAPSHOT)
        return STATS

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras:
        return Extras(unvouched="", sender_bursts={1: 2})


@dataclass
class ProbeStandIn:
    name: str = "east"
    calls: list[tuple[object, ...]] = field(default_factory=list)

    def expect_probe(self, probe: StreamConfig) -> None:
        self.calls.append(("expect", probe.id, probe.tx_port))

    def send_probe(self, probe: StreamConfig, frames: int, rate_pps: float,
                   correction_ns: int) -> None:
        self.calls.append(("send", probe.id, probe.tx_port, frames, rate_pps, correction_ns))

    def probe_minimum(self, probe_id: int) -> tuple[int, int]:
        return 16, 2_147_490_000

    def end_probe(self, probe_id: int) -> None:
        self.calls.append(("end", probe_id))


@dataclass
class Opened:
    tester: StandIn = field(default_factory=StandIn)
    probes: ProbeStandIn = field(default_factory=ProbeStandIn)
    asked: list[tuple[str, int]] = field(default_factory=list)
    closed: int = 0

    def opener(self, topology: Topology, profile: Profile, name: str,
               run_value: int) -> _Opened:
        self.asked.append((name, run_value))

        def close() -> None:
            self.closed += 1

        return _Opened(self.tester, self.probes, profile, close)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serving(opened: Opened, tls: tuple[Path, Path] | None = None) -> Iterator[str]:
    """An agent on loopback with the stand-in behind it, its token required; HTTPS
    with tls (certificate, key)."""
    topology = load_topology(TOPOLOGY)
    app = create_app(OtgState(topology, SwitchDriver(topology, push_pipeline=False)), TOKEN,
                     TesterAgent(opened.opener))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning",
        ssl_certfile=str(tls[0]) if tls else None, ssl_keyfile=str(tls[1]) if tls else None))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def agent() -> Iterator[tuple[str, Opened]]:
    opened = Opened()
    with serving(opened) as address:
        yield address, opened


def remote(address: str, token: str | None = TOKEN) -> RemoteTester:
    return RemoteTester("east", address, token, load_profile(PROFILE))


def opened_remote(address: str) -> RemoteTester:
    tester = remote(address)
    tester.open(TOPOLOGY.read_text(), str(TOPOLOGY), PROFILE.read_text(), str(PROFILE), 42)
    return tester


def test_the_trial_loops_values_cross_as_they_were(agent: tuple[str, Opened]) -> None:
    address, opened = agent
    tester = opened_remote(address)
    assert opened.asked == [("east", 42)]
    assert (tester.poll_s, tester.drain_s, tester.host_bound, tester.queues_input) == (
        0.1, 0.5, True, False)
    assert tester.port_names() == {2: "p4lt2"}
    assert tester.read_ports() == {2: InterfaceCounters(98, 100, 0, 0)}
    assert tester.read_program() == (SNAPSHOT, PORTS)
    armed = tester.arm(SPEC)
    assert armed == opened.tester.arm(SPEC)
    tester.start(armed, SPEC)
    assert opened.tester.calls[-1] == ("start", armed.senders, SPEC)
    assert tester.read_sent(armed.senders) == {
        1: SentReading(50, 50, StreamSample(123, 50, 0, 0))}
    assert tester.read_received([1]) == {1: (48, 480)}
    tester.set_tx_clock_correction(1, -1_500_000)
    assert opened.tester.calls[-1] == ("correction", 1, -1_500_000)
    assert tester.rx_kinds(SNAPSHOT, SNAPSHOT) == RxKinds(1, 2, 3, 6, 5)
    assert tester.stream_stats(armed, SPEC, SNAPSHOT, SNAPSHOT) == STATS
    assert tester.extras(armed, STATS, SNAPSHOT, SNAPSHOT) == Extras(sender_bursts={1: 2})
    tester.widen_latency_bins((0, 10, 1000))
    assert opened.tester.calls[-1] == ("bins", (0, 10, 1000))
    tester.stop(armed)
    tester.close()
    assert opened.closed == 1


def test_probes_name_the_stream_they_copy(agent: tuple[str, Opened]) -> None:
    address, opened = agent
    tester = opened_remote(address)
    stream = load_profile(PROFILE).streams[1]
    probe = replace(stream, id=62)
    tester.expect_probe(probe)
    tester.send_probe(probe, 16, 2000.0, 1 << 31)
    assert tester.probe_minimum(62) == (16, 2_147_490_000)
    tester.end_probe(62)
    assert opened.probes.calls == [("expect", 62, 2), ("send", 62, 2, 16, 2000.0, 1 << 31),
                                   ("end", 62)]
    with pytest.raises(ValueError, match="probe 61 copies no stream of the profile"):
        tester.expect_probe(replace(stream, id=61, tx_port=7))


def test_a_refused_request_names_the_tester_and_why(agent: tuple[str, Opened]) -> None:
    address, _ = agent
    with pytest.raises(ConfigError) as refused:
        remote(address, token=None).open("name: x", "x", "name: y", "y", 1)
    assert str(refused.value) == (
        f"tester east's agent at {address} refused open: this request changes state: send "
        "'Authorization: Bearer <token>' (the token p4tester otg was given)")
    with pytest.raises(ConfigError) as refused:
        remote(address).arm(SPEC)
    assert str(refused.value) == (f"tester east's agent at {address} refused call/arm: no "
                                  "tester is open here: POST .../open first")
    tester = opened_remote(address)
    with pytest.raises(ConfigError, match="refused open: this agent's tester is open for "
                                          "another run"):
        opened_remote(address)
    tester.close()


def test_an_agent_that_does_not_answer_is_named() -> None:
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(TesterUnanswered) as unanswered:
        remote(address).arm(SPEC)
    assert str(unanswered.value) == (
        f"tester east's agent at {address} did not answer (call/arm: [Errno 111] Connection "
        "refused): the agent stopped, or its host is unreachable")


def test_the_codec_makes_only_the_trial_loops_types() -> None:
    assert decode(encode({1: (2, 3.5), "a": [None, True]})) == {1: (2, 3.5), "a": [None, True]}
    with pytest.raises(CodecError, match="type 'Popen' is not one agents exchange"):
        decode({"type": "Popen", "fields": {"args": ["rm"]}})
    with pytest.raises(CodecError, match="a set is not a value agents exchange"):
        encode({1, 2})


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (its subject alternative name) and its key."""
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=agent", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def test_an_agent_over_https_is_checked_against_its_certificate(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path, "agent")
    other, _ = self_signed(tmp_path, "other")
    opened = Opened()
    with serving(opened, (cert, key)) as address:
        tester = RemoteTester("east", address, TOKEN, load_profile(PROFILE), tls_ca=str(cert))
        tester.open(TOPOLOGY.read_text(), str(TOPOLOGY), PROFILE.read_text(), str(PROFILE), 7)
        assert tester.port_names() == {2: "p4lt2"}
        tester.close()
        impostor = RemoteTester("east", address, TOKEN, load_profile(PROFILE),
                                tls_ca=str(other))
        with pytest.raises(TesterUnanswered, match=r"tester east's agent at 127\.0\.0\.1:\d+ "
                                                   r"did not answer \(call/arm: .*CERTIFICATE_"
                                                   r"VERIFY_FAILED"):
            impostor.arm(SPEC)
    assert opened.asked == [("east", 7)]
