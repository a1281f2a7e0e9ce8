"""End-to-end tests on BMv2 labs: they need p4c/BMv2 and root, and skip (saying
so once) without them; under CI=true (or REQUIRE_P4_TOOLCHAIN=1) a missing
prerequisite fails the suite instead, because CI must run everything. Each test
brings its lab up and always takes it down."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from p4tester.config.topology import load_topology
from p4tester.lab.processes import BUILD_ENV
from p4tester.lab.runner import down, up
from p4tester.results.jsonl import ResultLog
from p4tester.results.model import TrialResult

REPO = Path(__file__).resolve().parents[2]
TOOLCHAIN = ("p4c-bm2-ss", "simple_switch_grpc", "simple_switch_CLI")
CLI_TIMEOUT_S = 600


def missing_prerequisite() -> str | None:
    absent = [tool for tool in TOOLCHAIN if shutil.which(tool) is None]
    if absent:
        return f"{', '.join(absent)} not installed (README, 'Quick start on a lab host')"
    if os.geteuid() != 0:
        return "needs root (veth pairs, namespaces)"
    return None


def toolchain_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("REQUIRE_P4_TOOLCHAIN") == "1"


# Debian's mininet (its mnexec) is a prerequisite of the Mininet labs like the P4
# toolchain: their tests are skipped, saying so, on a machine without it; under CI=true
# they run and fail instead. `pytestmark = NEEDS_MININET` in such a test file.
NEEDS_MININET = pytest.mark.skipif(
    (shutil.which("mnexec") is None or importlib.util.find_spec("mininet") is None)
    and not toolchain_required(),
    reason="Mininet not installed: apt-get install --no-install-recommends mininet "
           "bridge-utils iputils-ping net-tools")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing_prerequisite()
    if reason is None:
        return
    if toolchain_required():
        pytest.exit(f"E2E suite FAILED: {reason}; CI=true requires it (make setup)", returncode=1)
    print(f"\nE2E suite SKIPPED: {reason}")
    for item in items:
        item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def lab(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """The lab of the topology named by the test's `topology` marker; yields its file."""
    marker = request.node.get_closest_marker("topology")
    assert marker is not None, "an e2e test names its lab: @pytest.mark.topology('x.yaml')"
    path = REPO / "topologies" / marker.args[0]
    rundir = tmp_path / "lab"
    os.chdir(REPO)
    build = request.node.get_closest_marker("bmv2_build")
    with pytest.MonkeyPatch.context() as env:
        if build is not None:
            env.setenv(BUILD_ENV, build.args[0])
        up(load_topology(path), rundir)
    try:
        yield path
    finally:
        down(rundir)


# The labs the suite runs, whose needs the host must meet before any of them runs.
CHECKED_LABS = ("loopback", "bmv2-dut", "bmv2-impaired", "bmv2-delay", "bmv2-deep-queue",
                "bmv2-deep-queue-300",
                "bmv2-lossy-duplicating",
                "congestion-2to1",
                "linux-router", "bmv2-services", "mininet-bmv2-dut",
                "mininet-congestion-2to1",
                "mininet-linux-router")


@pytest.fixture(scope="session", autouse=True)
def host_carries_the_labs(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Before any lab runs: the tester's capacity on this host (p4tester calibrate, 64 B,
    median of 3) against what each lab needs (its DUT's limit with a margin,
    config.dut_limits). A host too slow says so, with both figures, instead of failing
    lab by lab."""
    if missing_prerequisite() is not None:
        return
    rundir = tmp_path_factory.mktemp("capacity")
    os.chdir(REPO)
    up(load_topology(REPO / "topologies/loopback.yaml"), rundir / "lab")
    try:
        done = p4tester("calibrate", "-t", "topologies/loopback.yaml", "-o", str(rundir / "out"),
                        "--store", str(rundir / "calibration.json"), "--frame-sizes", "64",
                        "--repetitions", "3", "--push-pipeline", "--require-for",
                        *(f"topologies/{name}.yaml" for name in CHECKED_LABS))
    finally:
        down(rundir / "lab")
    print(f"\nhost capacity before the labs:\n{done.stdout}")
    if done.returncode != 0:
        pytest.exit(f"E2E suite FAILED before any lab ran: {done.stderr.strip()}", returncode=1)


def p4tester(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it, bounded in time."""
    return subprocess.run([sys.executable, "-m", "p4tester", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)


def valid_latency_trials(lab: Path, profile: str, output: Path, *, load_pps: int,
                         trials: int) -> list[TrialResult]:
    """`p4tester latency` at a fixed load on a lab, its trials as written; the valid ones
    (at least one: a trial the tester cannot vouch for is kept out of the figures)."""
    done = p4tester("latency", "-t", str(lab), "-p", profile, "-o", str(output),
                    "--frame-size", "64", "--load", f"{load_pps}pps", "--trials", str(trials),
                    "--duration", "2", "--push-pipeline")
    assert done.returncode == 0, done.stderr + done.stdout
    written = ResultLog(output / "trials.jsonl").load()
    valid = [t for t in written if t.valid]
    assert valid, [t.error for t in written]
    return valid


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "topology(name): the lab topology file the test needs")
    config.addinivalue_line("markers", "bmv2_build(name): the lab's BMv2 build (measurement or "
                            "logging; default: measurement)")
