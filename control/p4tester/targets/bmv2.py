"""BMv2 target: a stream's rate is the egress queue rate of its pacing port."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from p4tester.dataplane.program import MAX_SEEDS, pacer_port
from p4tester.targets.bmv2_thrift import Bmv2Thrift

# BMv2 egress queues hold 64 frames by default. A pacing queue must hold all of a
# stream's seeds; a TX queue must ride out the moments its egress thread is not
# scheduled (a full TX queue drops frames before they are numbered: they never
# leave, and the trial sends fewer than its budget).
PACER_QUEUE_DEPTH = MAX_SEEDS + 64
TX_QUEUE_DEPTH = 4096


@dataclass(frozen=True, slots=True)
class Bmv2Target:
    """simple_switch_grpc: P4Runtime for the program, thrift for queue rates."""

    thrift: Bmv2Thrift
    name: str = "bmv2"

    def prepare(self, stream_ids: Iterable[int], tx_ports: Iterable[int]) -> None:
        commands = [f"set_queue_depth {PACER_QUEUE_DEPTH} {pacer_port(s)}" for s in stream_ids]
        for port in sorted(set(tx_ports)):
            # Unshaped (shape_ports), whatever a run before, killed, left.
            commands += [f"set_queue_depth {TX_QUEUE_DEPTH} {port}", f"set_queue_rate 0 {port}"]
        self.thrift.run(commands)

    def set_stream_rates(self, rates_pps: Mapping[int, int]) -> None:
        # BMv2 paces in whole frames per second: callers round, and report it.
        self.thrift.set_queue_rates({pacer_port(s): pps for s, pps in rates_pps.items()})

    def clear_stream_rates(self, stream_ids: Iterable[int]) -> None:
        self.thrift.set_queue_rates({pacer_port(s): 0 for s in stream_ids})

    def shape_ports(self, rates_pps: Mapping[int, int]) -> None:
        # A loop pass makes several TX frames at once (v1model/generator.p4): the TX
        # port's egress queue spaces them.
        self.thrift.set_queue_rates(dict(rates_pps))
