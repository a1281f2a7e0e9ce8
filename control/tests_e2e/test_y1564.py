"""Y.1564 on a BMv2 DUT with a shaper per service (topologies/bmv2-services.yaml): gold's
queue runs just above its CIR + EIR, so gold passes every step; silver's at 60 % of its
CIR, so silver passes the 25 % and 50 % CIR steps, fails from 75 % on, and fails the
performance test. Each service's frames lost, over all its trials, are exactly the
frames its DUT port received and did not send (the DUT's own counters)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p4tester.config.topology import load_topology
from p4tester.lab.dut_counters import dut_counters_for
from p4tester.results.jsonl import ResultLog
from p4tester.tester.selfcheck import ProgramPortCounts

from conftest import p4tester

PROFILE = "topologies/profiles/y1564-services.yaml"
# service: (stream, DUT ingress port, DUT egress port), topologies/bmv2-services.yaml
SERVICES = {"gold": (0, 1, 2), "silver": (1, 3, 4)}


def failed(step: dict[str, Any]) -> list[str]:
    return [c["name"] for c in step["criteria"] if c["passed"] is False]


def dut_drops(before: ProgramPortCounts, after: ProgramPortCounts) -> dict[str, int]:
    """Per service: frames its DUT ingress port took in and its egress port did not send."""
    return {name: (after.rx[i] - before.rx[i]) - (after.tx[e] - before.tx[e])
            for name, (_, i, e) in SERVICES.items()}


@pytest.mark.topology("bmv2-services.yaml")
def test_y1564_finds_the_misconfigured_service_at_its_step(lab: Path, tmp_path: Path) -> None:
    dut = dut_counters_for(load_topology(lab))
    assert dut is not None
    before = dut.read_program()
    out = tmp_path / "y1564"
    done = p4tester("y1564", "-t", str(lab), "-p", PROFILE, "-o", str(out), "--json",
                    "--frame-size", "512", "--performance-duration", "6")
    assert done.returncode == 0, done.stderr + done.stdout
    after = dut.read_program()
    assert before is not None and after is not None
    document: dict[str, Any] = json.loads(done.stdout)
    gold, silver = document["result"]["services"]

    assert [(s["step"], s["cir_share"], failed(s)) for s in gold["configuration"]] == [
        ("cir", 0.25, []), ("cir", 0.5, []), ("cir", 0.75, []), ("cir", 1.0, []),
        ("eir", None, []), ("policing", None, [])]
    assert failed(gold["performance"]) == []
    # 88 frames/s pass: 75 % of silver's CIR is 110 frames/s of 512 B.
    assert [(s["step"], s["cir_share"]) for s in silver["configuration"]] == [
        ("cir", 0.25), ("cir", 0.5), ("cir", 0.75), ("cir", 1.0), ("policing", None)]
    assert [failed(s) for s in silver["configuration"][:2]] == [[], []]
    assert all({"IR", "FLR"} <= set(failed(s)) for s in silver["configuration"][2:4])
    assert failed(silver["configuration"][4]) == ["IR"]
    assert {"IR", "FLR"} <= set(failed(silver["performance"]))
    assert silver["performance"]["availability_pct"] == 100.0  # lost 40 %, not > 50 %

    # Every frame of every trial (a repeated one's too) went through the DUT.
    trials = ResultLog(out / "trials.jsonl").load()
    assert all(t.valid for t in trials), [t.error for t in trials if not t.valid]
    drops = dut_drops(before, after)
    for name, (stream_id, _, _) in SERVICES.items():
        lost = sum(s.lost for t in trials for s in t.streams if s.stream_id == stream_id)
        assert lost == drops[name], (name, lost, drops)
    assert drops["gold"] > 0  # the policing step's overshoot
    report = (out / "result.txt").read_text()
    assert "service gold: PASS" in report and "service silver: FAIL" in report
