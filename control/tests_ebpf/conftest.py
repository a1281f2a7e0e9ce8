"""The checker and generator on the eBPF target: the PTF suite's semantics, on
veth pairs this suite creates, with the program compiled by p4c-ebpf and
attached by tc. Needs the ebpf toolchain and root, and skips (saying so) without
them; under CI=true (or REQUIRE_P4_TOOLCHAIN=1) a missing prerequisite fails.

Ports: port 1 (p4eb1a, peer p4eb1b), port 2 (p4eb2a, peer p4eb2b), the generator
interface (p4ebga, the sender writes into p4ebgb). The tests inject frames into
a port's peer; the loop tests bridge p4eb1b and p4eb2b, so what port 1 sends
comes back on port 2."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from p4tester.config.topology import load_topology
from p4tester.lab.runner import down, up
from p4tester.targets.ebpf.pipeline import EbpfPipeline
from p4tester.targets.ebpf.tester import EbpfTester

REPO = Path(__file__).resolve().parents[2]
# Where `make build-ebpf` puts the program, and where topologies' ebpf_object points.
BUILD = REPO / "build" / "ebpf"
PORTS = {1: "p4eb1", 2: "p4eb2"}
GENERATOR = "p4ebg"
BRIDGE = "p4ebbr"


def missing_prerequisite() -> str | None:
    if os.geteuid() != 0:
        return "needs root (veth pairs, tc, a BPF file system)"
    for tool in ("/opt/p4c-ebpf/bin/p4c-ebpf", "clang", "llc", "bpftool", "tc"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (make setup installs the ebpf toolchain)"
    return None


def toolchain_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("REQUIRE_P4_TOOLCHAIN") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing_prerequisite()
    if reason is None:
        return
    if toolchain_required():
        pytest.exit(f"eBPF suite FAILED: {reason}; CI=true requires it", returncode=1)
    print(f"\neBPF suite SKIPPED: {reason}")
    for item in items:
        item.add_marker(pytest.mark.skip(reason=reason))


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def _create_links() -> None:
    for name in [*PORTS.values(), GENERATOR]:
        _ip("link", "add", "name", f"{name}a", "type", "veth", "peer", "name", f"{name}b")
        for end in ("a", "b"):
            # No IPv6 on these links: the kernel's own router solicitations and
            # MLD reports would be frames the tests did not send.
            Path(f"/proc/sys/net/ipv6/conf/{name}{end}/disable_ipv6").write_text("1\n")
            _ip("link", "set", f"{name}{end}", "up")


def _delete_links() -> None:
    for name in [*PORTS.values(), GENERATOR]:
        subprocess.run(["ip", "link", "del", f"{name}a"], capture_output=True, check=False)
    subprocess.run(["ip", "link", "del", BRIDGE], capture_output=True, check=False)


@pytest.fixture(scope="session")
def built() -> Path:
    """The program, compiled from this checkout's sources once per session."""
    subprocess.run(["bash", "scripts/p4-build-ebpf.sh", str(BUILD)], cwd=REPO, check=True,
                   capture_output=True)
    return BUILD / "tester.o"


@pytest.fixture(scope="session")
def pipeline(built: Path) -> Iterator[EbpfPipeline]:
    _delete_links()  # what a killed earlier run of this suite left
    _create_links()
    loaded = EbpfPipeline(BUILD / "tester.o", BUILD / "tester.c", BUILD / "pins")
    try:
        loaded.mount()
        for name in [*PORTS.values(), GENERATOR]:
            loaded.attach(f"{name}a")
        loaded.initialize()
        yield loaded
    finally:
        loaded.close()
        _delete_links()


@pytest.fixture
def tester(pipeline: EbpfPipeline) -> Iterator[EbpfTester]:
    """The program with ports set and every stream in no trial, cleared."""
    driver = EbpfTester(pipeline.maps)
    for number, name in PORTS.items():
        driver.set_tester_port(pipeline.ifindex(f"{name}a"), number)
    driver.set_generator_port(pipeline.ifindex(f"{GENERATOR}a"))
    for stream in range(4):
        driver.forget_stream(stream)
        driver.stop_stream(stream)
        driver.clear_stream(stream)
    for kind in range(8):
        pipeline.maps.reset_counter("TesterIngress_rx_kind", kind)
    for number in PORTS:
        pipeline.maps.reset_counter("TesterIngress_rx_port", number)
        pipeline.maps.reset_counter("TesterEgress_tx_port", number)
    driver.set_latency_bins([0, 1 << 31])
    yield driver


@pytest.fixture
def loop() -> Iterator[None]:
    """Port 1's peer bridged to port 2's: a DUT that forwards everything."""
    _ip("link", "add", "name", BRIDGE, "type", "bridge")
    try:
        Path(f"/proc/sys/net/ipv6/conf/{BRIDGE}/disable_ipv6").write_text("1\n")
        for name in PORTS.values():
            _ip("link", "set", f"{name}b", "master", BRIDGE)
        _ip("link", "set", BRIDGE, "up")
        yield
    finally:
        subprocess.run(["ip", "link", "del", BRIDGE], capture_output=True, check=False)


@contextmanager
def lab_up(topology: Path, rundir: Path) -> Iterator[Path]:
    """A lab of this target (`lab up`: links and DUT, no switch) for the block, taken
    down after whatever happens."""
    up(load_topology(topology), rundir)
    try:
        yield topology
    finally:
        down(rundir)
