"""`p4tester otg` on the BMv2 loopback lab, driven by snappi (the OTG Python client,
in its own venv: scripts/otg-conformance.sh --venv-only): a fixed count of frames at
a pps rate gives flow metrics frames_tx == frames_rx == count, equal to a tcpdump
count of the frames that reached the receiving tester port, port metrics and the
OTG port capture that say the same."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from capture import capture_received
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap
from served import ServerProcess
from snappi_spread import CLIENT_S, client_python

from p4tester.lab import ifaces

from conftest import REPO

COUNT = 200
PPS = 100
SIZE = 128
SRC_MAC = "02:00:00:00:0a:01"


class OtgServer(ServerProcess):
    """`p4tester otg` on the lab's topology."""

    def __init__(self, topology: Path, log_path: Path) -> None:
        super().__init__([sys.executable, "-m", "p4tester", "otg", "-t", str(topology)], REPO,
                         log_path,
                         {"PATH": "/usr/local/bin:/usr/bin:/bin",
                          "PYTHONPATH": str(REPO / "control")})


@pytest.fixture
def otg_server(lab: Path, tmp_path: Path) -> Iterator[OtgServer]:
    server = OtgServer(lab, tmp_path / "otg.log")
    try:
        server.wait_listening()
        yield server
    finally:
        server.stop()


# The client: snappi with version_check, as the conformance suite opens it.
CLIENT = textwrap.dedent("""
    import json, sys, time
    import snappi
    api = snappi.api(location=sys.argv[1], verify=False, version_check=True)
    count, pps, size, mac = (int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                             sys.argv[5])
    c = api.config()
    p1 = c.ports.add(name="p1", location="1")
    p2 = c.ports.add(name="p2", location="2")
    f = c.flows.add(name="f1")
    f.tx_rx.port.tx_name = p1.name
    f.tx_rx.port.rx_names = [p2.name]
    f.duration.fixed_packets.packets = count
    f.rate.pps = pps
    f.size.fixed = size
    f.metrics.enable = True
    f.metrics.latency.enable = True
    eth, ip, udp = f.packet.ethernet().ipv4().udp()
    eth.src.value = mac
    eth.dst.value = "02:00:00:00:0a:02"
    ip.src.value = "192.0.2.10"
    ip.dst.value = "198.51.100.10"
    udp.src_port.value = 5000
    ca = c.captures.add(name="ca", port_names=[p2.name])
    ca.format = ca.PCAP
    out = {"version": api.get_version().api_spec_version,
           "local": api.get_local_version().api_spec_version,
           "config_warnings": list(api.set_config(c).warnings or [])}
    cs = api.control_state()
    cs.port.capture.state = cs.port.capture.START
    api.set_control_state(cs)
    cs = api.control_state()
    cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
    api.set_control_state(cs)
    started = time.monotonic()
    states = []
    while time.monotonic() - started < 60:
        req = api.metrics_request()
        req.flow.flow_names = []
        m = api.get_metrics(req).flow_metrics[0]
        states.append(m.transmit)
        if m.transmit == m.STOPPED:
            break
        time.sleep(0.2)
    out["states"] = sorted(set(states))
    out["flow"] = json.loads(m.serialize())
    req = api.metrics_request()
    req.port.port_names = []
    out["ports"] = [json.loads(p.serialize()) for p in api.get_metrics(req).port_metrics]
    cs = api.control_state()
    cs.port.capture.state = cs.port.capture.STOP
    api.set_control_state(cs)
    req = api.capture_request()
    req.port_name = p2.name
    with open(sys.argv[6], "wb") as pcap:
        pcap.write(api.get_capture(req).read())
    print(json.dumps(out))
""")


def _frames_from(path: Path, mac: str) -> int:
    return sum(1 for frame in rdpcap(str(path))
               if frame.haslayer(Ether) and frame[Ether].src == mac)


