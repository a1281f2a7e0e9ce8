"""Bring your own network (issue 13): a p4lang/tutorials-format exercise
(topologies/tutorials/basic: topology.json, runtime_json entries, the routed P4
program) with the tester in place of hosts h1 and h2 is the DUT of a throughput run;
its NDR is the rate s2's cli_input sets on its port toward h2, within 2 %. Likewise
a p4-utils p4app.json network."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import NEEDS_MININET, p4tester

pytestmark = NEEDS_MININET

PROFILE = "topologies/tutorials/basic/profile.yaml"
S2_QUEUE_RATE_PPS = 2500  # topologies/tutorials/basic/s2-commands.txt
P4UTILS_S2_QUEUE_RATE_PPS = 2000  # topologies/tutorials/p4utils-line/s2-commands.txt


@pytest.mark.topology("mininet-tutorials-basic.yaml")
def test_ndr_of_a_tutorials_network_is_its_configured_limit(lab: Path, tmp_path: Path) -> None:
    assert ndr_pps(lab, tmp_path) == pytest.approx(S2_QUEUE_RATE_PPS, rel=0.02)


@pytest.mark.topology("mininet-p4utils-line.yaml")
def test_ndr_of_a_p4utils_network_is_its_configured_limit(lab: Path, tmp_path: Path) -> None:
    """The same routed program from a p4-utils p4app.json (compiled at lab up, entries
    by thrift CLI)."""
    assert ndr_pps(lab, tmp_path) == pytest.approx(P4UTILS_S2_QUEUE_RATE_PPS, rel=0.02)


def ndr_pps(lab: Path, tmp_path: Path) -> float:
    done = p4tester("throughput", "-t", str(lab), "-p", PROFILE, "-o", str(tmp_path / "ndr"),
                    "--json", "--push-pipeline", "--frame-sizes", "64", "--duration", "2")
    assert done.returncode == 0, done.stderr + done.stdout
    (size,) = json.loads(done.stdout)["result"]["sizes"]
    assert (tmp_path / "ndr/throughput.png").stat().st_size > 0
    return float(size["ndr"]["lower"]["pps"])
