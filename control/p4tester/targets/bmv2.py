"""BMv2 target: a stream's rate is the egress queue rate of its pacing port."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from p4tester.dataplane.program import pacer_port
from p4tester.targets.bmv2_thrift import Bmv2Thrift


@dataclass(frozen=True, slots=True)
class Bmv2Target:
    """simple_switch_grpc: P4Runtime for the program, thrift for queue rates."""

    thrift: Bmv2Thrift
    name: str = "bmv2"

    def set_stream_rates(self, rates_pps: Mapping[int, int]) -> None:
        # BMv2 paces in whole frames per second: callers round, and report it.
        self.thrift.set_queue_rates({pacer_port(s): pps for s, pps in rates_pps.items()})

    def clear_stream_rates(self, stream_ids: Iterable[int]) -> None:
        self.thrift.set_queue_rates({pacer_port(s): 0 for s in stream_ids})