@pytest.mark.topology("loopback.yaml")
def test_fixed_count_equals_capture(otg_server: OtgServer, tmp_path: Path) -> None:
    python = client_python()
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap) as stats:
        done = subprocess.run([str(python), "-c", CLIENT, otg_server.url, str(COUNT), str(PPS),
                               str(SIZE), SRC_MAC, str(tmp_path / "otg.pcap")],
                              capture_output=True, text=True, timeout=CLIENT_S, check=False)
    assert done.returncode == 0, done.stderr + otg_server.log()
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["version"] == out["local"] == "1.58.0"
    assert out["config_warnings"] == []
    # snappi serializes uint64 counters as strings (JSON has no 64-bit integers).
    flow = out["flow"]
    assert out["states"][-1] == "stopped"
    assert flow["transmit"] == "stopped"
    assert (int(flow["frames_tx"]), int(flow["frames_rx"])) == (COUNT, COUNT)
    assert (int(flow["bytes_tx"]), int(flow["bytes_rx"])) == (COUNT * SIZE, COUNT * SIZE)
    assert flow["loss"] == 0.0
    latency = flow["latency"]
    assert 0 < latency["minimum_ns"] <= latency["average_ns"] <= latency["maximum_ns"]
    assert stats.dropped_by_capture == 0
    assert _frames_from(pcap, SRC_MAC) == COUNT
    ports = {p["name"]: p for p in out["ports"]}
    assert (int(ports["p1"]["frames_tx"]), int(ports["p2"]["frames_rx"])) == (COUNT, COUNT)
    assert (int(ports["p1"]["bytes_tx"]), int(ports["p2"]["bytes_rx"])) == \
        (COUNT * SIZE, COUNT * SIZE)
    # The OTG capture: the same frames, each with its FCS (frame size bytes) and the
    # flow's addresses.
    served = [f for f in rdpcap(str(tmp_path / "otg.pcap"))
              if f.haslayer(Ether) and f[Ether].src == SRC_MAC]
    assert len(served) == COUNT
    assert {len(f) for f in served} == {SIZE}
    assert {(f[IP].src, f[IP].dst, f[UDP].sport) for f in served} == \
        {("192.0.2.10", "198.51.100.10", 5000)}


# Three flows at once from port 1 to port 2, told apart by source MAC: a fixed
# count, a fixed duration and a continuous one stopped by the client once the
# other two are done. (name, size, pps, duration, MAC)
FLOWS = (("count", 64, 100, ("fixed_packets", 150), "02:00:00:00:0b:01"),
         ("seconds", 256, 60, ("fixed_seconds", 2), "02:00:00:00:0b:02"),
         ("endless", 512, 50, ("continuous", 0), "02:00:00:00:0b:03"))
MULTI_CLIENT = textwrap.dedent("""
    import json, sys, time
    import snappi
    api = snappi.api(location=sys.argv[1], verify=False, version_check=True)
    flows = json.loads(sys.argv[2])
    c = api.config()
    c.ports.add(name="p1", location="1")
    c.ports.add(name="p2", location="2")
    for name, size, pps, (kind, amount), mac in flows:
        f = c.flows.add(name=name)
        f.tx_rx.port.tx_name = "p1"
        f.tx_rx.port.rx_names = ["p2"]
        if kind == "fixed_packets":
            f.duration.fixed_packets.packets = amount
        elif kind == "fixed_seconds":
            f.duration.fixed_seconds.seconds = amount
        else:
            f.duration.continuous.gap = 12
        f.rate.pps = pps
        f.size.fixed = size
        f.metrics.enable = True
        eth, ip, udp = f.packet.ethernet().ipv4().udp()
        eth.src.value = mac
    api.set_config(c)

    def metrics():
        req = api.metrics_request()
        req.flow.flow_names = []
        return {m.name: m for m in api.get_metrics(req).flow_metrics}

    def wait(names):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = metrics()
            if all(m[n].transmit == "stopped" for n in names):
                return m
            time.sleep(0.1)
        raise SystemExit("flows did not stop: %s" % names)

    cs = api.control_state()
    cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
    api.set_control_state(cs)
    finite = wait(["count", "seconds"])
    out = {"endless_while_others_stopped": finite["endless"].transmit}
    cs = api.control_state()
    cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.STOP
    api.set_control_state(cs)
    final = wait([f[0] for f in flows])
    out["flows"] = {n: json.loads(m.serialize()) for n, m in final.items()}
    print(json.dumps(out))
""")
# The pacer's inter-frame time on the wire, as tcpdump timestamps it: the span of
# a flow's frames at the receiving port is (frames - 1) / pps within this fraction.
RATE_TOLERANCE = 0.1


