"""`p4tester otg` on the eBPF tester (topologies/ebpf-loopback.yaml): the OTG HTTP API,
driven here by its JSON as snappi sends it (and by snappi itself for the varied
fields), runs flows through the eBPF flow engine
(targets.ebpf.flows) unchanged from BMv2's.

Checked: a flow at 20 000 frames/s (beyond what the BMv2 tester carries) with a fixed
count gives frames and bytes, flow and port, exactly its count, equal to a tcpdump
count of what reached the receiving port; a fixed flow stops alone while a continuous
one runs on; a pause holds a flow's count and a resume sends exactly the rest; and a
server stopped by SIGTERM leaves no BPF mount behind."""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scapy.utils import rdpcap

from p4tester.lab import ifaces

from .conftest import REPO, lab_up

# The e2e suite's capture: the same independent count as on BMv2 labs.
sys.path.insert(0, str(REPO / "control" / "tests_e2e"))
from capture import capture_received, stream_frames_by_epoch  # type: ignore[import-not-found]
from otg_field_checks import assert_frames_as_patterned  # type: ignore[import-not-found]
from served import ServerProcess  # type: ignore[import-not-found]
from snappi_spread import run_spread  # type: ignore[import-not-found]

TOPOLOGY = REPO / "topologies" / "ebpf-loopback.yaml"
WAIT_S = 60.0
FAST_COUNT = 40_000
FAST_PPS = 20_000
SIZE = 128


