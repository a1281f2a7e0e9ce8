"""A port's own counters, outside the switch program: for a BMv2 lab, the kernel's
statistics of the interface the switch reads and writes (before a received frame
reaches BMv2, after a sent frame left it).

Counters are read as the kernel keeps them (64-bit on 64-bit kernels); differences
are taken modulo 2^64 so a counter that wrapped during a trial still gives the
frames counted in between.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

SYSFS_NET: Final = Path("/sys/class/net")
COUNTER_BITS: Final = 64


@dataclass(frozen=True, slots=True)
class InterfaceCounters:
    """One reading of an interface's statistics (frames)."""

    rx_packets: int
    tx_packets: int
    rx_dropped: int
    tx_dropped: int


def counter_delta(before: int, after: int, bits: int = COUNTER_BITS) -> int:
    """Events counted between two readings of a `bits`-wide counter that may have
    wrapped once in between."""
    return (after - before) % (1 << bits)


class PortCounterSource(Protocol):
    """Reads the counters of tester ports; None when a port has no such counters
    (then the trial has no self-check)."""

    def interface(self, port: int) -> str: ...

    def read(self, ports: tuple[int, ...]) -> Mapping[int, InterfaceCounters] | None: ...


class KernelInterfaceCounters:
    """PortCounterSource of a BMv2 lab: port N is the interface `name_of(N)`."""

    __slots__ = ("_name_of", "_root")

    def __init__(self, name_of: Callable[[int], str], root: Path = SYSFS_NET) -> None:
        self._name_of = name_of
        self._root = root

    def interface(self, port: int) -> str:
        return self._name_of(port)

    def read(self, ports: tuple[int, ...]) -> Mapping[int, InterfaceCounters] | None:
        readings = {}
        for port in ports:
            stats = self._root / self._name_of(port) / "statistics"
            if not stats.is_dir():
                return None  # not a lab interface on this host: nothing to compare with
            readings[port] = InterfaceCounters(
                rx_packets=_read(stats / "rx_packets"),
                tx_packets=_read(stats / "tx_packets"),
                rx_dropped=_read(stats / "rx_dropped"),
                tx_dropped=_read(stats / "tx_dropped"),
            )
        return readings


def _read(path: Path) -> int:
    return int(path.read_text().strip())