def _frames_by_mac(path: Path) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}
    for frame in rdpcap(str(path)):
        if frame.haslayer(Ether):
            times.setdefault(frame[Ether].src, []).append(float(frame.time))
    return times


@pytest.mark.topology("loopback.yaml")
def test_flows_durations_rates_sizes(otg_server: OtgServer, tmp_path: Path) -> None:
    python = client_python()
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap) as stats:
        done = subprocess.run([str(python), "-c", MULTI_CLIENT, otg_server.url,
                               json.dumps(FLOWS)], capture_output=True, text=True,
                              timeout=CLIENT_S, check=False)
    assert done.returncode == 0, done.stderr + otg_server.log()
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["endless_while_others_stopped"] == "started"
    assert stats.dropped_by_capture == 0
    captured = _frames_by_mac(pcap)
    for name, size, pps, (kind, amount), mac in FLOWS:
        flow = out["flows"][name]
        tx, rx = int(flow["frames_tx"]), int(flow["frames_rx"])
        expected = {"fixed_packets": amount, "fixed_seconds": amount * pps}.get(kind, tx)
        assert (name, tx, rx, len(captured[mac])) == (name, expected, expected, expected)
        assert (int(flow["bytes_tx"]), int(flow["bytes_rx"])) == (tx * size, tx * size)
        span = captured[mac][-1] - captured[mac][0]
        assert abs(span - (tx - 1) / pps) <= RATE_TOLERANCE * (tx - 1) / pps, (name, span)
    assert int(out["flows"]["endless"]["frames_tx"]) > 0


# ethernet / 802.1ad 100 / 802.1Q 10 / MPLS 16 / IPv6 (DSCP 46) / TCP with the source
# port cycling through three values: frame i carries SRC_PORTS[i mod 3].
ENCAP_COUNT = 30
ENCAP_SIZE = 140
SRC_PORTS = (1000, 1001, 1002)
ENCAP_CLIENT = textwrap.dedent("""
    import json, sys, time
    import snappi
    api = snappi.api(location=sys.argv[1], verify=False, version_check=True)
    c = api.config()
    p1 = c.ports.add(name="p1", location="1")
    p2 = c.ports.add(name="p2", location="2")
    ca = c.captures.add(name="ca", port_names=[p2.name])
    f = c.flows.add(name="encap")
    f.tx_rx.port.tx_name = p1.name
    f.tx_rx.port.rx_names = [p2.name]
    f.duration.fixed_packets.packets = int(sys.argv[2])
    f.rate.pps = 50
    f.size.fixed = int(sys.argv[3])
    eth, outer, inner, mpls, ip, tcp = (
        f.packet.ethernet().vlan().vlan().mpls().ipv6().tcp())
    eth.src.value = "02:00:00:00:0c:01"
    outer.id.value = 100
    outer.tpid.value = outer.tpid.X88A8
    inner.id.value = 10
    mpls.label.value = 16
    ip.src.value = "2001:db8::10"
    ip.dst.value = "2001:db8:1::10"
    ip.traffic_class.value = 46 << 2
    tcp.src_port.values = json.loads(sys.argv[4])
    tcp.dst_port.value = 443
    api.set_config(c)
    for state in ("capture", "traffic"):
        cs = api.control_state()
        if state == "capture":
            cs.port.capture.state = cs.port.capture.START
        else:
            cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
        api.set_control_state(cs)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        req = api.metrics_request()
        req.flow.flow_names = []
        m = api.get_metrics(req).flow_metrics[0]
        if m.transmit == m.STOPPED:
            break
        time.sleep(0.2)
    cs = api.control_state()
    cs.port.capture.state = cs.port.capture.STOP
    api.set_control_state(cs)
    req = api.capture_request()
    req.port_name = p2.name
    with open(sys.argv[5], "wb") as pcap:
        pcap.write(api.get_capture(req).read())
    print(json.dumps(json.loads(m.serialize())))
""")


