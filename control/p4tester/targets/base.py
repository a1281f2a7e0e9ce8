"""What differs between switch targets beyond P4Runtime, behind one interface."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol


class TargetDriver(Protocol):
    """A switch target's generator controls."""

    @property
    def name(self) -> str:
        """Target name, e.g. 'bmv2'."""

    def prepare(self, stream_ids: Iterable[int], tx_ports: Iterable[int]) -> None:
        """Make the target ready to generate these streams out of these ports."""

    def set_stream_rates(self, rates_pps: Mapping[int, int]) -> None:
        """Pace each stream (id -> frames per second) from its next trial on."""

    def clear_stream_rates(self, stream_ids: Iterable[int]) -> None:
        """Remove the pacing of these streams (their generators are stopped)."""

    def shape_ports(self, rates_pps: Mapping[int, int]) -> None:
        """Let each port (port -> frames per second, 0: no limit) send at most that
        fast, where the generator needs it to space the frames it makes together."""
