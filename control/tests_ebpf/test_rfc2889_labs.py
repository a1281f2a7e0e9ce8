"""RFC 2889 on the eBPF tester, as a user runs it (`p4tester rfc2889`), against a Linux
bridge whose behaviour is known (topologies/ebpf-bridge-mesh.yaml,
ebpf-bridge-hol.yaml and ebpf-bridge-pressure.yaml, profile
topologies/profiles/mesh-4.yaml):

- bridge port 3's egress forwards 60 % of the ports' line rate (the mesh lab: tbf
  1071 kbit/s, 2231 frames/s of 64 B at 2.5 Mbit/s), so the fully meshed throughput
  is 60 % and port 3's forwarding rate at the maximum offered load is that rate;
- queues are per output port, so the congestion control test's uncongested port
  loses nothing; with an input FIFO on port 1 (the hol lab) it does: head-of-line
  blocking;
- forward pressure (the pressure lab): bridge port 2 keeps its output at line rate
  (a token bucket counting each frame's L1 size), port 3 forwards all it receives.

Checked against the DUT's own counters: every frame the trials lost is a drop of one
of the DUT's token buckets (`tc -s qdisc`), and the other way round."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from p4tester.lab.bridge_dut import qdisc_drops

from .conftest import REPO, lab_up

MESH_LAB = REPO / "topologies" / "ebpf-bridge-mesh.yaml"
HOL_LAB = REPO / "topologies" / "ebpf-bridge-hol.yaml"
PRESSURE_LAB = REPO / "topologies" / "ebpf-bridge-pressure.yaml"
PROFILE = "topologies/profiles/mesh-4.yaml"
LINE_64B_PPS = 10e6 / (84 * 8)  # the hol and pressure labs' nominal 10 Mbit/s
MESH_LINE_64B_PPS = 2.5e6 / (84 * 8)  # the mesh lab's 2.5 Mbit/s
GAP_88_64B_PPS = 10e6 / (83 * 8)  # one byte less per frame: 15 060.24 frames/s
# The verdict's tolerance (rfc2889_pressure.PRESSURE_TOLERANCE): the line-rate port's
# forwarding rate must be the legal maximum within it.
PRESSURE_TOLERANCE = 0.005
MESH_PORT3_LIMIT_PPS = 1071e3 / (60 * 8)  # tbf counts a 64-B frame as 60 B
INPUT_QUEUE_PPS = 3571e3 / (60 * 8)  # the hol lab's FIFO on port 1
CLI_TIMEOUT_S = 900



def rfc2889(lab: Path, output: Path, *options: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "p4tester", "rfc2889", "-t", str(lab), "-p", PROFILE,
         "-o", str(output), "--json", "--frame-sizes", "64", *options],
        cwd=REPO, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def lost_in_all_trials(output: Path) -> int:
    """Frames every trial of the run lost, per stream (TX - RX), learning included."""
    lost = 0
    for line in (output / "trials.jsonl").read_text().splitlines():
        trial = json.loads(line).get("trial")  # the first line is the run's header
        for stream in trial["streams"] if trial else []:
            lost += max(0, stream["tx_frames"] - stream["rx_frames"])
    return lost


@pytest.fixture
def mesh_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(MESH_LAB, tmp_path / "lab") as topology:
        yield topology


@pytest.fixture
def hol_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(HOL_LAB, tmp_path / "lab") as topology:
        yield topology


@pytest.fixture
def pressure_lab(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(REPO)
    with lab_up(PRESSURE_LAB, tmp_path / "lab") as topology:
        yield topology


def test_forward_pressure_only_where_the_dut_forwards_above_line_rate(
        pressure_lab: Path, tmp_path: Path) -> None:
    # 4-s trials: the token bucket's 100 frames of burst and queue are 0.17 % of one.
    options = ("--test", "forward-pressure", "--mfr-steps", "2", "--duration", "4")
    kept = rfc2889(pressure_lab, tmp_path / "kept", *options, "--ports", "1,2")
    (size,) = kept["result"]["sizes"]
    pressure = size["iterations"][-1]
    assert pressure["ifg_bits"] == 88
    assert pressure["load"] == pytest.approx(84 / 83)
    # The tester proved it offered the 88-bit gaps' rate (its own clock, within 1 %).
    assert abs(pressure["offered_pps"] - GAP_88_64B_PPS) / GAP_88_64B_PPS <= 0.01
    assert size["legal_max_pps"] == pytest.approx(LINE_64B_PPS)
    forwarded = pressure["forwarding"]["forwarding_rate_pps"]
    assert abs(forwarded - LINE_64B_PPS) / LINE_64B_PPS <= PRESSURE_TOLERANCE, kept["report"]
    assert size["forward_pressure"] is False, kept["report"]
    # The MFR: the legal maximum, at 100 % or at the 88-bit gaps (the bucket's burst).
    assert abs(size["mfr_pps"] - LINE_64B_PPS) / LINE_64B_PPS <= PRESSURE_TOLERANCE
    assert lost_in_all_trials(tmp_path / "kept") == qdisc_drops("p4ld2")
    assert pressure["forwarding"]["lost"] > 0  # the excess was dropped, not forwarded

    passed = rfc2889(pressure_lab, tmp_path / "passed", *options, "--ports", "1,3")
    (size,) = passed["result"]["sizes"]
    pressure = size["iterations"][-1]
    assert pressure["forwarding"]["lost"] == 0, passed["report"]
    forwarded = pressure["forwarding"]["forwarding_rate_pps"]
    # Everything sent, over the window it was offered in: the trial's 4 s, or the longer
    # time a sender slowed by the host took (the rate it proved it offered).
    sent = pressure["forwarding"]["sent"]
    window_s = max(4.0, sent / pressure["offered_pps"])
    assert pressure["forwarding"]["duration_s"] == pytest.approx(window_s)
    assert forwarded == pytest.approx(sent / window_s)
    assert forwarded > LINE_64B_PPS * (1 + PRESSURE_TOLERANCE)
    assert size["forward_pressure"] is True, passed["report"]
    assert size["mfr_pps"] == forwarded
    assert size["mfr_load"] == pytest.approx(84 / 83)


def test_fully_meshed_finds_the_slow_port(mesh_lab: Path, tmp_path: Path) -> None:
    output = tmp_path / "mesh"
    answer = rfc2889(mesh_lab, output, "--test", "fully-meshed", "--ports", "1,2,3,4")
    (size,) = answer["result"]["meshed"]
    ndr = size["throughput"]["ndr"]["lower"]["percent"] / 100
    limit = MESH_PORT3_LIMIT_PPS / MESH_LINE_64B_PPS  # 0.5998
    assert abs(ndr - limit) / limit <= 0.03, (ndr, answer["report"])
    ports = {p["port"]: p for p in size["ports"]}
    # At the MOL every port is offered its line rate; port 3 forwards its bucket's
    # rate (plus the 26-frame burst and 53-frame queue over the 2-s trial).
    assert abs(ports[3]["forwarding_rate_pps"] - MESH_PORT3_LIMIT_PPS) <= (
        0.03 * MESH_PORT3_LIMIT_PPS)
    assert [ports[p]["lost"] for p in (1, 2, 4)] == [0, 0, 0], answer["report"]
    assert size["at_max_load"]["rx_mismatched"] == 0  # learnt: nothing flooded
    assert lost_in_all_trials(output) == qdisc_drops("p4ld3")


def test_congestion_control_without_and_with_head_of_line_blocking(
        mesh_lab: Path, tmp_path: Path) -> None:
    answer = rfc2889(mesh_lab, tmp_path / "oq", "--test", "congestion-control",
                     "--ports", "1,2,3,4")
    (size,) = answer["result"]["congestion"]
    assert size["head_of_line_blocking"] is False, answer["report"]
    assert size["uncongested"]["lost"] == 0
    assert size["uncongested"]["received"] == size["uncongested"]["sent"]
    assert size["back_pressure"] is False
    congested = size["congested"]
    assert congested["load_share"] == pytest.approx(1.5)
    assert abs(congested["forwarding_rate_pps"] - MESH_PORT3_LIMIT_PPS) <= (
        0.03 * MESH_PORT3_LIMIT_PPS)
    assert lost_in_all_trials(tmp_path / "oq") == qdisc_drops("p4ld3")


def test_an_input_fifo_is_head_of_line_blocking(hol_lab: Path, tmp_path: Path) -> None:
    answer = rfc2889(hol_lab, tmp_path / "hol", "--test", "congestion-control",
                     "--ports", "1,2,3,4")
    (size,) = answer["result"]["congestion"]
    assert size["head_of_line_blocking"] is True, answer["report"]
    uncongested = size["uncongested"]
    # Port 1's FIFO passes 7440 frames/s of its 14 881, for port 3 and port 4 alike:
    # port 4 gets a part of them and loses a large share of its 7440 frames/s.
    assert uncongested["forwarding_rate_pps"] <= INPUT_QUEUE_PPS
    assert uncongested["lost"] >= 0.25 * uncongested["sent"], answer["report"]
    # Every frame lost is a drop of the FIFO or of port 3's bucket, and nothing else.
    assert lost_in_all_trials(tmp_path / "hol") == qdisc_drops("p4lq1") + qdisc_drops("p4ld3")
