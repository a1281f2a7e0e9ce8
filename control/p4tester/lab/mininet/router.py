"""Configuring Mininet hosts and Linux routers: addresses, forwarding, commands; and the
`linux` DUT built as Mininet node "dut", set up as lab.linux_dut sets up its namespace."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Final

from p4tester.config.network import NodeSpec
from p4tester.config.topology import Topology
from p4tester.lab.linux_dut import (
    EGRESS_NET,
    INGRESS_MAC,
    INGRESS_NET,
    TESTER_RX_MAC,
    TESTER_TX_MAC,
)
from p4tester.lab.netdev import LabError

RC_MARK: Final = "__p4tester_rc="
# Forwarded frames and the slow path must not be held back by reverse-path checks or the
# kernel's ICMP limiter (seed 002 measures the router, not the limiter).
ROUTER_SYSCTLS: Final = ("net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0",
                         "net.ipv4.icmp_ratelimit=0")


def run(node: Any, command: str) -> str:
    """A command in the node's shell; a non-zero exit status is an error naming it."""
    text, failure = run_reported(node, command)
    if failure:
        raise LabError(failure)
    return text


def run_reported(node: Any, command: str) -> tuple[str, str]:
    """A command in the node's shell: its output, and what failed ("" if it exited 0)."""
    output = str(node.cmd(f"{command}; echo {RC_MARK}$?"))
    text, _, status = output.rpartition(RC_MARK)
    if status.strip() == "0":
        return text, ""
    return text, (f"{node.name}: {command!r} failed (exit {status.strip()}): "
                  f"{text.strip()[-300:]}")


def configure_node(node: Any, spec: NodeSpec, rundir: Path) -> list[str]:
    """Addresses and sysctls (any failure stops the lab), then the network's own host
    commands, which run as p4lang's tutorials runner runs them: a command that fails is
    reported and the next one runs (their `multicast` hosts add a route the address
    already made, "File exists", and work). Returns those failures."""
    for interface in spec.interfaces:
        name = f"eth{interface.port}"
        if interface.mac:
            run(node, f"ip link set {name} address {interface.mac}")
        if interface.ip:
            run(node, f"ip addr add {interface.ip} dev {name}")
    if spec.kind == "router":
        for setting in ROUTER_SYSCTLS:
            run(node, f"sysctl -qw {setting}")
    failures = []
    with (rundir / f"{spec.name}.commands.log").open("w") as log:
        for command in spec.commands:
            text, failure = run_reported(node, command)
            log.write(f"$ {command}\n{text}" + (f"(failed: {failure})\n" if failure else ""))
            if failure:
                failures.append(failure)
    return failures


def configure_linux_dut(node: Any, topology: Topology) -> None:
    """The linux DUT's router: the streams' next hop on its ingress port, static
    neighbours for the tester, TTL decremented, the topology's qdisc on egress."""
    settings = dict(topology.dut.settings)
    ingress = f"eth{int(settings.get('ingress', '1'))}"
    egress = f"eth{int(settings.get('egress', '2'))}"
    run(node, f"ip link set {ingress} address {INGRESS_MAC}")
    for iface, (address, _peer) in ((ingress, INGRESS_NET), (egress, EGRESS_NET)):
        run(node, f"ip addr add {address} dev {iface}")
    run(node, f"ip neigh replace {INGRESS_NET[1]} lladdr {TESTER_TX_MAC} dev {ingress} "
              "nud permanent")
    run(node, f"ip neigh replace {EGRESS_NET[1]} lladdr {TESTER_RX_MAC} dev {egress} "
              "nud permanent")
    for setting in ROUTER_SYSCTLS:
        run(node, f"sysctl -qw {setting}")
    if "qdisc" in settings:
        run(node, f"tc qdisc replace dev {egress} root "
                  + " ".join(shlex.quote(a) for a in shlex.split(settings["qdisc"])))
