"""The per-trial self-check's arithmetic: interface counters against the switch
program's per-port counters, taken at both edges of a trial.

Reading order makes frames in flight at the edges err on the side of "not dropped":

- before the trial: program counters first, then the interfaces. A frame arriving
  in between is in the interface's 'before' but not the program's, so it adds to
  the program's difference only: it can hide a drop, never invent one.
- after the drain: interfaces first, then the program. A frame arriving in between
  (kernel chatter after the drain) again only adds to the program's side. A frame
  the interface counted that the switch has not processed yet (still in its input
  queue) would look dropped: the runner re-reads the program's counters a few
  times (settle) before it believes that.

Hence PortCheck clamps a negative difference to zero; a positive one is a frame the
tester lost, and it is counted exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.tester.port_counters import InterfaceCounters, counter_delta


@dataclass(frozen=True, slots=True)
class ProgramPortCounts:
    """Frames the switch program counted per port (rx_port / tx_port cells) at one
    edge of a trial; a port missing from a mapping has counted nothing yet."""

    rx: Mapping[int, int]
    tx: Mapping[int, int]


def build_self_check(
    interfaces: Mapping[int, str],
    interfaces_before: Mapping[int, InterfaceCounters],
    interfaces_after: Mapping[int, InterfaceCounters],
    program_before: ProgramPortCounts,
    program_after: ProgramPortCounts,
) -> SelfCheck:
    """One PortCheck per port of `interfaces` (port -> interface name), in port order."""
    checks = []
    for port in sorted(interfaces):
        first, last = interfaces_before[port], interfaces_after[port]
        checks.append(PortCheck(
            port=port,
            interface=interfaces[port],
            interface_rx=counter_delta(first.rx_packets, last.rx_packets),
            interface_tx=counter_delta(first.tx_packets, last.tx_packets),
            interface_rx_dropped=counter_delta(first.rx_dropped, last.rx_dropped),
            interface_tx_dropped=counter_delta(first.tx_dropped, last.tx_dropped),
            program_rx=counter_delta(program_before.rx.get(port, 0),
                                     program_after.rx.get(port, 0)),
            program_tx=counter_delta(program_before.tx.get(port, 0),
                                     program_after.tx.get(port, 0)),
        ))
    return SelfCheck(tuple(checks))
