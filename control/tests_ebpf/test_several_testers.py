"""Two eBPF testers on this host, west (port 1) and east (port 2), joined through a
Linux bridge (topologies/ebpf-two-testers-bridge.yaml): one trial loop across both,
the offset of east's simulated clock measured by probes over the path, and one-way
delays each way checked against tcpdump captures on both testers' interfaces (the
host's one clock: the true delays). Docs: docs/several-testers.md."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

import pytest
import yaml

from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialSpec
from p4tester.lab import ifaces, linux_dut, netdev
from p4tester.results.clocks import ClockRecord
from p4tester.results.model import TrialResult
from p4tester.results.one_way import one_way_table
from p4tester.search.trials import TESTER_LIMITED_ATTEMPTS
from p4tester.targets.ebpf.group import open_ebpf_group_trials
from p4tester.tester.ptp_state import read_ptp_state

from .conftest import REPO, lab_up

sys.path.insert(0, str(REPO / "control" / "tests_e2e"))
from capture import (  # type: ignore[import-not-found]
    capture_received,
    capture_sent,
    frame_latencies_us,
    stream_frames_by_epoch,
    stream_times,
)
from served import ServerProcess  # type: ignore[import-not-found]
from snappi_spread import CLIENT_S, client_python  # type: ignore[import-not-found]
from snappi_two_ways import TWO_WAY_FLOWS  # type: ignore[import-not-found]

TOPOLOGY = REPO / "topologies" / "ebpf-two-testers-bridge.yaml"
PROFILE = REPO / "topologies" / "profiles" / "two-testers.yaml"
INJECTED_OFFSET_US = 1500.0  # east's simulated clock ahead of the host's (the topology)
INJECTED_DRIFT_PPM = 1e6 / (1 << 16)
# The bound: the estimate, and each direction's one-way delay against the
# captures', within 20 us on a symmetric path.
BOUND_US = 20.0
# The asymmetric path: the BMv2 DUT holds east -> west frames this long more than
# west -> east ones; the topology bounds the asymmetry above it.
ASYMMETRY_US = 300.0
ASYMMETRY_BOUND_US = 400.0
LOAD = 0.3  # of the ports' 25 Mbit/s: 11 161 frames/s each way, under the bucket's limit
BMV2_DUT_LOAD = 0.03  # 1116 frames/s each way: what the BMv2 DUT carries on a busy host
TRIAL_S = 1.0
DUT_LIMIT_PPS = 10e6 / (60 * 8)  # the bucket on port 2 (west -> east)
CLI_TIMEOUT_S = 900


def _variant(tmp_path: Path, name: str, drift_ppm: float, **extra: object) -> Path:
    """The shipped topology with east's drift and other top-level keys replaced."""
    data = yaml.safe_load(TOPOLOGY.read_text())
    data["testers"]["east"]["simulated_clock"]["drift_ppm"] = drift_ppm
    for key, value in extra.items():
        if key == "dut":
            data["dut"].update(value)
        else:
            data[key] = value
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture
def no_drift_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(_variant(tmp_path, "no-drift", 0), tmp_path / "lab") as topology:
        yield topology


@pytest.fixture
def router_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The two testers joined through a Linux router in a namespace instead of a bridge
    (as topologies/ebpf-linux-router.yaml: 192.0.2.0/24 <-> 198.51.100.0/24, TTL
    decremented, the same token bucket on its egress toward east)."""
    monkeypatch.chdir(REPO)
    with lab_up(_variant(tmp_path, "router", 0, dut={"kind": "linux", "ingress": 1}),
                tmp_path / "lab") as topology:
        yield topology


@pytest.fixture
def drift_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(TOPOLOGY, tmp_path / "lab") as topology:
        yield topology


@pytest.fixture
def asymmetric_lab(built: Path, tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The two testers joined through the BMv2 DUT, which delays what enters its port 2
    (east to west) by ASYMMETRY_US: a known asymmetry, one way only."""
    monkeypatch.chdir(REPO)
    data = yaml.safe_load(TOPOLOGY.read_text())
    data["testers"]["east"]["simulated_clock"]["drift_ppm"] = 0
    data["asymmetry_us"] = ASYMMETRY_BOUND_US
    data["dut"] = {"kind": "bmv2", "grpc": "127.0.0.1:9560", "thrift_port": 9091,
                   "forward": "1:2,2:1", "delay_us": f"1:0,2:{ASYMMETRY_US:g}"}
    variant = tmp_path / "asymmetric.yaml"
    variant.write_text(yaml.safe_dump(data))
    with lab_up(variant, tmp_path / "lab") as topology:
        yield topology


