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

The send side runs the other way (the program counts a frame before its interface
sends it), so the same order would invent a drop out of a frame sent in a read
window. No tester port sends at the edges, but a lab DUT may: a deep queue still
drains into the tester when the next trial begins. An edge may therefore read the
interfaces on both sides of the program's read (InterfaceBracket): receive figures
take the interface reads nearest the trial (the last at the start, the first at
the end), send figures the farthest, and neither side can invent a drop.

Receive figures hold only if the switch took in nothing between its port counts
and the stream figures read after them. A switch still working through frames its
ports delivered before the read (a starved BMv2's input queue) changes its figures
while they are read: describe_still_taking_in names that, from the port counts read
again after the rest, against what the interfaces delivered during the read.

That same order hides one thing: a frame the program counted sent that was still in
the tester's own send path (BMv2's output buffer, on a starved host) at the closing
edge. It had not reached the receiving port yet, so no count is short at either port,
and the receive figure misses it. describe_still_sending names such frames: the
interface read before the program's must already have sent every frame the program
counted by then, or the trial's end came too soon for the tester.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.tester.port_counters import InterfaceCounters, counter_delta


@dataclass(frozen=True, slots=True)
class InterfaceBracket:
    """The interfaces' counters read just before and just after the program's, at
    one edge of a trial."""

    before_program: Mapping[int, InterfaceCounters]
    after_program: Mapping[int, InterfaceCounters]


Interfaces = Mapping[int, InterfaceCounters] | InterfaceBracket


def _bracket(reading: Interfaces) -> InterfaceBracket:
    """One reading stands on both sides of the program's (no traffic at the edge)."""
    if isinstance(reading, InterfaceBracket):
        return reading
    return InterfaceBracket(reading, reading)


@dataclass(frozen=True, slots=True)
class ProgramPortCounts:
    """Frames the switch program counted per port (rx_port / tx_port cells) at one
    edge of a trial; a port missing from a mapping has counted nothing yet."""

    rx: Mapping[int, int]
    tx: Mapping[int, int]
    # rx read again after the edge's other counters (a target whose reads take long
    # enough for its switch to go on taking in frames; None: not read again).
    rx_at_end: Mapping[int, int] | None = None


def counted_between(first: Mapping[int, int], second: Mapping[int, int]) -> int:
    """Frames one side (ProgramPortCounts.rx or .tx) counted over all ports between two
    reads."""
    return sum(counter_delta(first.get(port, 0), count) for port, count in second.items())


def build_self_check(
    interfaces: Mapping[int, str],
    interfaces_before: Interfaces,
    interfaces_after: Interfaces,
    program_before: ProgramPortCounts,
    program_after: ProgramPortCounts,
    feeding_dut: frozenset[int] = frozenset(),
) -> SelfCheck:
    """One PortCheck per port of `interfaces` (port -> interface name), in port order;
    `feeding_dut`: the ports whose refused frames are a DUT's input's (PortCheck)."""
    start, end = _bracket(interfaces_before), _bracket(interfaces_after)
    checks = []
    for port in sorted(interfaces):
        # Receive: the reads nearest the trial; send: the farthest (module docstring).
        rx_first, rx_last = start.after_program[port], end.before_program[port]
        tx_first, tx_last = start.before_program[port], end.after_program[port]
        checks.append(PortCheck(
            port=port,
            interface=interfaces[port],
            interface_rx=counter_delta(rx_first.rx_packets, rx_last.rx_packets),
            interface_tx=counter_delta(tx_first.tx_packets, tx_last.tx_packets),
            interface_rx_dropped=counter_delta(rx_first.rx_dropped, rx_last.rx_dropped),
            interface_tx_dropped=counter_delta(tx_first.tx_dropped, tx_last.tx_dropped),
            program_rx=counter_delta(program_before.rx.get(port, 0),
                                     program_after.rx.get(port, 0)),
            program_tx=counter_delta(program_before.tx.get(port, 0),
                                     program_after.tx.get(port, 0)),
            feeds_dut=port in feeding_dut,
        ))
    return SelfCheck(tuple(checks))


