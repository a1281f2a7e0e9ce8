"""A snappi script shared by the several-testers labs (tests_e2e/test_several_bmv2_testers,
tests_ebpf/test_several_testers): a flow each way between ports 1 and 2, a fixed count
at a rate and size, latency on; it prints the config's, start's and stop's warnings and
each flow's metrics as JSON. Arguments: url, west, east, count, pps, size; a tester
reached through an agent is named "host:port;N" (west or east: its agent's address),
one in the server's process "N" (west or east empty). It runs in the snappi client's
own venv (snappi_spread.client_python)."""

from __future__ import annotations

import textwrap

TWO_WAY_FLOWS = textwrap.dedent("""
    import json, sys, time
    import snappi
    url, west, east, count, pps, size = sys.argv[1:7]
    api = snappi.api(location=url, verify=False, version_check=True)
    c = api.config()
    # A tester reached through an agent: "host:port;N"; one in the server's process: "N".
    p1 = c.ports.add(name="p1", location=west + ";1" if west else "1")
    p2 = c.ports.add(name="p2", location=east + ";2" if east else "2")
    for name, tx, rx, mac in (("west-east", p1, p2, "02:00:00:00:0e:01"),
                              ("east-west", p2, p1, "02:00:00:00:0e:02")):
        f = c.flows.add(name=name)
        f.tx_rx.port.tx_name = tx.name
        f.tx_rx.port.rx_names = [rx.name]
        f.duration.fixed_packets.packets = int(count)
        f.rate.pps = int(pps)
        f.size.fixed = int(size)
        f.metrics.enable = True
        f.metrics.latency.enable = True
        eth, ip, udp = f.packet.ethernet().ipv4().udp()
        eth.src.value = mac
    out = {"config_warnings": list(api.set_config(c).warnings or [])}
    cs = api.control_state()
    cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
    out["start_warnings"] = list(api.set_control_state(cs).warnings or [])
    started = time.monotonic()
    while time.monotonic() - started < 60:
        req = api.metrics_request()
        req.flow.flow_names = []
        flows = api.get_metrics(req).flow_metrics
        if all(m.transmit == m.STOPPED for m in flows):
            break
        time.sleep(0.2)
    out["flows"] = {m.name: json.loads(m.serialize()) for m in flows}
    # The stop says why the tester cannot vouch for the start, if it cannot.
    cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.STOP
    out["stop_warnings"] = list(api.set_control_state(cs).warnings or [])
    print(json.dumps(out))
""")
