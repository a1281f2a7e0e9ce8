"""Flows at scale through OTG (issue 45): a snappi script whose flow steps its IPv4
source over 256 addresses (ipv4.src.increment) and draws its TCP destination port
(tcp.dst_port.random), run against `p4tester otg` on the BMv2 loopback lab. Its
counts equal a tcpdump count of what reached the receiving port, and every captured
frame carries the fields its sequence number says, checksums right."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest
from capture import capture_received
from otg_field_checks import (
    ADDRESSES,
    DRAWS,
    FIRST_SRC,
    PORT_MAX,
    PORT_MIN,
    SEED,
    SRC_MAC,
    assert_frames_as_patterned,
)
from test_otg_snappi import CLIENT_S, OtgServer, client_python, otg_server  # noqa: F401

from p4tester.lab import ifaces

COUNT = 300
PPS = 100
SIZE = 128

CLIENT = textwrap.dedent("""
    import json, sys, time
    import snappi
    api = snappi.api(location=sys.argv[1], verify=False, version_check=True)
    c = api.config()
    p1 = c.ports.add(name="p1", location="1")
    p2 = c.ports.add(name="p2", location="2")
    f = c.flows.add(name="spread")
    f.tx_rx.port.tx_name = p1.name
    f.tx_rx.port.rx_names = [p2.name]
    f.duration.fixed_packets.packets = int(sys.argv[2])
    f.rate.pps = int(sys.argv[3])
    f.size.fixed = int(sys.argv[4])
    f.metrics.enable = True
    eth, ip, tcp = f.packet.ethernet().ipv4().tcp()
    eth.src.value = sys.argv[5]
    eth.dst.value = "02:00:00:00:0a:02"
    ip.src.increment.start = sys.argv[6]
    ip.src.increment.step = "0.0.0.1"
    ip.src.increment.count = int(sys.argv[7])
    ip.dst.value = "198.51.100.10"
    tcp.src_port.value = 5000
    low, high, seed, count = (int(v) for v in sys.argv[8:12])
    tcp.dst_port.random.min = low
    tcp.dst_port.random.max = high
    tcp.dst_port.random.seed = seed
    tcp.dst_port.random.count = count
    out = {"config_warnings": list(api.set_config(c).warnings or [])}
    cs = api.control_state()
    cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
    api.set_control_state(cs)
    started = time.monotonic()
    while time.monotonic() - started < 60:
        req = api.metrics_request()
        req.flow.flow_names = []
        m = api.get_metrics(req).flow_metrics[0]
        if m.transmit == m.STOPPED:
            break
        time.sleep(0.2)
    out["flow"] = json.loads(m.serialize())
    print(json.dumps(out))
""")


@pytest.mark.topology("loopback.yaml")
def test_snappi_increment_and_random_fields_equal_the_capture(
        otg_server: OtgServer, tmp_path: Path) -> None:  # noqa: F811
    python = client_python()
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap, ("tcp",)) as stats:
        done = subprocess.run([str(python), "-c", CLIENT, otg_server.url, str(COUNT), str(PPS),
                               str(SIZE), SRC_MAC, FIRST_SRC, str(ADDRESSES), str(PORT_MIN),
                               str(PORT_MAX), str(SEED), str(DRAWS)],
                              capture_output=True, text=True, timeout=CLIENT_S, check=False)
    assert done.returncode == 0, done.stderr + otg_server.log()
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["config_warnings"] == []
    flow = out["flow"]
    assert (flow["transmit"], int(flow["frames_tx"]), int(flow["frames_rx"])) == (
        "stopped", COUNT, COUNT)
    assert stats.dropped_by_capture == 0
    assert_frames_as_patterned(pcap, COUNT)
