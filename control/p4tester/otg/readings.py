"""What the server reads from the tester: per-flow and per-port counters of the
current configuration, as typed values (metrics.py turns them into OTG metrics)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from p4tester.tester.flow_engine import FlowLatency as Latency

from .mapping import MappedConfig, MappedFlow, MappedPort

__all__ = ["FlowCounters", "Latency", "PortCounters", "Reading", "combined_latency"]


def combined_latency(parts: list[tuple[Latency | None, int]]) -> Latency | None:
    """A flow's latency over its streams (one per frame size), given each stream's
    latency and frames received: the least minimum, the greatest maximum, and the
    streams' averages weighted by their frames. None when no stream has any."""
    measured = [(latency, frames) for latency, frames in parts
                if latency is not None and frames > 0]
    if not measured:
        return None
    frames = sum(count for _, count in measured)
    return Latency(minimum_ns=min(latency.minimum_ns for latency, _ in measured),
                   maximum_ns=max(latency.maximum_ns for latency, _ in measured),
                   average_ns=sum(latency.average_ns * count for latency, count in measured)
                   / frames)


@dataclass(frozen=True, slots=True)
class FlowCounters:
    """Since the flow's last start (zero before it ever started). Bytes include FCS."""

    frames_tx: int = 0
    frames_rx: int = 0
    bytes_tx: int = 0
    bytes_rx: int = 0
    started: bool = False  # transmitting now (or paused)
    paused: bool = False
    elapsed_s: float = 0.0  # since its start, while it transmits
    latency: Latency | None = None  # once the flow stopped and received frames


@dataclass(frozen=True, slots=True)
class PortCounters:
    """Since the configuration was applied. Bytes include FCS."""

    frames_tx: int = 0
    frames_rx: int = 0
    bytes_tx: int = 0
    bytes_rx: int = 0


@dataclass(frozen=True, slots=True)
class Reading:
    flows: dict[str, FlowCounters]
    ports: dict[str, PortCounters]
    error: str | None = None  # the last run failed: why
    # The last run's self-check, once all its flows stopped: why the tester cannot vouch
    # for its figures (frames it lost itself), None when it can or has not checked yet.
    unvouched: str | None = None


class TrafficDriver(Protocol):
    """The tester behind the OTG server (the switch, or a fake in unit tests)."""

    def apply(self, config: MappedConfig) -> None: ...

    def start(self, flows: tuple[MappedFlow, ...]) -> list[str]:
        """Started; notes for the client (warnings)."""
        ...

    def stop(self) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def running(self) -> bool: ...

    def read(self) -> Reading: ...

    def start_capture(self, port: MappedPort) -> None: ...

    def stop_capture(self, port: MappedPort) -> None: ...

    def capturing(self, port: MappedPort) -> bool: ...

    def read_capture(self, port: MappedPort) -> bytes: ...

    def close(self) -> None: ...
