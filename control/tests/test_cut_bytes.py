"""TX bytes of random-size frames (dataplane.cut_bytes): the cut bits counted per
stream and per TX port come off the TX counters' bytes, exactly."""

from __future__ import annotations

from p4tester.dataplane import names
from p4tester.dataplane.constants import CUT_BITS, MAX_STREAMS
from p4tester.dataplane.cut_bytes import cut_bytes, without_cut_bytes
from p4tester.p4rt import CounterValue


def bits(owner: int, cuts: list[int]) -> dict[int, CounterValue]:
    """The cells frames with these cuts leave: bit b of each cut in owner x 14 + b."""
    cells: dict[int, int] = {}
    for cut in cuts:
        for bit in range(CUT_BITS):
            if cut >> bit & 1:
                cells[owner * CUT_BITS + bit] = cells.get(owner * CUT_BITS + bit, 0) + 1
    return {index: CounterValue(count, 0) for index, count in cells.items()}


def test_cut_bits_add_up_per_stream_and_port() -> None:
    cuts = [0, 1, 536, 9152, 8191]
    cells = {**bits(5, cuts), **bits(MAX_STREAMS + 2, cuts), **bits(63, [3])}
    assert cut_bytes(cells) == ({5: 17880, 63: 3}, {2: 17880})


def test_tx_bytes_are_what_left_the_tester() -> None:
    cells = {names.TX_STREAM: {5: CounterValue(5, 5 * 596), 6: CounterValue(2, 200)},
             names.TX_PORT: {2: CounterValue(7, 5 * 596 + 200), 3: CounterValue(1, 60)},
             names.RX_STREAM: {5: CounterValue(5, 5 * 596)},
             names.TX_CUT_BITS: {**bits(5, [10, 20, 30, 40, 50]),
                                 **bits(MAX_STREAMS + 2, [10, 20, 30, 40, 50])}}
    corrected = without_cut_bytes(cells)
    assert corrected[names.TX_STREAM] == {5: CounterValue(5, 5 * 596 - 150),
                                          6: CounterValue(2, 200)}
    assert corrected[names.TX_PORT] == {2: CounterValue(7, 5 * 596 + 200 - 150),
                                        3: CounterValue(1, 60)}
    assert corrected[names.RX_STREAM] == cells[names.RX_STREAM]
    assert without_cut_bytes({names.TX_STREAM: {1: CounterValue(1, 64)}}) == \
        {names.TX_STREAM: {1: CounterValue(1, 64)}}