def east_minus_west_us(record: ClockRecord) -> float:
    return record.offset_us if record.a == "west" else -record.offset_us


def east_minus_west_end_us(record: ClockRecord) -> float:
    assert record.end_offset_us is not None
    return record.end_offset_us if record.a == "west" else -record.end_offset_us


def run_captured(topology: Path, tmp_path: Path, load: float = LOAD,
                 netns: Mapping[int, str] | None = None, profile_path: Path = PROFILE
                 ) -> tuple[TrialResult, dict[int, list[float]]]:
    """One vouched latency trial each way (repeated, bounded, while the tester cannot
    vouch for one), and each stream's per-frame delays from the captures of its TX
    and RX interfaces."""
    profile = load_profile(profile_path)
    with open_ebpf_group_trials(load_topology(topology), profile,
                                push_pipeline=False) as runner:
        for attempt in range(TESTER_LIMITED_ATTEMPTS):
            pcaps = {name: tmp_path / f"{name}{attempt}.pcap"
                     for name in ("tx1", "rx2", "tx2", "rx1")}
            with captures(pcaps, netns) as (tx1, rx2, tx2, rx1):
                trial = runner.run_trial(TrialSpec("several-testers", attempt, 64, load,
                                                   TRIAL_S))
            if trial.valid:
                break
            assert trial.tester_limited, trial.error
    assert trial.valid, trial.error
    assert [c.dropped_by_capture for c in (tx1, rx2, tx2, rx1)] == [0, 0, 0, 0]
    epoch = trial.trial_index % 128
    delays = {}
    for stream, sent, received in ((0, "tx1", "rx2"), (1, "tx2", "rx1")):
        delays[stream] = list(frame_latencies_us(
            stream_times(pcaps[sent], stream, epoch),
            stream_times(pcaps[received], stream, epoch)).values())
    return trial, delays


@contextmanager
def captures(pcaps: Mapping[str, Path], netns: Mapping[int, str] | None = None
             ) -> Iterator[tuple[Any, Any, Any, Any]]:
    """What each tester port sends and receives (tx1, rx2, tx2, rx1), each captured in
    its port's namespace when it has one."""
    where = netns or {}
    with (capture_sent(ifaces.tester_iface(1), pcaps["tx1"], where.get(1, "")) as tx1,
          capture_received(ifaces.tester_iface(2), pcaps["rx2"],
                           netns=where.get(2, "")) as rx2,
          capture_sent(ifaces.tester_iface(2), pcaps["tx2"], where.get(2, "")) as tx2,
          capture_received(ifaces.tester_iface(1), pcaps["rx1"],
                           netns=where.get(1, "")) as rx1):
        yield tx1, rx2, tx2, rx1


def trial_records(run: Path) -> list[dict[str, Any]]:
    """The trials of a run's trials.jsonl, as written (after its run header)."""
    # Whole lines only: a run still writing may have begun the last one.
    lines = [json.loads(line) for line in (run / "trials.jsonl").read_text().split("\n")[:-1]]
    return [line["trial"] for line in lines if "trial" in line]


def assert_one_way_matches_captures(trial: TrialResult, delays: dict[int, list[float]],
                                    bound_us: float) -> None:
    for stream in trial.streams:
        captured = delays[stream.stream_id]
        assert len(captured) == stream.rx_frames == stream.tx_frames
        assert stream.latency is not None
        assert abs(stream.latency.avg_us - mean(captured)) <= bound_us, (
            stream.stream_id, stream.latency, mean(captured))
        assert abs(stream.latency.min_us - min(captured)) <= bound_us, (
            stream.stream_id, stream.latency.min_us, min(captured))


