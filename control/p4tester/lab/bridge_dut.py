"""The `bridge` DUT: a Linux bridge (an L2 learning switch) in a network namespace.

Topology settings (dut: {kind: bridge, ...}):

    egress: 2                 DUT port whose qdisc is set (optional, default 2)
    qdisc: "tbf rate 10mbit burst 3000 limit 6000"   tc qdisc on that port (optional)
    qdisc_N: "tbf ..."        the egress qdisc of bridge port N (any number of ports)
    fdb_max_learned: 100      addresses the bridge learns at most (its address cache:
                              RFC 2889 5.7's capacity; Linux 6.8+), then it floods
                              frames to addresses it did not learn
    ageing_s: 3               seconds an unseen address stays learnt (default 300)
    input_queue_N: "tbf ..."  one input FIFO on bridge port N: every frame arriving on
                              N waits in this qdisc (on an ifb device) before the bridge
                              sees it, as in an input-queued switch, so a frame bound
                              for a congested port holds up the frames behind it
                              (head-of-line blocking, RFC 2889 5.5)

Every DUT port a tester port is cabled to (peer dut:N) is a port of the bridge. The
bridge floods a frame whose destination it has not learnt, as a switch does: the
tester's ports never send from their streams' destination MACs, so every frame of a
stream reaches every other bridge port (with two ports: the other one), and a stream
names which of them it is checked on.

The bridge stays silent, so that everything the tester receives is a stream's: no
spanning tree (its BPDUs would reach the tester as foreign frames), no IPv6 (DAD,
MLD), no address of its own, no multicast snooping (its queries).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from typing import Final

from p4tester.config.topology import BRIDGE_EGRESS_QDISC, BRIDGE_INPUT_QUEUE, Topology
from p4tester.lab import netdev
from p4tester.lab.ifaces import dut_iface

NAMESPACE: Final = netdev.DUT_NETNS
BRIDGE: Final = "br0"


def start_bridge_dut(topology: Topology) -> str:
    settings = dict(topology.dut.settings)
    ports = topology.cabled_dut_ports  # every one a bridge port
    egress = int(settings.get("egress", "2"))  # a bridge port (config.topology checks)
    netdev.add_netns(NAMESPACE)

    def ns(*args: str) -> None:
        netdev.run(list(args), netns=NAMESPACE)

    ns("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
    ns("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
    ageing_cs = round(float(settings.get("ageing_s", "300")) * 100)  # centiseconds
    ns("ip", "link", "add", BRIDGE, "type", "bridge", "stp_state", "0",
       "mcast_snooping", "0", "ageing_time", str(ageing_cs))
    if "fdb_max_learned" in settings:
        ns(sys.executable, "-m", "p4tester.lab.bridge_fdb_limit", BRIDGE,
           settings["fdb_max_learned"])
    for port in ports:
        iface = dut_iface(port)
        netdev.run(["ip", "link", "set", iface, "netns", NAMESPACE])
        ns("sysctl", "-qw", f"net.ipv6.conf.{iface}.disable_ipv6=1")
        ns("ip", "link", "set", iface, "master", BRIDGE)
        ns("ip", "link", "set", iface, "up")
    ns("ip", "link", "set", BRIDGE, "up")
    if "qdisc" in settings:
        ns("tc", "qdisc", "replace", "dev", dut_iface(egress), "root",
           *shlex.split(settings["qdisc"]))
    for port, qdisc in port_settings(settings, BRIDGE_EGRESS_QDISC):
        ns("tc", "qdisc", "replace", "dev", dut_iface(port), "root", *shlex.split(qdisc))
    for port, qdisc in port_settings(settings, BRIDGE_INPUT_QUEUE):
        # An ifb device takes the port's arriving frames through its root qdisc and
        # hands them back to the port's receive path: a queue in front of the bridge.
        ifb = input_queue_iface(port)
        ns("ip", "link", "add", ifb, "type", "ifb")
        ns("ip", "link", "set", ifb, "up")
        ns("tc", "qdisc", "replace", "dev", ifb, "root", *shlex.split(qdisc))
        ns("tc", "qdisc", "add", "dev", dut_iface(port), "handle", "ffff:", "ingress")
        ns("tc", "filter", "add", "dev", dut_iface(port), "parent", "ffff:", "protocol", "all",
           "u32", "match", "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev",
           ifb)
    return NAMESPACE


def input_queue_iface(port: int) -> str:
    """The ifb device of port N's input queue (inside the DUT's namespace)."""
    return f"p4lq{port}"


def port_settings(settings: dict[str, str], prefix: str) -> list[tuple[int, str]]:
    """(port, value) of the settings named prefix + port number (config.topology has
    checked that each names a bridge port)."""
    return sorted((int(key.removeprefix(prefix)), value) for key, value in settings.items()
                  if key.startswith(prefix))


def qdisc_drops(device: str) -> int:
    """Frames the root qdisc of a DUT interface (in the lab's DUT namespace) dropped
    since the lab came up, as `tc -s qdisc` counts them: the DUT's own count of what a
    configured qdisc (a token bucket, an input FIFO) dropped, to check a tester's loss
    against."""
    shown = subprocess.run(["ip", "netns", "exec", netdev.DUT_NETNS, "tc", "-s", "qdisc",
                            "show", "dev", device], capture_output=True, text=True,
                           check=True).stdout
    found = re.search(r"\(dropped (\d+),", shown)
    if found is None:
        raise RuntimeError(f"tc -s qdisc show dev {device}: no drop count in {shown!r}")
    return int(found.group(1))
