"""Checker slots of the streams received on several ports: which cells of the
checker's state each (stream, RX port) uses (p4src/common/rx_port_slots.p4, on BMv2
and Tofino; the eBPF target receives a stream on one port).

A stream with one RX port uses the cells of its own id, as always. A replicated
stream's first port keeps them, and each other port gets cells of its own (both its
sequence and its figures: every port is due the whole sequence). A spread stream keeps
its own id's cells for its sequence over all its ports (a frame the DUT sent out of two
ports is a duplicate, and the seq cells' rx_samples count every frame), and each port
gets cells for its figures (counts, latency, histograms). The extra cells are ids no
stream of the profile uses, and never `reserved` (the reference stream's).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.dataplane.constants import MAX_STREAMS
from p4tester.tester.reference_stream import reference_stream_id


@dataclass(frozen=True, slots=True)
class PortSlots:
    """Where the checker keeps one RX port's frames of a stream: its sequence state in
    `seq_slot`, its counts, latency and histograms in `figure_slot`."""

    port: int
    seq_slot: int
    figure_slot: int


@dataclass(frozen=True, slots=True)
class ReceiveSlots:
    """A several-port stream's slots, one PortSlots per RX port in the profile's order."""

    stream_id: int
    replicated: bool
    ports: tuple[PortSlots, ...]

    @property
    def extra_slots(self) -> tuple[int, ...]:
        """The cells beyond the stream's own id, which a trial must clear too."""
        cells = {p.seq_slot for p in self.ports} | {p.figure_slot for p in self.ports}
        return tuple(sorted(cells - {self.stream_id}))


def checker_cells(slots: Mapping[int, ReceiveSlots], stream_id: int) -> tuple[int, ...]:
    """The checker cells a stream's figures are in: its id, and a several-port stream's
    slots (`slots`: the plan, by stream id)."""
    plan = slots.get(stream_id)
    return (stream_id, *(plan.extra_slots if plan is not None else ()))


def plan_receive_slots(streams: Iterable[StreamConfig], taken: Collection[int],
                       reserved: Collection[int] = (), *, cells: int = MAX_STREAMS,
                       target: str = "BMv2") -> Mapping[int, ReceiveSlots]:
    """Slots for each several-port stream of `streams` (by stream id), from the ids
    below `cells` (the program's MAX_STREAMS: BMv2's by default) that neither `taken`
    (every stream id of the profile) nor `reserved` use, lowest first. Raises
    ConfigError naming what it would take when the data plane has too few."""
    free = [sid for sid in range(cells) if sid not in taken and sid not in reserved]
    several = [(s.id, s.receive) for s in streams if s.receive is not None]
    # A replicated stream's first port keeps its own cells; a spread stream's ports each
    # need figure cells of their own.
    needed = sum(len(r.ports) - (1 if r.replicates else 0) for _, r in several)
    if needed > len(free):
        raise ConfigError(
            f"the streams received on several ports need {needed} checker slots beyond "
            f"the profile's {len(taken)} stream ids, and the {target} tester has "
            f"{cells} in all ({len(reserved)} reserved): use fewer streams or "
            "fewer RX ports")
    unused = iter(free)
    plans: dict[int, ReceiveSlots] = {}
    for stream_id, receive in several:
        if receive.replicates:
            slots = [stream_id, *(next(unused) for _ in receive.ports[1:])]
            port_slots = tuple(PortSlots(port, slot, slot)
                               for port, slot in zip(receive.ports, slots, strict=True))
        else:
            port_slots = tuple(PortSlots(port, stream_id, next(unused))
                               for port in receive.ports)
        plans[stream_id] = ReceiveSlots(stream_id, receive.replicates, port_slots)
    return plans


def slot_entries(slots: Mapping[int, ReceiveSlots]) -> dict[tuple[int, int], tuple[int, int]]:
    """The rx_port_slots table's entries for these streams: (stream, RX port) ->
    (seq slot, figure slot)."""
    return {(sid, port.port): (port.seq_slot, port.figure_slot)
            for sid, plan in slots.items() for port in plan.ports}


def profile_receive_slots(profile: Profile) -> Mapping[int, ReceiveSlots]:
    """The slots of a profile's several-port streams, as every reader of the switch
    must find them: from the ids the profile leaves free, never the reference stream's."""
    reference = reference_stream_id(profile)
    return plan_receive_slots(profile.streams, {stream.id for stream in profile.streams},
                              () if reference is None else (reference,))


@dataclass(frozen=True, slots=True)
class ReceiveCell:
    """A stream on one of its RX ports, as a live reading shows it: its counts and
    latency in `figure_slot`, its sequence figures in `seq_slot`. `sequence`: this row
    carries them (a spread stream's sequence is one over all its ports: its first
    port's row alone carries it, so that rows summed count it once)."""

    stream_id: int
    rx_port: int
    seq_slot: int
    figure_slot: int
    sequence: bool = True


def receive_cells(profile: Profile,
                  slots: Mapping[int, ReceiveSlots]) -> tuple[ReceiveCell, ...]:
    """One ReceiveCell per (stream, RX port) of the profile, in the profile's order
    (`slots`: the profile's plan, profile_receive_slots)."""
    cells = []
    for stream in profile.streams:
        several = slots.get(stream.id)
        if several is None:
            cells.append(ReceiveCell(stream.id, stream.rx_port, stream.id, stream.id))
            continue
        cells.extend(ReceiveCell(stream.id, port.port, port.seq_slot, port.figure_slot,
                                 sequence=several.replicated or index == 0)
                     for index, port in enumerate(several.ports))
    return tuple(cells)
