"""RFC 2889 on the eBPF tester, as a user runs it (`p4tester rfc2889`), against a Linux
bridge whose behaviour is known (topologies/ebpf-bridge-mesh.yaml and
ebpf-bridge-hol.yaml, profile topologies/profiles/mesh-4.yaml):

- bridge port 3's egress forwards 60 % of the ports' line rate (tbf 4286 kbit/s:
  8929 frames/s of 64 B), so the fully meshed throughput is 60 % and port 3's
  forwarding rate at the maximum offered load is that rate;
- queues are per output port, so the congestion control test's uncongested port
  loses nothing; with an input FIFO on port 1 (the hol lab) it does: head-of-line
  blocking.

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
PROFILE = "topologies/profiles/mesh-4.yaml"
LINE_64B_PPS = 10e6 / (84 * 8)  # the ports' nominal 10 Mbit/s
PORT3_LIMIT_PPS = 4286e3 / (60 * 8)  # tbf counts a 64-B frame as 60 B
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


def test_fully_meshed_finds_the_slow_port(mesh_lab: Path, tmp_path: Path) -> None:
    output = tmp_path / "mesh"
    answer = rfc2889(mesh_lab, output, "--test", "fully-meshed", "--ports", "1,2,3,4")
    (size,) = answer["result"]["meshed"]
    ndr = size["throughput"]["ndr"]["lower"]["percent"] / 100
    limit = PORT3_LIMIT_PPS / LINE_64B_PPS  # 0.6000
    assert abs(ndr - limit) / limit <= 0.03, (ndr, answer["report"])
    ports = {p["port"]: p for p in size["ports"]}
    # At the MOL every port is offered its line rate; port 3 forwards its bucket's
    # rate (plus the 50-frame burst and 100-frame queue over the 2-s trial).
    assert abs(ports[3]["forwarding_rate_pps"] - PORT3_LIMIT_PPS) / PORT3_LIMIT_PPS <= 0.03
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
    assert abs(congested["forwarding_rate_pps"] - PORT3_LIMIT_PPS) / PORT3_LIMIT_PPS <= 0.03
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