@pytest.mark.topology("loopback.yaml")
def test_qinq_mpls_ipv6_tcp_port_values(otg_server: OtgServer, tmp_path: Path) -> None:
    python = client_python()
    pcap = tmp_path / "otg.pcap"
    done = subprocess.run([str(python), "-c", ENCAP_CLIENT, otg_server.url, str(ENCAP_COUNT),
                           str(ENCAP_SIZE), json.dumps(SRC_PORTS), str(pcap)],
                          capture_output=True, text=True, timeout=CLIENT_S, check=False)
    assert done.returncode == 0, done.stderr + otg_server.log()
    flow = json.loads(done.stdout.strip().splitlines()[-1])
    assert (flow["transmit"], int(flow["frames_tx"]), int(flow["frames_rx"])) == \
        ("stopped", ENCAP_COUNT, ENCAP_COUNT)
    frames = [bytes(f) for f in rdpcap(str(pcap))
              if bytes(f)[6:12] == bytes.fromhex("02000000" "0c01")]
    assert len(frames) == ENCAP_COUNT
    for i, frame in enumerate(frames):
        assert len(frame) == ENCAP_SIZE
        # TPID 0x88a8 + TCI 100, TPID 0x8100 + TCI 10, EtherType MPLS unicast.
        assert frame[12:22] == bytes.fromhex("88a8" "0064" "8100" "000a" "8847")
        assert int.from_bytes(frame[22:25], "big") >> 4 == 16  # label
        assert frame[24] & 1 == 1  # bottom of stack (then the TTL byte)
        ipv6 = frame[26:66]
        assert ((ipv6[0] & 0x0F) << 4 | ipv6[1] >> 4) >> 2 == 46  # DSCP
        assert ipv6[6] == 6  # next header TCP
        tcp = frame[66:86]
        assert int.from_bytes(tcp[0:2], "big") == SRC_PORTS[i % len(SRC_PORTS)]
        assert int.from_bytes(tcp[2:4], "big") == 443


# ethernet / IPv4 / UDP 4789 / VxLAN 5000 / ethernet / IPv4 / UDP, and ethernet /
# IPv4 / UDP 2152 / GTP-U 0x1234 / IPv4 / UDP: the OTG capture shows the tunnel as
# built, and every frame is counted through it.
TUNNEL_CLIENT = textwrap.dedent("""
    import json, sys, time
    import snappi
    api = snappi.api(location=sys.argv[1], verify=False, version_check=True)
    c = api.config()
    p1 = c.ports.add(name="p1", location="1")
    p2 = c.ports.add(name="p2", location="2")
    c.captures.add(name="ca", port_names=[p2.name])
    f = c.flows.add(name="vxlan")
    f.tx_rx.port.tx_name = p1.name
    f.tx_rx.port.rx_names = [p2.name]
    f.duration.fixed_packets.packets = 40
    f.rate.pps = 50
    f.size.fixed = 200
    if sys.argv[3] == "vxlan":
        eth, oip, oudp, vx, ieth, iip, iudp = (
            f.packet.ethernet().ipv4().udp().vxlan().ethernet().ipv4().udp())
        vx.vni.value = 5000
        ieth.src.value = "02:00:00:00:0d:03"
        ieth.dst.value = "02:00:00:00:0d:04"
    else:
        eth, oip, oudp, gtp, iip, iudp = (
            f.packet.ethernet().ipv4().udp().gtpv1().ipv4().udp())
        gtp.teid.value = 0x1234
    eth.src.value = "02:00:00:00:0d:01"
    oip.src.value = "10.0.0.1"
    oip.dst.value = "10.0.0.2"
    iip.src.value = "192.0.2.20"
    iip.dst.value = "198.51.100.20"
    api.set_config(c)
    for state in ("capture", "traffic"):
        cs = api.control_state()
        if state == "capture":
            cs.port.capture.state = cs.port.capture.START
        else:
            cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
        api.set_control_state(cs)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        req = api.metrics_request()
        req.flow.flow_names = []
        m = api.get_metrics(req).flow_metrics[0]
        if m.transmit == m.STOPPED:
            break
        time.sleep(0.2)
    cs = api.control_state()
    cs.port.capture.state = cs.port.capture.STOP
    api.set_control_state(cs)
    req = api.capture_request()
    req.port_name = p2.name
    with open(sys.argv[2], "wb") as pcap:
        pcap.write(api.get_capture(req).read())
    print(json.dumps(json.loads(m.serialize())))
""")


