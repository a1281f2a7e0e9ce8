"""The snappi script of issue 45, shared by the BMv2 lab test (test_otg_snappi_patterns)
and the eBPF one (tests_ebpf/test_otg_on_ebpf): one flow whose IPv4 source steps over
ADDRESSES addresses (ipv4.src.increment) and whose TCP destination port is drawn
(tcp.dst_port.random), sent as a fixed count and read back as snappi reads metrics.
It runs in the snappi client's own venv (scripts/otg-conformance.sh --venv-only)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from otg_field_checks import ADDRESSES, DRAWS, FIRST_SRC, PORT_MAX, PORT_MIN, SEED, SRC_MAC

REPO = Path(__file__).resolve().parents[2]
CLIENT_VENV = REPO / "run" / "otg-client" / "venv"
CLIENT_S = 120.0

SCRIPT = textwrap.dedent("""
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


def client_python() -> Path:
    """The snappi venv, made (once) by the conformance script."""
    subprocess.run(["bash", str(REPO / "scripts" / "otg-conformance.sh"), "--venv-only"],
                   check=True, timeout=900, capture_output=True)
    return CLIENT_VENV / "bin" / "python"


def run_spread(url: str, count: int, pps: int, size: int,
               server_log: Callable[[], str]) -> dict[str, Any]:
    """Run the script against the OTG server at url; its output (config warnings and
    the flow's final metrics). A client that fails raises, with the server's log."""
    done = subprocess.run([str(client_python()), "-c", SCRIPT, url, str(count), str(pps),
                           str(size), SRC_MAC, FIRST_SRC, str(ADDRESSES), str(PORT_MIN),
                           str(PORT_MAX), str(SEED), str(DRAWS)],
                          capture_output=True, text=True, timeout=CLIENT_S, check=False)
    assert done.returncode == 0, done.stderr + server_log()
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out
