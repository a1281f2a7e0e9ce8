"""Histogram bin tables on Tofino: each bin's range as ternary prefix entries.

Bin i covers [edges[i], edges[i+1] - 1] (dataplane.program.bin_ranges); values in no
bin fall to the table's default action, the outside bin. Entries for all streams
(stream mask 0) sit below per-stream overrides; in BfRt a *lower* $MATCH_PRIORITY
wins. Latency is in nanoseconds on Tofino: edges given in us are scaled by 1000.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from p4tester.dataplane.ternary import Ternary, bin_prefixes
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient

PRIORITY_ONE_STREAM: Final = 1
PRIORITY_ALL_STREAMS: Final = 2
STREAM_MASK: Final = 0xFFFF
LATENCY_BITS: Final = 32
QDEPTH_BITS: Final = 16
NS_PER_US: Final = 1000


@dataclass(frozen=True, slots=True)
class BinTable:
    table: str
    action: str
    value_key: str
    value_bits: int


LATENCY: Final = BinTable(names.LATENCY_BINS, names.SET_LATENCY_BIN, names.LATENCY_KEY,
                          LATENCY_BITS)
QDEPTH: Final = BinTable(names.QDEPTH_BINS, names.SET_QDEPTH_BIN, names.QDEPTH_KEY, QDEPTH_BITS)


def latency_edges_ns(edges_us: Sequence[int]) -> tuple[int, ...]:
    """Bin edges in the switch's unit (ns); the top edge may be 2^32 (range ends at 2^32-1)."""
    edges = tuple(e * NS_PER_US for e in edges_us)
    if edges and edges[-1] > 1 << LATENCY_BITS:
        raise ValueError(
            f"latency bin edge {edges_us[-1]} us is beyond the 32-bit nanosecond latency "
            f"of the Tofino checker (at most {(1 << LATENCY_BITS) // NS_PER_US} us)")
    return edges


def set_bins(client: BfrtClient, bins: BinTable, edges: Sequence[int],
             stream_id: int | None = None) -> int:
    """Replace the entries of one stream (None: all streams); returns entries written."""
    entries = bin_prefixes(edges, bins.value_bits)
    if stream_id is None:
        stream, priority = Ternary(0, 0), PRIORITY_ALL_STREAMS
    else:
        if not 0 <= stream_id < names.MAX_STREAMS:
            raise ValueError(f"stream id {stream_id} is outside 0..{names.MAX_STREAMS - 1}")
        stream, priority = Ternary(stream_id, STREAM_MASK), PRIORITY_ONE_STREAM
    current = client.read_entries(bins.table)
    mine = [e for e in current if e.key.get(names.BIN_STREAM_KEY) == stream
            and e.key.get(names.MATCH_PRIORITY) == priority]
    if len(current) - len(mine) + len(entries) > names.BIN_TABLE_SIZE:
        raise ValueError(
            f"{bins.table}: these {len(edges) - 1} bins expand to {len(entries)} ternary "
            f"entries; with the {len(current) - len(mine)} entries of other streams that is "
            f"more than the table's {names.BIN_TABLE_SIZE}: use fewer bins or round edges "
            "to powers of two")
    for entry in mine:
        client.delete_entry(bins.table, entry.key)
    for index, prefix in entries:
        client.add_entry(bins.table, {
            names.BIN_STREAM_KEY: stream,
            bins.value_key: prefix,
            names.MATCH_PRIORITY: priority,
        }, {names.BIN_PARAM: index}, action=bins.action)
    return len(entries)