def describe_overcount(interfaces: Mapping[int, str], interfaces_before: InterfaceBracket,
                       interfaces_after: InterfaceBracket, program_before: ProgramPortCounts,
                       program_after: ProgramPortCounts, outside_streams: int) -> str:
    """Frames the tester's counts hold that are not the trial's own ('' if none).

    Receive: what the program counted from a port beyond all the interface delivered
    from its first read at the start to its last at the end (the widest span, so a
    frame in a read window is no excess) came in before the trial and waited in the
    switch. Harmless when the checker kept them out of every stream: `outside_streams`
    is the trial's frames of any kind but a stream's (stale frames of an earlier trial
    or run above all); beyond that, a stream took frames that were not the trial's.
    Send: a port that sent more than the program sent out of it (the narrowest span),
    which no reading order explains."""
    received_excess: list[tuple[int, int, int]] = []
    found = []
    for port in sorted(interfaces):
        name = interfaces[port]
        delivered = counter_delta(interfaces_before.before_program[port].rx_packets,
                                  interfaces_after.after_program[port].rx_packets)
        counted = counter_delta(program_before.rx.get(port, 0), program_after.rx.get(port, 0))
        if counted > delivered:
            received_excess.append((port, counted, delivered))
        sent = counter_delta(interfaces_before.after_program[port].tx_packets,
                             interfaces_after.before_program[port].tx_packets)
        made = counter_delta(program_before.tx.get(port, 0), program_after.tx.get(port, 0))
        if sent > made:
            found.append(f"port {port}: {name} sent {sent - made} frames more than the "
                         f"program sent out of it ({sent} against {made})")
    excess = sum(counted - delivered for _, counted, delivered in received_excess)
    if excess > outside_streams:
        for port, counted, delivered in received_excess:
            found.append(f"port {port}: the program counted {counted - delivered} frames more "
                         f"from {interfaces[port]} than it delivered from before the trial to "
                         f"its end ({counted} against {delivered})")
        found.append(f"more than the {outside_streams} frames the checker kept out of every "
                     "stream: frames from before the trial were taken as a stream's")
    return "; ".join(found)


def describe_still_sending(interfaces: Mapping[int, str], interfaces_before: InterfaceBracket,
                           interfaces_after: InterfaceBracket, program_before: ProgramPortCounts,
                           program_after: ProgramPortCounts) -> str:
    """Frames the program counted sent out of a tester port that its interface had not
    sent when the closing edge read it (before the program's read): still in the
    tester's own switch, so frames on their way were not received yet ('' if none).
    The narrowest span, as receive figures use: a frame the program sent during the
    reads (an answer to a DUT's chatter) can show here, hence the runner's re-reads."""
    found = []
    for port in sorted(interfaces):
        # A frame the interface could not hand to its peer (a veth's tx_dropped) is
        # not on its way either: the self-check counts it where it belongs.
        sent = (counter_delta(interfaces_before.before_program[port].tx_packets,
                              interfaces_after.before_program[port].tx_packets)
                + counter_delta(interfaces_before.before_program[port].tx_dropped,
                                interfaces_after.before_program[port].tx_dropped))
        made = counter_delta(program_before.tx.get(port, 0), program_after.tx.get(port, 0))
        if made > sent:
            found.append(f"port {port}: {made - sent} of the {made} frames the program sent "
                         f"out of it had not left {interfaces[port]} when the trial was read "
                         "(still in the tester's switch: frames on their way were not counted)")
    return "; ".join(found)


def describe_still_taking_in(interfaces: Mapping[int, str], edge: InterfaceBracket,
                             program: ProgramPortCounts) -> str:
    """Frames the program took in from a port while one edge was read beyond what the
    port's interface delivered during that read ('' if none, or if the target does not
    read its port counts again): frames delivered before the read, still working their
    way through the tester's switch, so the figures read beside them are not one
    moment's. Frames delivered during the read (a DUT still draining) are no such sign."""
    if program.rx_at_end is None:
        return ""
    found = []
    for port in sorted(interfaces):
        took = counter_delta(program.rx.get(port, 0), program.rx_at_end.get(port, 0))
        delivered = counter_delta(edge.before_program[port].rx_packets,
                                  edge.after_program[port].rx_packets)
        if took > delivered:
            found.append(f"port {port}: the tester's switch took in {took - delivered} frames "
                         f"{interfaces[port]} had delivered before the trial was read while "
                         "it was read (still working through them: its figures moved as "
                         "they were read)")
    return "; ".join(found)