@pytest.mark.topology("loopback.yaml")
@pytest.mark.parametrize("tunnel", ["vxlan", "gtpu"])
def test_tunnel_flow(otg_server: OtgServer, tmp_path: Path, tunnel: str) -> None:
    python = client_python()
    pcap = tmp_path / "otg.pcap"
    done = subprocess.run([str(python), "-c", TUNNEL_CLIENT, otg_server.url, str(pcap),
                           tunnel],
                          capture_output=True, text=True, timeout=CLIENT_S, check=False)
    assert done.returncode == 0, done.stderr + otg_server.log()
    flow = json.loads(done.stdout.strip().splitlines()[-1])
    assert (flow["transmit"], int(flow["frames_tx"]), int(flow["frames_rx"])) == \
        ("stopped", 40, 40)
    frames = [bytes(f) for f in rdpcap(str(pcap))
              if bytes(f)[6:12] == bytes.fromhex("02000000" "0d01")]
    assert len(frames) == 40
    for frame in frames:
        assert len(frame) == 200
        assert frame[12:14] == bytes.fromhex("0800") and frame[23] == 17
        assert frame[26:34] == bytes([10, 0, 0, 1, 10, 0, 0, 2])
        assert int.from_bytes(frame[34:36], "big") == 49152  # the tester's source port
        if tunnel == "vxlan":
            assert int.from_bytes(frame[36:38], "big") == 4789
            assert frame[42] == 0x08 and int.from_bytes(frame[46:49], "big") == 5000
            assert frame[50:62] == bytes.fromhex("02000000" "0d04" "02000000" "0d03")
            assert frame[62:64] == bytes.fromhex("0800")
            inner_ip = frame[64:]
        else:
            assert int.from_bytes(frame[36:38], "big") == 2152
            # Version 1, PT 1, no options; G-PDU; length of the rest; TEID.
            assert frame[42:44] == bytes([0x30, 0xFF])
            assert int.from_bytes(frame[44:46], "big") == 200 - 4 - 50
            assert int.from_bytes(frame[46:50], "big") == 0x1234
            inner_ip = frame[50:]
        assert inner_ip[12:20] == bytes([192, 0, 2, 20, 198, 51, 100, 20])


