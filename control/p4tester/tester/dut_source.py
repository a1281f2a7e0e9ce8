"""What the trial loop reads of a lab DUT sharing the host (lab.dut_counters provides
them): its interfaces' counters and its program's per-port counts, checked like the
tester's own (tester.selfcheck)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Protocol

from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.selfcheck import ProgramPortCounts

# A DUT read is a side check: it must not hold a trial up for long.
DUT_TIMEOUT_S: Final = 1.0


class DutCounterSource(Protocol):
    """A lab DUT's ports: their interfaces' counters and what the DUT itself counted.
    Either read gives None when the DUT cannot be read: the trial is then unchecked on
    the DUT's side, which makes it as little the DUT's result as a dut-limited one
    (issue 21: no check switches itself off). A DUT that is gone (`running` False: its
    process or namespace no longer exists) is another matter: it forwards nothing, which
    is the DUT's own behaviour, and the trials show it as loss."""

    def interfaces(self) -> Mapping[int, str]: ...

    def running(self) -> bool: ...

    def read_interfaces(self) -> Mapping[int, InterfaceCounters] | None: ...

    def read_program(self) -> ProgramPortCounts | None: ...

    def fed_ports(self) -> frozenset[int]:
        """The tester ports whose frames go straight into this DUT's own input queue (a
        veth into a kernel DUT that receives on CPUs apart from the tester's,
        lab.receive_steering): a frame such a port could not hand over was refused by
        the DUT's input, which the DUT's interfaces count (its rx_dropped), not lost by
        the tester. Empty where the queue is shared with the tester's own receive."""
        ...

    def steady_rate_pps(self) -> float | None:
        """The rate below which the DUT's queues never overflow while it holds its
        configured behaviour (tester.dut_queue); None for a DUT that drops by design
        (impairments, a kernel qdisc's own shaping) or states no rate."""
        ...
