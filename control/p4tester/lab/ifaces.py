"""Names of a lab's root-namespace interfaces. Shared by the runner, the DUT kinds and
the tester's self-check, so none of them imports another for a name."""

from __future__ import annotations

from p4tester.config.topology import Topology
from p4tester.lab.netdev import LINK_PREFIX

# Every tester port's interface starts so (the ones the tester switch reads and writes).
TESTER_PREFIX = f"{LINK_PREFIX}t"


def tester_iface(port: int) -> str:
    """Tester port N's interface (the tester switch's -i N@p4lt<N>), in every lab kind."""
    return f"{TESTER_PREFIX}{port}"


def port_iface(topology: Topology, port: int) -> str:
    """The host interface of tester port N: the one the topology names (target ebpf on
    a host's own NICs), else the lab's p4lt<N>."""
    return topology.port(port).interface or tester_iface(port)


def dut_iface(port: int) -> str:
    return f"{LINK_PREFIX}d{port}"


def host_iface(port: int) -> str:
    """The root-namespace end of a tester port cabled to "host" (PTF, benches)."""
    return f"{LINK_PREFIX}h{port}"
