"""Bring your own network (issue 13): a p4lang/tutorials-format exercise
(topologies/tutorials/basic: topology.json, runtime_json entries, the routed P4
program) with the tester in place of hosts h1 and h2 is the DUT of a throughput run;
its NDR is the rate s2's cli_input sets on its port toward h2, within 2 %."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import p4tester

PROFILE = "topologies/tutorials/basic/profile.yaml"
S2_QUEUE_RATE_PPS = 2500  # topologies/tutorials/basic/s2-commands.txt


@pytest.mark.topology("mininet-tutorials-basic.yaml")
def test_ndr_of_a_tutorials_network_is_its_configured_limit(lab: Path, tmp_path: Path) -> None:
    done = p4tester("throughput", "-t", str(lab), "-p", PROFILE, "-o", str(tmp_path / "ndr"),
                    "--json", "--push-pipeline", "--frame-sizes", "64", "--duration", "2")
    assert done.returncode == 0, done.stderr + done.stdout
    (size,) = json.loads(done.stdout)["result"]["sizes"]
    ndr = size["ndr"]["lower"]["pps"]
    assert abs(ndr - S2_QUEUE_RATE_PPS) / S2_QUEUE_RATE_PPS <= 0.02, ndr
    assert (tmp_path / "ndr/throughput.png").stat().st_size > 0
