"""The OTG conformance suite's data-plane back-to-back tests (udp, tcp and vxlan, pinned
commit, scripts/otg-conformance.sh) against `p4tester otg` on the BMv2 loopback
lab: tester ports 1 and 2 are cabled to each other, which is what b2b means.
Every test must pass, with the suite's capture checks off (flow metrics only) and
on (every captured frame's size, addresses, lengths and per-frame ports and VNIs too)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from test_otg_snappi import OtgServer, client_python

from conftest import REPO

# feature/b2b/packet/udp: 4 tests, tcp: 3, vxlan: 2 at b6d8068.
SUITE_TESTS = 9  # the README says so: test_the_readme_states_the_suites_size
SUITE_S = 900


@pytest.mark.parametrize("capture_check", ["false", "true"])
@pytest.mark.topology("loopback.yaml")
def test_conformance_b2b_packet(lab: Path, tmp_path: Path, capture_check: str) -> None:
    client_python()
    server = OtgServer(lab, tmp_path / "otg.log")
    try:
        server.wait_listening()
        done = subprocess.run(
            ["bash", str(REPO / "scripts" / "otg-conformance.sh")],
            cwd=REPO, capture_output=True, text=True, timeout=SUITE_S, check=False,
            env={**os.environ, "OTG_HOST": server.url, "OTG_CAPTURE_CHECK": capture_check})
    finally:
        server.stop()
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, f"{done.stdout[-6000:]}\n{done.stderr[-3000:]}\n{server.log()}"
    assert re.search(rf"\b{SUITE_TESTS} passed\b", summary), summary
    assert not re.search(r"failed|error|skipped", summary), summary
    captures = done.stdout.count("Getting capture for port")
    assert captures == (SUITE_TESTS if capture_check == "true" else 0), done.stdout[-3000:]


def test_the_readme_states_the_suites_size() -> None:
    readme = " ".join((REPO / "README.md").read_text().split())
    assert (f"back-to-back udp, tcp and vxlan tests (all {SUITE_TESTS} pass on the loopback "
            "lab") in readme