class OtgServer(ServerProcess):  # type: ignore[misc]
    """`p4tester otg` on the eBPF loopback lab, with the OTG requests the tests make."""

    def __init__(self, log_path: Path) -> None:
        super().__init__([sys.executable, "-m", "p4tester", "otg", "-t", str(TOPOLOGY)], REPO,
                         log_path)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(f"{self.url}{path}", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{path}: {error.code} {error.read()!r}\n{self.log()}") from None

    def traffic(self, state: str) -> None:
        self.post("/control/state", {"choice": "traffic", "traffic": {
            "choice": "flow_transmit", "flow_transmit": {"state": state}}})

    def flows(self) -> dict[str, dict[str, Any]]:
        found = self.post("/monitor/metrics", {"choice": "flow", "flow": {"flow_names": []}})
        return {m["name"]: m for m in found["flow_metrics"]}

    def ports(self) -> dict[str, dict[str, Any]]:
        found = self.post("/monitor/metrics", {"choice": "port", "port": {"port_names": []}})
        return {m["name"]: m for m in found["port_metrics"]}

    def wait_stopped(self, names: list[str]) -> dict[str, dict[str, Any]]:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            flows = self.flows()
            if all(flows[n]["transmit"] == "stopped" for n in names):
                return flows
            time.sleep(0.1)
        raise AssertionError(f"flows {names} did not stop: {self.log()}")


def bpf_mounts() -> set[str]:
    """The BPF file systems eBPF tester sessions mounted (targets.ebpf.session)."""
    return {line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()
            if "/p4tester-bpf-" in line.split()[4]}


def flow(name: str, *, pps: int, duration: dict[str, Any], mac: str) -> dict[str, Any]:
    return {"name": name, "tx_rx": {"choice": "port", "port": {"tx_name": "p1",
                                                                "rx_names": ["p2"]}},
            "duration": duration, "rate": {"choice": "pps", "pps": pps},
            "size": {"choice": "fixed", "fixed": SIZE},
            "metrics": {"enable": True, "latency": {"enable": True}},
            "packet": [{"choice": "ethernet", "ethernet": {"src": {"choice": "value",
                                                                  "value": mac}}},
                       {"choice": "ipv4", "ipv4": {}}, {"choice": "udp", "udp": {}}]}


def config(*flows: dict[str, Any]) -> dict[str, Any]:
    return {"ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
            "flows": list(flows)}


def packets(count: int) -> dict[str, Any]:
    return {"choice": "fixed_packets", "fixed_packets": {"packets": count}}


@pytest.fixture
def otg(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[OtgServer]:
    monkeypatch.chdir(REPO)
    with lab_up(TOPOLOGY, tmp_path / "lab"):
        mounts_before = bpf_mounts()
        server = OtgServer(tmp_path / "otg.log")
        try:
            server.wait_listening()
            yield server
        finally:
            server.stop()
        # Stopped as a service manager stops it (SIGTERM), the server closed its tester:
        # the program's BPF mount is gone with it.
        assert bpf_mounts() == mounts_before, server.log()


def test_a_fast_fixed_flow_counts_exactly_and_the_capture_agrees(otg: OtgServer,
                                                                 tmp_path: Path) -> None:
    warnings = otg.post("/config", config(flow("fast", pps=FAST_PPS, duration=packets(
        FAST_COUNT), mac="02:00:00:00:0d:01")))
    assert warnings is None or warnings.get("warnings", []) == []
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap) as capture:
        otg.traffic("start")
        flows = otg.wait_stopped(["fast"])
    fast = flows["fast"]
    assert (int(fast["frames_tx"]), int(fast["frames_rx"])) == (FAST_COUNT, FAST_COUNT)
    assert (int(fast["bytes_tx"]), int(fast["bytes_rx"])) == (FAST_COUNT * SIZE,
                                                             FAST_COUNT * SIZE)
    assert fast["loss"] == 0.0
    latency = fast["latency"]
    assert 0 < latency["minimum_ns"] <= latency["average_ns"] <= latency["maximum_ns"]
    # The port figures since the config: the generator's tag is not in the bytes.
    ports = otg.ports()
    assert (int(ports["p1"]["frames_tx"]), int(ports["p2"]["frames_rx"])) == (FAST_COUNT,
                                                                             FAST_COUNT)
    assert (int(ports["p1"]["bytes_tx"]), int(ports["p2"]["bytes_rx"])) == \
        (FAST_COUNT * SIZE, FAST_COUNT * SIZE)
    assert capture.dropped_by_capture == 0
    # Stream 0, the first start's epoch 0: every frame of the flow, once.
    assert stream_frames_by_epoch(pcap, 0)[0] == FAST_COUNT


def test_flows_stop_alone_and_a_pause_holds_the_count(otg: OtgServer) -> None:
    otg.post("/config", config(
        flow("count", pps=1000, duration=packets(3000), mac="02:00:00:00:0d:02"),
        flow("endless", pps=500, duration={"choice": "continuous", "continuous": {}},
             mac="02:00:00:00:0d:03")))
    otg.traffic("start")
    time.sleep(0.5)
    otg.traffic("pause")
    held = otg.flows()
    time.sleep(0.5)
    still = otg.flows()
    assert int(held["count"]["frames_tx"]) == int(still["count"]["frames_tx"]) < 3000
    assert still["count"]["transmit"] == "paused"
    otg.traffic("resume")
    finite = otg.wait_stopped(["count"])
    assert finite["endless"]["transmit"] == "started"
    otg.traffic("stop")
    final = otg.wait_stopped(["count", "endless"])
    count, endless = final["count"], final["endless"]
    assert (int(count["frames_tx"]), int(count["frames_rx"])) == (3000, 3000)
    sent = int(endless["frames_tx"])
    assert sent > 0 and int(endless["frames_rx"]) == sent


def test_a_mix_flow_paused_and_resumed_sends_every_size_its_share(otg: OtgServer,
                                                                  tmp_path: Path) -> None:
    """weight_pairs 64 B x 7, 570 B x 4, 1280 B x 1 (the lab's MTU stops 1518-B frames
    here: the eBPF generator's tag rides on each copy) as three streams: 12 000 frames
    at 6000/s are 7000, 4000 and 1000 of each size, through a pause, counted by the
    flow and by a tcpdump of the receiving port."""
    mix = flow("mix", pps=6000, duration=packets(12_000), mac="02:00:00:00:0d:04")
    mix["size"] = {"choice": "weight_pairs", "weight_pairs": {"choice": "custom", "custom": [
        {"size": 64, "weight": 7}, {"size": 570, "weight": 4}, {"size": 1280, "weight": 1}]}}
    otg.post("/config", config(mix))
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap) as capture:
        otg.traffic("start")
        time.sleep(0.5)
        otg.traffic("pause")
        held = int(otg.flows()["mix"]["frames_tx"])
        time.sleep(0.5)
        assert int(otg.flows()["mix"]["frames_tx"]) == held < 12_000
        otg.traffic("resume")
        final = otg.wait_stopped(["mix"])["mix"]
    assert (int(final["frames_tx"]), int(final["frames_rx"])) == (12_000, 12_000)
    total_bytes = 7000 * 64 + 4000 * 570 + 1000 * 1280
    assert (int(final["bytes_tx"]), int(final["bytes_rx"])) == (total_bytes, total_bytes)
    assert final["loss"] == 0.0
    assert capture.dropped_by_capture == 0
    sizes: dict[int, int] = {}
    for frame in rdpcap(str(pcap)):
        sizes[len(frame) + 4] = sizes.get(len(frame) + 4, 0) + 1  # tcpdump: no FCS
    assert sizes == {64: 7000, 570: 4000, 1280: 1000}


def test_snappi_increment_and_random_fields_equal_the_capture(otg: OtgServer,
                                                              tmp_path: Path) -> None:
    """Issue 45 on the eBPF tester: the snappi script the BMv2 lab runs
    (tests_e2e/snappi_spread.py), run by snappi itself: the source address steps over
    256 addresses, the TCP destination port is drawn (50 draws, again and again). The
    sender writes each frame's flow; counts equal the capture's, every frame's fields
    are what its sequence number says, checksums right."""
    count = 3000
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap, ("tcp",)) as capture:
        out = run_spread(otg.url, count, 1000, SIZE, otg.log)
    assert out["config_warnings"] == []
    flow = out["flow"]
    assert (flow["transmit"], int(flow["frames_tx"]), int(flow["frames_rx"])) == (
        "stopped", count, count)
    assert capture.dropped_by_capture == 0
    assert_frames_as_patterned(pcap, count)