# Pause a fixed-count flow mid-way, hold it, resume: it sends exactly the rest of its
# count, every frame arrives (sequence numbers carry on: no gap, no loss), and the
# capture of the receiving port has the same count.
PAUSE_CLIENT = textwrap.dedent("""
    import json, sys, time
    import snappi
    api = snappi.api(location=sys.argv[1], verify=False, version_check=True)
    c = api.config()
    c.ports.add(name="p1", location="1")
    c.ports.add(name="p2", location="2")
    f = c.flows.add(name="f1")
    f.tx_rx.port.tx_name = "p1"
    f.tx_rx.port.rx_names = ["p2"]
    f.duration.fixed_packets.packets = 200
    f.rate.pps = 100
    f.size.fixed = 128
    eth, ip, udp = f.packet.ethernet().ipv4().udp()
    eth.src.value = sys.argv[2]
    api.set_config(c)

    def control(state):
        cs = api.control_state()
        cs.traffic.flow_transmit.state = state
        api.set_control_state(cs)

    def flow():
        req = api.metrics_request()
        req.flow.flow_names = []
        return api.get_metrics(req).flow_metrics[0]

    control("start")
    time.sleep(0.7)
    control("pause")
    # Frames already in the switch or on the wire still arrive: wait (bounded) until
    # the counts settle, then hold for a second.
    deadline = time.monotonic() + 10
    last = None
    while time.monotonic() < deadline:
        first = flow()
        now = (first.frames_tx, first.frames_rx)
        if now == last and now[0] == now[1]:
            break
        last = now
        time.sleep(0.3)
    time.sleep(1.0)
    second = flow()
    out = {"paused": [first.transmit, second.transmit],
           "held": [first.frames_tx, second.frames_tx, second.frames_rx]}
    control("resume")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        m = flow()
        if m.transmit == m.STOPPED:
            break
        time.sleep(0.2)
    out["final"] = json.loads(m.serialize())
    print(json.dumps(out))
""")


@pytest.mark.topology("loopback.yaml")
def test_pause_resume(otg_server: OtgServer, tmp_path: Path) -> None:
    python = client_python()
    mac = "02:00:00:00:0e:01"
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap) as stats:
        done = subprocess.run([str(python), "-c", PAUSE_CLIENT, otg_server.url, mac],
                              capture_output=True, text=True, timeout=CLIENT_S, check=False)
    assert done.returncode == 0, done.stderr + otg_server.log()
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["paused"] == ["paused", "paused"], out
    held_tx, still_tx, held_rx = out["held"]
    assert 0 < held_tx == still_tx == held_rx < 200, out
    final = out["final"]
    assert (final["transmit"], int(final["frames_tx"]), int(final["frames_rx"])) == \
        ("stopped", 200, 200), out
    assert final["loss"] == 0.0, out
    assert stats.dropped_by_capture == 0
    assert _frames_from(pcap, mac) == 200


def flows_client(setup: str) -> str:
    """A snappi client: ports p1 and p2 (tester ports 1 and 2), the flows `setup` adds
    to config `c` (reading sys.argv[2:]), then start, wait (bounded) until every flow
    reads stopped, and print the config's warnings, the flows' metrics and the ports'."""
    return textwrap.dedent("""
        import json, sys, time
        import snappi
        api = snappi.api(location=sys.argv[1], verify=False, version_check=True)
        c = api.config()
        c.ports.add(name="p1", location="1")
        c.ports.add(name="p2", location="2")
    """) + textwrap.dedent(setup) + textwrap.dedent("""
        out = {"warnings": list(api.set_config(c).warnings or [])}
        cs = api.control_state()
        cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
        api.set_control_state(cs)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            req = api.metrics_request()
            req.flow.flow_names = []
            found = {m.name: m for m in api.get_metrics(req).flow_metrics}
            if all(m.transmit == m.STOPPED for m in found.values()):
                break
            time.sleep(0.2)
        out["flows"] = {n: json.loads(m.serialize()) for n, m in found.items()}
        req = api.metrics_request()
        req.port.port_names = []
        out["ports"] = [json.loads(p.serialize()) for p in api.get_metrics(req).port_metrics]
        print(json.dumps(out))
    """)