def test_the_offset_is_the_injected_one_and_one_way_delays_are_the_captures(
        no_drift_lab: Path, tmp_path: Path) -> None:
    """A symmetric path: east's clock 1.5 ms ahead, the probes measure it within 20 us
    at the trial's start and end, and each direction's one-way delay (corrected by it
    in the data plane) is what tcpdump saw on the two interfaces, within 20 us."""
    trial, delays = run_captured(no_drift_lab, tmp_path)
    (record,) = trial.clocks
    assert abs(east_minus_west_us(record) - INJECTED_OFFSET_US) <= BOUND_US, record
    assert abs(east_minus_west_end_us(record) - INJECTED_OFFSET_US) <= BOUND_US, record
    assert record.jump == "" and record.uncertainty_us <= BOUND_US, record
    assert {record.direction(0), record.direction(1)} == {("west", "east"), ("east", "west")}
    assert_one_way_matches_captures(trial, delays, BOUND_US)


def test_through_a_linux_router_the_offset_and_one_way_delays_hold(router_lab: Path,
                                                                    tmp_path: Path) -> None:
    """A router between the testers, each way routed (TTL decremented, MACs rewritten):
    the offset is the injected one within 20 us, and each direction's
    one-way delay what tcpdump saw on the two interfaces, within 20 us."""
    data = yaml.safe_load(PROFILE.read_text())
    data["streams"][1]["dst_mac"] = linux_dut.EGRESS_MAC  # its next hop: the router
    routed = tmp_path / "routed.yaml"
    routed.write_text(yaml.safe_dump(data))
    trial, delays = run_captured(router_lab, tmp_path, profile_path=routed)
    (record,) = trial.clocks
    assert abs(east_minus_west_us(record) - INJECTED_OFFSET_US) <= BOUND_US, record
    assert record.jump == "" and record.uncertainty_us <= BOUND_US, record
    assert_one_way_matches_captures(trial, delays, BOUND_US)


def test_a_drifting_clock_is_followed_through_the_trial(drift_lab: Path,
                                                        tmp_path: Path) -> None:
    """East's clock gains 15.26 ppm: the probes at the trial's ends measure that drift,
    the stamps' correction follows it, and the one-way delays stay the captures'."""
    trial, delays = run_captured(drift_lab, tmp_path)
    (record,) = trial.clocks
    assert record.drift_ppm is not None
    gained = record.drift_ppm if record.a == "west" else -record.drift_ppm
    # Over the trial the offset moved by `moved`: the drift measured is the injected one
    # as far as the estimates' uncertainty tells over that time. `moved` is the end's
    # estimate less the start's, each off by up to the record's uncertainty (it bounds
    # both), so the move is off by up to twice it.
    moved_us = east_minus_west_end_us(record) - east_minus_west_us(record)
    assert gained > 0 and moved_us > 0, record
    injected_move_us = moved_us * INJECTED_DRIFT_PPM / gained  # over the same time
    assert abs(moved_us - injected_move_us) <= 2 * record.uncertainty_us, record
    assert record.jump == "" and record.uncertainty_us <= BOUND_US, record
    assert_one_way_matches_captures(trial, delays, BOUND_US)


def test_an_asymmetric_path_is_within_the_stated_uncertainty(asymmetric_lab: Path,
                                                             tmp_path: Path) -> None:
    """East to west waits 300 us more than west to east: the offset is off by about half
    of it, toward west, within what the topology's asymmetry_us (400) states, and each
    direction's delay is the capture's within that uncertainty."""
    trial, delays = run_captured(asymmetric_lab, tmp_path, BMV2_DUT_LOAD)
    (record,) = trial.clocks
    # The slower way back pulls the estimate below the injected offset by about half the
    # extra delay (the BMv2 DUT's own two directions differ too: 125 us seen on a busy
    # host), never beyond the uncertainty the topology's bound states.
    error_us = INJECTED_OFFSET_US - east_minus_west_us(record)
    assert ASYMMETRY_US / 4 <= error_us <= record.uncertainty_us, record
    assert record.uncertainty_us >= ASYMMETRY_BOUND_US / 2
    assert_one_way_matches_captures(trial, delays, record.uncertainty_us)


