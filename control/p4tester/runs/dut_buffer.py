"""The lab `bmv2` DUT's buffer, stepped over thrift by the queue sweep (seed 004)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from p4tester.config.errors import ConfigError
from p4tester.config.topology import Topology
from p4tester.lab.bmv2_dut import dut_settings, forwarding
from p4tester.targets.bmv2_thrift import Bmv2Thrift


@dataclass(frozen=True, slots=True)
class Bmv2DutBuffer:
    """DutControl for the lab's `bmv2` DUT: buffer % of its configured queue depth."""

    thrift: Bmv2Thrift
    egress_ports: tuple[int, ...]
    full_depth: int

    def set_buffer_percent(self, percent: float) -> None:
        depth = max(1, math.floor(self.full_depth * percent / 100.0))
        self.thrift.run([f"set_queue_depth {depth} {port}" for port in self.egress_ports])


def bmv2_dut_buffer(topology: Topology) -> Bmv2DutBuffer:
    """The topology's DUT buffer; ConfigError when its DUT is no lab `bmv2`."""
    if topology.dut.kind != "bmv2":
        raise ConfigError(f"queue-sweep steps the DUT's buffer: it needs a `bmv2` DUT, "
                          f"{topology.source} has {topology.dut.kind!r}")
    settings = dut_settings(topology)
    return Bmv2DutBuffer(Bmv2Thrift(int(settings.get("thrift_port", "9091"))),
                         tuple(sorted(set(forwarding(settings, topology.source).values()))),
                         int(settings.get("queue_depth", "64")))