def run_client(python: Path, script: str, url: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([str(python), "-c", script, url, *args], capture_output=True,
                          text=True, timeout=CLIENT_S, check=False)
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


# Two flows of several frame sizes from port 1 to port 2, told apart by source MAC:
# size.increment 128..512 by 128 (four sizes in equal numbers) and size.weight_pairs
# 64 B x 3, 1024 B x 1. Each is a stream per size (otg.sizes): the flow's counts are
# its sizes' together, and a tcpdump of the receiving port finds every size's share.
SIZE_FLOWS = (("steps", 200, 100, {"increment": [128, 512, 128]}, "02:00:00:00:0f:01"),
              ("pairs", 120, 60, {"custom": [[64, 3], [1024, 1]]}, "02:00:00:00:0f:02"))
SIZE_EXPECTED = {"steps": {128: 50, 256: 50, 384: 50, 512: 50}, "pairs": {64: 90, 1024: 30}}
SIZE_CLIENT = flows_client("""
    for name, count, pps, size, mac in json.loads(sys.argv[2]):
        f = c.flows.add(name=name)
        f.tx_rx.port.tx_name = "p1"
        f.tx_rx.port.rx_names = ["p2"]
        f.duration.fixed_packets.packets = count
        f.rate.pps = pps
        if "increment" in size:
            start, end, step = size["increment"]
            f.size.increment.start = start
            f.size.increment.end = end
            f.size.increment.step = step
        else:
            for frame_size, weight in size["custom"]:
                f.size.weight_pairs.custom.add(size=frame_size, weight=weight)
        f.metrics.enable = True
        f.metrics.latency.enable = True
        eth, ip, udp = f.packet.ethernet().ipv4().udp()
        eth.src.value = mac
""")


def _sizes_by_mac(path: Path) -> dict[str, dict[int, int]]:
    """Frames per size (with FCS: tcpdump's come without) per source MAC."""
    captured: dict[str, dict[int, int]] = {}
    for frame in rdpcap(str(path)):
        if frame.haslayer(Ether):
            sizes = captured.setdefault(frame[Ether].src, {})
            sizes[len(frame) + 4] = sizes.get(len(frame) + 4, 0) + 1
    return captured


@pytest.mark.topology("loopback.yaml")
def test_increment_and_weight_pair_sizes(otg_server: OtgServer, tmp_path: Path) -> None:
    python = client_python()
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap) as stats:
        out = run_client(python, SIZE_CLIENT, otg_server.url, json.dumps(SIZE_FLOWS))
    assert out["warnings"] == [
        "flows[0].size: sent as 4 streams, one per size (128 B x 25/s, 256 B x 25/s, 384 B "
        "x 25/s, 512 B x 25/s); the counts of each size keep the mix, but sizes interleave "
        "by their rates rather than in OTG's order",
        "flows[1].size: sent as 2 streams, one per size (64 B x 45/s, 1024 B x 15/s); the "
        "counts of each size keep the mix, but sizes interleave by their rates rather than "
        "in OTG's order"]
    assert stats.dropped_by_capture == 0
    captured = _sizes_by_mac(pcap)
    for name, count, _pps, _size, mac in SIZE_FLOWS:
        flow = out["flows"][name]
        expected = SIZE_EXPECTED[name]
        total_bytes = sum(size * n for size, n in expected.items())
        assert (name, flow["transmit"], int(flow["frames_tx"]), int(flow["frames_rx"])) == \
            (name, "stopped", count, count)
        assert (int(flow["bytes_tx"]), int(flow["bytes_rx"])) == (total_bytes, total_bytes)
        assert flow["loss"] == 0.0
        assert 0 < flow["latency"]["minimum_ns"] <= flow["latency"]["average_ns"] \
            <= flow["latency"]["maximum_ns"]
        assert captured[mac] == expected


# size.random 64..1000 B: the data plane cuts each frame of a 1000-B template to a
# uniform random size (v1model/generator.p4, tx_resize). The flow's and the port's
# bytes equal a tcpdump's sum of what arrived, frame by frame.
RANDOM_MAC = "02:00:00:00:10:01"
RANDOM_CLIENT = flows_client(f"""
    f = c.flows.add(name="random")
    f.tx_rx.port.tx_name = "p1"
    f.tx_rx.port.rx_names = ["p2"]
    f.duration.fixed_packets.packets = int(sys.argv[2])
    f.rate.pps = 100
    f.size.random.min = int(sys.argv[3])
    f.size.random.max = int(sys.argv[4])
    f.metrics.enable = True
    eth, ip, udp = f.packet.ethernet().ipv4().udp()
    eth.src.value = "{RANDOM_MAC}"
""")
RANDOM_COUNT = 300
RANDOM_SIZES = (64, 1000)


