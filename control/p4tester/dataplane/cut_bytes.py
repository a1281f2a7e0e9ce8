"""TX bytes of random-size frames (BMv2 generator, tx_resize).

BMv2 counts a frame's bytes as it was before egress cut it short, so the program
also counts what each frame lost, bit by bit: bit b of a frame's cut adds one to
cell base + b of tx_cut_bits, a stream's cells from stream x CUT_BITS and a TX
port's from (MAX_STREAMS + port) x CUT_BITS. The bytes lost are sum(2^b x cell b);
`without_cut_bytes` takes them off the stream's and the port's TX bytes, so the
counters read as what left the tester.
"""

from __future__ import annotations

from collections.abc import Mapping

from p4tester.dataplane import names
from p4tester.dataplane.constants import CUT_BITS, MAX_STREAMS
from p4tester.p4rt import CounterValue

Cells = Mapping[str, Mapping[int, CounterValue]]


def cut_bytes(cut_bits: Mapping[int, CounterValue]) -> tuple[dict[int, int], dict[int, int]]:
    """The bytes cut from each stream's frames and from each port's."""
    streams: dict[int, int] = {}
    ports: dict[int, int] = {}
    for index, cell in cut_bits.items():
        if not cell.packets:
            continue
        owner, bit = divmod(index, CUT_BITS)
        lost = cell.packets << bit
        if owner < MAX_STREAMS:
            streams[owner] = streams.get(owner, 0) + lost
        else:
            port = owner - MAX_STREAMS
            ports[port] = ports.get(port, 0) + lost
    return streams, ports


def without_cut_bytes(cells: Cells) -> dict[str, Mapping[int, CounterValue]]:
    """The counters read, TX bytes less what random-size frames lost."""
    out = dict(cells)
    streams, ports = cut_bytes(cells.get(names.TX_CUT_BITS, {}))
    for counter, lost in ((names.TX_STREAM, streams), (names.TX_PORT, ports)):
        if lost and counter in out:
            out[counter] = {index: CounterValue(cell.packets, cell.bytes - lost.get(index, 0))
                            for index, cell in out[counter].items()}
    return out