def test_rfc2544_throughput_across_two_testers_finds_the_dut_limit(drift_lab: Path,
                                                                   tmp_path: Path) -> None:
    """RFC 2544 throughput at 64 B, both ways, as a user runs it: west to east is
    limited by the bucket on port 2, so the NDR is its rate per stream within 3 %, as
    on the one-tester lab."""
    done = subprocess.run(
        [sys.executable, "-m", "p4tester", "throughput", "-t", str(drift_lab), "-p",
         str(PROFILE), "-o", str(tmp_path / "throughput"), "--json", "--frame-sizes", "64",
         "--duration", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    (size,) = json.loads(done.stdout)["result"]["sizes"]
    per_stream = float(size["ndr"]["lower"]["pps"])  # per TX port: each stream
    assert abs(per_stream - DUT_LIMIT_PPS) / DUT_LIMIT_PPS <= 0.03, (per_stream,
                                                                     done.stderr[-2000:])
    trials = trial_records(tmp_path / "throughput")
    assert trials and all(len(t["clocks"]) == 1 for t in trials)


SERVICES_TOPOLOGY = REPO / "topologies" / "ebpf-two-testers-services.yaml"
SERVICES_PROFILE = REPO / "topologies" / "profiles" / "two-testers-services.yaml"


@pytest.fixture
def services_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(SERVICES_TOPOLOGY, tmp_path / "lab") as topology:
        yield topology


def failed(step: dict[str, object]) -> list[str]:
    criteria = step["criteria"]
    assert isinstance(criteria, list)
    return [c["name"] for c in criteria if c["passed"] is False]


def test_y1564_across_two_testers_finds_the_misconfigured_service(services_lab: Path,
                                                                  tmp_path: Path) -> None:
    """The one-tester Y.1564 lab's verdicts (control/tests_e2e/test_y1564.py), with each
    service sent by west and received by east, whose clock is 2 ms behind: gold passes
    every step; silver, shaped to 60 % of its CIR, passes 25 % and 50 % and fails from
    75 % on. The offset each trial measured is the injected one within the uncertainty
    it states, and the delays are one-way."""
    out = tmp_path / "y1564"
    done = subprocess.run(
        [sys.executable, "-m", "p4tester", "y1564", "-t", str(services_lab), "-p",
         str(SERVICES_PROFILE), "-o", str(out), "--json", "--frame-size", "512",
         "--performance-duration", "6"],
        cwd=REPO, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    gold, silver = json.loads(done.stdout)["result"]["services"]
    assert [(s["step"], s["cir_share"], failed(s)) for s in gold["configuration"]] == [
        ("cir", 0.25, []), ("cir", 0.5, []), ("cir", 0.75, []), ("cir", 1.0, []),
        ("eir", None, []), ("policing", None, [])]
    assert failed(gold["performance"]) == []
    assert [failed(s) for s in silver["configuration"][:2]] == [[], []]
    assert all({"IR", "FLR"} <= set(failed(s)) for s in silver["configuration"][2:4])
    assert {"IR", "FLR"} <= set(failed(silver["performance"]))
    trials = trial_records(out)
    assert trials and all(len(t["clocks"]) == 1 for t in trials)
    vouched = [t for t in trials if t["valid"]]
    # Gold's 6 steps, silver's 5 and the performance test: each vouched once.
    assert len(vouched) == 12
    for trial in vouched:
        (clock,) = trial["clocks"]
        east_minus_west = clock["offset_us"] if clock["a"] == "west" else -clock["offset_us"]
        # The BMv2 DUT's two directions differ; the topology's asymmetry_us bounds them.
        assert clock["uncertainty_us"] >= 250, clock
        assert abs(east_minus_west + 2000) <= clock["uncertainty_us"], clock
        # A one-way delay: at least zero, less what the offset may be off by (the
        # stamps' guard keeps the data plane from wrapping; tester.tester_group).
        for stream in trial["streams"]:
            if stream["latency"] is not None:
                assert -clock["uncertainty_us"] <= stream["latency"]["min_us"] < 100_000, (
                    stream, clock)


THREE_TOPOLOGY = REPO / "topologies" / "ebpf-three-testers-bridge.yaml"
MESH_PROFILE = REPO / "topologies" / "profiles" / "mesh-3.yaml"
# Each tester's clock ahead of the host's (the topology), us.
THREE_OFFSETS_US = {"west": 0.0, "east": 1500.0, "north": -700.0}


@pytest.fixture
def three_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(THREE_TOPOLOGY, tmp_path / "lab") as topology:
        yield topology


def test_three_testers_measure_every_pairs_offset(three_lab: Path) -> None:
    """A stream each way between every two of three testers: the probes measure the
    offset of each pair that exchanges streams within 20 us of the injected ones, and
    every stream's one-way delay is a delay (no loss through the bridge, none below
    zero by more than its pair's stated uncertainty, none beyond what a veth pair and a
    bridge on this host take)."""
    profile = load_profile(MESH_PROFILE)
    with open_ebpf_group_trials(load_topology(three_lab), profile,
                                push_pipeline=False) as runner:
        for attempt in range(TESTER_LIMITED_ATTEMPTS):
            trial = runner.run_trial(TrialSpec("three-testers", attempt, 64, LOAD, TRIAL_S))
            if trial.valid:
                break
            assert trial.tester_limited, trial.error
    assert trial.valid, trial.error
    assert {frozenset((c.a, c.b)) for c in trial.clocks} == {
        frozenset(("west", "east")), frozenset(("west", "north")),
        frozenset(("east", "north"))}
    for clock in trial.clocks:
        injected = THREE_OFFSETS_US[clock.b] - THREE_OFFSETS_US[clock.a]
        assert abs(clock.offset_us - injected) <= BOUND_US, clock
        assert clock.jump == "" and clock.uncertainty_us <= BOUND_US, clock
    assert len(trial.streams) == 6
    for stream in trial.streams:
        assert stream.lost == 0 and stream.rx_frames == stream.tx_frames > 0, stream
        assert stream.latency is not None
        # At least zero, less what its pair's offset may be off by (the stamps' guard).
        (pair,) = [c for c in trial.clocks if stream.stream_id in c.a_to_b + c.b_to_a]
        assert -pair.uncertainty_us <= stream.latency.min_us < 1000, (stream, pair)


# ---- PTP on the testers' hosts ------------------------------------------------------
PTP_WAIT_S = 40.0  # ptp4l announces every 2 s and elects its master within 3 announces


@contextmanager
def ptp4l(name: str, interface: str, tmp_path: Path, *, master: bool
          ) -> Iterator[str]:
    """A ptp4l on `interface` (software timestamps) answering pmc at the path it yields.
    free_running: it never adjusts the host's clock, whatever it measures."""
    uds = str(tmp_path / f"ptp-{name}.sock")
    config = tmp_path / f"ptp-{name}.conf"
    config.write_text("[global]\n"
                      f"uds_address {uds}\nfree_running 1\n"
                      + ("priority1 1\n" if master else "slaveOnly 1\n"))
    log = (tmp_path / f"ptp-{name}.log").open("w")
    process = subprocess.Popen(["ptp4l", "-f", str(config), "-i", interface, "-S", "-2", "-m"],
                               stdout=log, stderr=subprocess.STDOUT)
    try:
        time.sleep(0.5)
        assert process.poll() is None, (tmp_path / f"ptp-{name}.log").read_text()
        yield uds
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.fixture
def ptp_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
            ) -> Iterator[Path]:
    """The symmetric lab, each tester's host running ptp4l: west's the grandmaster, east
    its (free-running) slave, over a link of their own (made after the lab's, which
    clears the lab's stale links)."""
    monkeypatch.chdir(REPO)
    west_uds, east_uds = (str(tmp_path / f"ptp-{name}.sock") for name in ("west", "east"))
    data = yaml.safe_load(_variant(tmp_path, "ptp", 0).read_text())
    data["testers"]["west"]["ptp_uds"] = west_uds
    data["testers"]["east"]["ptp_uds"] = east_uds
    variant = tmp_path / "ptp.yaml"
    variant.write_text(yaml.safe_dump(data))
    with lab_up(variant, tmp_path / "lab") as topology:
        netdev.add_veth("p4lptpw", "p4lptpe", 1500)
        try:
            with (ptp4l("west", "p4lptpw", tmp_path, master=True),
                  ptp4l("east", "p4lptpe", tmp_path, master=False)):
                deadline = time.monotonic() + PTP_WAIT_S
                while not read_ptp_state(east_uds).gm_present:
                    assert time.monotonic() < deadline, "east's ptp4l found no master"
                    time.sleep(0.5)
                yield topology
        finally:
            netdev.delete_link("p4lptpw")


def test_each_trial_says_what_ptp_said_on_both_hosts(ptp_lab: Path, tmp_path: Path) -> None:
    """Beside the offset the probes measured, the trial's clock record holds each
    host's PTP state as its ptp4l answered: west the grandmaster, east following it
    (free-running here, so never past UNCALIBRATED)."""
    trial, delays = run_captured(ptp_lab, tmp_path)
    (record,) = trial.clocks
    west, east = (record.a_ptp, record.b_ptp) if record.a == "west" else (record.b_ptp,
                                                                          record.a_ptp)
    assert west is not None and east is not None
    assert (west.answered, west.port_state, west.gm_present) == (True, "MASTER", False), west
    assert (east.answered, east.port_state, east.gm_present) == (
        True, "UNCALIBRATED", True), east
    assert east.gm_identity == west.gm_identity and east.master_offset_ns is not None
    # ptp4l -S: software timestamps, its clock the system clock; phc2sys looked for.
    assert west.timestamping == east.timestamping == "SOFTWARE", (west, east)
    assert west.phc2sys is not None and east.phc2sys is not None
    assert record.ptp_line() in one_way_table(trial).splitlines()
    assert abs(east_minus_west_us(record) - INJECTED_OFFSET_US) <= BOUND_US, record
    assert_one_way_matches_captures(trial, delays, BOUND_US)


AGENT_TOKEN = "agent-lab-token-0123456789"


@contextmanager
def agent_process(host: str, port: int, token_file: Path,
                  netns: str = "") -> Iterator[subprocess.Popen[bytes]]:
    """`p4tester otg` as one tester's agent at host:port (in network namespace `netns`
    when given), until the block ends."""
    process = subprocess.Popen(
        [*(["ip", "netns", "exec", netns] if netns else []), sys.executable, "-m",
         "p4tester", "otg", "-t", str(TOPOLOGY), "--bind", f"{host}:{port}", "--token-file",
         str(token_file)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex((host, port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.1)
        else:
            raise AssertionError(f"the agent at {host}:{port} did not listen within 30 s")
        yield process
    finally:
        if process.poll() is None:
            process.terminate()  # its shutdown unloads the tester it opened
            process.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@contextmanager
def in_own_namespace(name: str, port: int, index: int) -> Iterator[str]:
    """Tester port `port`'s interface moved into a network namespace of its own,
    p4l-<name>, joined to this one by a management link (10.250.<index>.1 here, .2
    there): another host, as far as its agent can tell. Yields the agent's address
    there. The interface comes back before the namespace goes, for the lab's down."""
    namespace, interface = f"p4l-{name}", ifaces.tester_iface(port)
    here, there = f"p4lm{index}a", f"p4lm{index}b"
    ip("netns", "add", namespace)
    try:
        ip("link", "set", interface, "netns", namespace)
        netdev.add_veth(here, there, 1500)
        ip("link", "set", there, "netns", namespace)
        ip("addr", "add", f"10.250.{index}.1/30", "dev", here)
        ip("link", "set", here, "up")
        for args in (("addr", "add", f"10.250.{index}.2/30", "dev", there),
                     ("link", "set", there, "up"), ("link", "set", interface, "up"),
                     ("link", "set", "lo", "up")):
            ip("-n", namespace, *args)
        yield f"10.250.{index}.2"
    finally:
        with suppress(subprocess.CalledProcessError):
            ip("-n", namespace, "link", "set", interface, "netns", "1")
            ip("link", "set", interface, "up")
        ip("netns", "del", namespace)  # and the management link with it


@dataclass(frozen=True)
class AgentsLab:
    topology: Path
    agents: dict[str, subprocess.Popen[bytes]]
    addresses: dict[str, str]  # each agent's host:port
    netns: dict[int, str]  # each tester port's network namespace


@pytest.fixture
def agents_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
               ) -> Iterator[AgentsLab]:
    """The two testers of the symmetric lab (east's clock 1.5 ms ahead, no drift), each
    in a network namespace of its own with its agent process there, reached from the
    controller's over a management link with the agents' token."""
    monkeypatch.chdir(REPO)
    token_file = tmp_path / "agent.token"
    token_file.write_text(AGENT_TOKEN + "\n")
    ports = {"west": free_port(), "east": free_port()}
    hosts = {"west": "10.250.1.2", "east": "10.250.2.2"}
    addresses = {name: f"{hosts[name]}:{port}" for name, port in ports.items()}
    data = yaml.safe_load(TOPOLOGY.read_text())
    data["testers"]["east"]["simulated_clock"]["drift_ppm"] = 0
    for name, address in addresses.items():
        data["testers"][name].update(agent=address, token_file=str(token_file))
    variant = tmp_path / "agents.yaml"
    variant.write_text(yaml.safe_dump(data))
    with (lab_up(variant, tmp_path / "lab") as topology,
          in_own_namespace("west", 1, 1) as west_host,
          in_own_namespace("east", 2, 2) as east_host):
        assert (west_host, east_host) == (hosts["west"], hosts["east"])
        with (agent_process(west_host, ports["west"], token_file, "p4l-west") as west,
              agent_process(east_host, ports["east"], token_file, "p4l-east") as east):
            yield AgentsLab(topology, {"west": west, "east": east}, addresses,
                            {1: "p4l-west", 2: "p4l-east"})


def test_testers_behind_agents_measure_as_testers_here(agents_lab: AgentsLab,
                                                       tmp_path: Path) -> None:
    """Each tester in its own agent process: the offset and the one-way delays are the
    injected offset's and the captures' within 20 us, as with the testers in the
    controller's process."""
    trial, delays = run_captured(agents_lab.topology, tmp_path, netns=agents_lab.netns)
    (record,) = trial.clocks
    assert abs(east_minus_west_us(record) - INJECTED_OFFSET_US) <= BOUND_US, record
    assert record.jump == "" and record.uncertainty_us <= BOUND_US, record
    assert_one_way_matches_captures(trial, delays, BOUND_US)


def test_an_agent_stopped_mid_run_ends_it_with_its_reason(agents_lab: AgentsLab,
                                                           tmp_path: Path) -> None:
    """East's agent stops while a throughput search runs: the run ends with exit code
    3, saying which tester's agent stopped answering, no traceback, and the trials it
    finished are in trials.jsonl."""
    topology, agents, addresses = agents_lab.topology, agents_lab.agents, agents_lab.addresses
    out = tmp_path / "throughput"
    run = subprocess.Popen(
        [sys.executable, "-m", "p4tester", "throughput", "-t", str(topology), "-p",
         str(PROFILE), "-o", str(out), "--frame-sizes", "64", "--duration", "2"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and run.poll() is None:
            if (out / "trials.jsonl").exists() and sum(
                    1 for t in trial_records(out) if t["valid"]) >= 2:
                break
            time.sleep(0.2)
        assert run.poll() is None, run.communicate()
        agents["east"].terminate()
        agents["east"].wait(timeout=30)
        stdout, stderr = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 3, stderr + stdout
    assert f"tester east's agent at {addresses['east']} did not answer" in stderr, stderr
    assert "Traceback" not in stderr, stderr
    finished = [t for t in trial_records(out) if t["valid"]]
    assert len(finished) >= 2 and all(len(t["clocks"]) == 1 for t in finished)


# ---- OTG across agents ---------------------------------------------------------------
OTG_FLOW_FRAMES = 4000
OTG_FLOW_PPS = 2000  # each way: well under the bucket's 20 833 frames/s
OTG_FRAME_SIZE = 128


def test_a_snappi_config_with_ports_on_two_agents_counts_as_the_captures(
        agents_lab: AgentsLab, tmp_path: Path) -> None:
    """snappi, against the controller's OTG server, names each port by its agent
    ("host:port;N", as ixia-c names a remote tester's): a flow each way between the
    two agents' testers. Each flow's counts are the captures' on both ends, its
    latency the captures' one-way delays within 20 us, and the start says the clocks'
    offset, the injected one within 20 us."""
    assert_otg_flows_match_captures(agents_lab.topology, agents_lab.addresses["west"],
                                    agents_lab.addresses["east"], tmp_path, agents_lab.netns)


# East gains 61 us a second: stamps left uncorrected over the flows' 2 s would be 61 us
# off on average, 3 times the bound; corrected every 0.1 s, at most 6.1 us.
OTG_DRIFT_PPM = 1e6 / (1 << 14)


@pytest.fixture
def fast_drift_lab(built: Path, tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(_variant(tmp_path, "fast-drift", OTG_DRIFT_PPM), tmp_path / "lab") as topology:
        yield topology


def test_otg_flows_across_testers_follow_a_drifting_clock(fast_drift_lab: Path,
                                                          tmp_path: Path) -> None:
    """The two testers in the OTG server's own process, east's clock gaining 61 ppm:
    the flows' stamps follow the drift while they run, so their one-way latency is
    still the captures' within 20 us."""
    assert_otg_flows_match_captures(fast_drift_lab, "", "", tmp_path)


def drift_of_lab(topology: Path) -> float:
    """East's simulated drift in the lab's topology (ppm)."""
    data = yaml.safe_load(topology.read_text())
    return float(data["testers"]["east"]["simulated_clock"]["drift_ppm"])


def assert_otg_flows_match_captures(topology: Path, west: str, east: str, tmp_path: Path,
                                    netns: Mapping[int, str] | None = None) -> None:
    """The snappi script's flows, started again (bounded) while the tester cannot vouch
    for a start, then checked against the captures of the vouched one."""
    server = ServerProcess([sys.executable, "-m", "p4tester", "otg", "-t", str(topology)],
                           REPO, tmp_path / "controller-otg.log")
    try:
        server.wait_listening()
        for attempt in range(TESTER_LIMITED_ATTEMPTS):
            pcaps = {name: tmp_path / f"{name}{attempt}.pcap"
                     for name in ("tx1", "rx2", "tx2", "rx1")}
            with captures(pcaps, netns) as (tx1, rx2, tx2, rx1):
                began = time.monotonic()
                done = subprocess.run(
                    [str(client_python()), "-c", TWO_WAY_FLOWS, server.url, west, east,
                     str(OTG_FLOW_FRAMES), str(OTG_FLOW_PPS), str(OTG_FRAME_SIZE)],
                    capture_output=True, text=True, timeout=CLIENT_S, check=False)
                client_s = time.monotonic() - began
            assert done.returncode == 0, done.stderr + server.log()
            out = json.loads(done.stdout.strip().splitlines()[-1])
            if out["stop_warnings"] == []:
                break
    finally:
        server.stop()
    assert out["stop_warnings"] == [], out["stop_warnings"]
    assert out["config_warnings"] == []
    clock, ptp = out["start_warnings"]
    assert ptp == ("west: no PTP (ptp4l does not answer at /var/run/ptp4l); "
                   "east: no PTP (ptp4l does not answer at /var/run/ptp4l)"), ptp
    said = re.fullmatch(r"clock east - west: ([-+][\d.]+) us \+- ([\d.]+) us \(drift "
                        r"(-?[\d.]+) ppm; \d probe rounds\)", clock)
    assert said is not None, clock
    # The drift the stamps follow is judged by the flows' delays against the captures.
    offset_us = float(said.group(1))
    # The simulated clock is set when the first config loads the testers: by this start,
    # its drift has added at most the drift over the clients' runs.
    drifted_us = drift_of_lab(topology) * client_s * (attempt + 1)
    assert INJECTED_OFFSET_US - BOUND_US <= offset_us <= INJECTED_OFFSET_US + drifted_us \
        + BOUND_US, clock
    assert [c.dropped_by_capture for c in (tx1, rx2, tx2, rx1)] == [0, 0, 0, 0]
    # Each start is one epoch on: the vouched start's frames carry its attempt's.
    epoch = attempt
    for name, stream, sent, received in (("west-east", 0, "tx1", "rx2"),
                                         ("east-west", 1, "tx2", "rx1")):
        flow = out["flows"][name]
        assert (int(flow["frames_tx"]), int(flow["frames_rx"])) == (OTG_FLOW_FRAMES,
                                                                   OTG_FLOW_FRAMES), flow
        # Each flow's frames, once, on both ends.
        assert stream_frames_by_epoch(pcaps[sent], stream)[epoch] == OTG_FLOW_FRAMES
        assert stream_frames_by_epoch(pcaps[received], stream)[epoch] == OTG_FLOW_FRAMES
        delays = list(frame_latencies_us(stream_times(pcaps[sent], stream, epoch),
                                         stream_times(pcaps[received], stream,
                                                      epoch)).values())
        latency = flow["latency"]
        assert abs(latency["average_ns"] / 1000 - mean(delays)) <= BOUND_US, (name, latency)
        assert abs(latency["minimum_ns"] / 1000 - min(delays)) <= BOUND_US, (name, latency)