@pytest.mark.topology("loopback.yaml")
def test_random_sizes_are_drawn_frame_by_frame(otg_server: OtgServer, tmp_path: Path) -> None:
    python = client_python()
    pcap = tmp_path / "rx.pcap"
    low, high = RANDOM_SIZES
    with capture_received(ifaces.tester_iface(2), pcap) as stats:
        out = run_client(python, RANDOM_CLIENT, otg_server.url, str(RANDOM_COUNT), str(low),
                         str(high))
    assert out["warnings"] == []
    assert stats.dropped_by_capture == 0
    sizes = _sizes_by_mac(pcap)[RANDOM_MAC]
    assert sum(sizes.values()) == RANDOM_COUNT
    assert low <= min(sizes) and max(sizes) <= high
    # 300 uniform draws of 937 sizes: about 256 distinct, the mean 532 +- 16 (1 sigma).
    assert len(sizes) > 180
    total = sum(size * n for size, n in sizes.items())
    assert abs(total / RANDOM_COUNT - (low + high) / 2) < 100
    flow = out["flows"]["random"]
    assert (flow["transmit"], int(flow["frames_tx"]), int(flow["frames_rx"])) == \
        ("stopped", RANDOM_COUNT, RANDOM_COUNT)
    assert (int(flow["bytes_tx"]), int(flow["bytes_rx"])) == (total, total)
    ports = {p["name"]: p for p in out["ports"]}
    assert (int(ports["p1"]["bytes_tx"]), int(ports["p2"]["bytes_rx"])) == (total, total)


# duration.burst with a gap: 20 bursts of 10 frames of 128 B, 200 bytes apart, one burst
# every 20 ms (inter_burst_gap 14944 us in place of the last frame's 320-us gap). On
# 5 Mbit/s a frame and its gap take (128 + 8 + 200) x 8 bits = 537.6 us: a tcpdump of
# the receiving port finds the frames of a burst that far apart, not back to back
# (236.8 us).
GAP_MAC = "02:00:00:00:11:01"
GAP_CLIENT = flows_client(f"""
    f = c.flows.add(name="spaced")
    f.tx_rx.port.tx_name = "p1"
    f.tx_rx.port.rx_names = ["p2"]
    f.size.fixed = 128
    f.duration.burst.bursts = 20
    f.duration.burst.packets = 10
    f.duration.burst.gap = 200
    f.duration.burst.inter_burst_gap.microseconds = 14944
    eth, ip, udp = f.packet.ethernet().ipv4().udp()
    eth.src.value = "{GAP_MAC}"
""")
GAP_SLOT_S = (128 + 8 + 200) * 8 / 5e6


@pytest.mark.topology("loopback.yaml")
def test_a_burst_gap_spaces_the_frames_of_each_burst(otg_server: OtgServer,
                                                     tmp_path: Path) -> None:
    python = client_python()
    pcap = tmp_path / "rx.pcap"
    with capture_received(ifaces.tester_iface(2), pcap) as stats:
        out = run_client(python, GAP_CLIENT, otg_server.url)
    assert out["warnings"] == []
    flow = out["flows"]["spaced"]
    assert (int(flow["frames_tx"]), int(flow["frames_rx"])) == (200, 200)
    assert stats.dropped_by_capture == 0
    times = _frames_by_mac(pcap)[GAP_MAC]
    assert len(times) == 200
    # Within a burst: frames a slot apart; between bursts: about 15 ms.
    within = sorted(b - a for a, b in pairwise(times) if b - a < 5e-3)
    assert len(within) >= 150, within
    median = within[len(within) // 2]
    assert abs(median - GAP_SLOT_S) <= 0.15 * GAP_SLOT_S, (median, GAP_SLOT_S)
