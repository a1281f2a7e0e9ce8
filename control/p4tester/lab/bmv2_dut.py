"""The `bmv2` DUT: p4src/dut on its own simple_switch_grpc, with the forwarding,
queue rate and queue depth the topology gives (a known bottleneck and buffer)."""

from __future__ import annotations

from pathlib import Path

from p4tester.config.dut_limits import port_queue_rates
from p4tester.config.topology import Topology
from p4tester.dataplane import names
from p4tester.lab.dut_impairments import impairment_entities, parse_port_impairments
from p4tester.lab.dut_mpls import mpls_entities
from p4tester.lab.ifaces import dut_iface
from p4tester.lab.netdev import LabError
from p4tester.lab.processes import start_switch, stop_process
from p4tester.p4rt import Exact, P4InfoSchema, P4RuntimeClient, build_table_entry
from p4tester.shipped import program_file
from p4tester.targets.bmv2_thrift import Bmv2Thrift

# The reference DUT's program, as p4tester ships it (p4src/build in a checkout).
DUT_P4INFO = str(program_file("dut.p4info.txt"))
DUT_JSON = str(program_file("dut.json"))


def dut_settings(topology: Topology) -> dict[str, str]:
    return dict(topology.dut.settings)


def forwarding(settings: dict[str, str], where: str) -> dict[int, int]:
    try:
        pairs = [item.split(":") for item in settings["forward"].split(",")]
        return {int(a): int(b) for a, b in pairs}
    except (KeyError, ValueError) as exc:
        raise LabError(f"{where}: dut.forward must be 'in:out,in:out', e.g. '1:2,2:1'") from exc


def start_bmv2_dut(topology: Topology, rundir: Path, *, log: bool = False) -> int:
    settings = dut_settings(topology)
    where = topology.source or topology.name
    forward = forwarding(settings, where)
    impairments = parse_port_impairments(settings, where, forward)
    grpc = settings.get("grpc", "127.0.0.1:9560")
    thrift_port = int(settings.get("thrift_port", "9091"))
    ports = sorted({p for pair in forward.items() for p in pair})
    pid = start_switch("dut", [(p, dut_iface(p)) for p in ports], int(grpc.rsplit(":", 1)[1]),
                       thrift_port, rundir, log=log)
    try:
        schema = P4InfoSchema.from_text_file(DUT_P4INFO)
        with P4RuntimeClient(grpc) as client:
            client.set_pipeline(schema, DUT_JSON)
            client.insert(*[
                build_table_entry(schema, names.DUT_PORT_FORWARD, {"ingress_port": Exact(i)},
                                  names.DUT_FORWARD, {"port": o})
                for i, o in forward.items()
            ])
            if any(port.any for port in impairments.values()):
                client.insert(*impairment_entities(schema, impairments, forward))
            edge = mpls_entities(schema, settings, where)
            if edge:
                client.insert(*edge)
        configure_dut_queues(Bmv2Thrift(thrift_port), settings, forward, where)
    except BaseException:
        stop_process(pid)
        raise
    return pid


def configure_dut_queues(thrift: Bmv2Thrift, settings: dict[str, str],
                         forward: dict[int, int], where: str) -> None:
    """Queue rate and depth on every DUT egress port (what the topology sets):
    `queue_rate_pps` on all, `queue_rates_pps` ("2:220,4:88") per port over it."""
    commands = []
    rates = port_queue_rates(settings, where)
    for port in sorted(set(forward.values())):
        rate = rates.get(port, settings.get("queue_rate_pps"))
        if rate is not None:
            commands.append(f"set_queue_rate {int(rate)} {port}")
        if "queue_depth" in settings:
            commands.append(f"set_queue_depth {int(settings['queue_depth'])} {port}")
    if commands:
        thrift.run(commands)
