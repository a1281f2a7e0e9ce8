"""RFC 2889's traffic patterns: which ports send to which, and how each port splits
its load, and the profile streams that carry them.

- fully meshed (section 5.1): every port sends to every other port, its load split
  evenly over them;
- partially meshed (5.2): each source port sends to every destination port, its load
  split evenly (one-to-many, many-to-one and many-to-many are its port groups); both
  ways, the destinations also send back to the sources;
- congestion control (5.3's two-to-one with an uncongested port): port A sends half
  its load to the congested port C and half to the uncongested port D, port B all of
  its load to C, so C is offered 150 % of its line rate at a 100 % load and D 50 %;
- forward pressure (5.6): port A sends all its load to port B (A at more than line
  rate in its last trial, experiments.rfc2889_pressure).

A pattern is carried by the profile's streams, one per (TX port, RX port) pair (a
`mesh` entry gives them all, config.stream_mesh); a missing pair is an error that
names the pair and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig


@dataclass(frozen=True, slots=True)
class Flow:
    """Frames from `tx_port` to `rx_port`: `share` of the TX port's offered load."""

    tx_port: int
    rx_port: int
    share: float


@dataclass(frozen=True, slots=True)
class TrafficPattern:
    name: str
    flows: tuple[Flow, ...]

    @property
    def ports(self) -> tuple[int, ...]:
        """Every port the pattern sends from or to, in order."""
        return tuple(sorted({f.tx_port for f in self.flows} | {f.rx_port for f in self.flows}))

    @property
    def tx_ports(self) -> tuple[int, ...]:
        return tuple(sorted({f.tx_port for f in self.flows}))

    @property
    def rx_ports(self) -> tuple[int, ...]:
        return tuple(sorted({f.rx_port for f in self.flows}))

    def offered_to(self, rx_port: int) -> float:
        """The load offered to an RX port at a 100 % load on every TX port, a share of
        one port's line rate (above 1: the port is oversubscribed)."""
        return sum(f.share for f in self.flows if f.rx_port == rx_port)


def _distinct(ports: Sequence[int], what: str) -> tuple[int, ...]:
    if len(set(ports)) != len(ports):
        raise ConfigError(f"RFC 2889: {what} {list(ports)} name a port twice")
    return tuple(ports)


def fully_meshed(ports: Sequence[int]) -> TrafficPattern:
    ports = _distinct(ports, "ports")
    if len(ports) < 2:
        raise ConfigError(f"RFC 2889 fully meshed: give at least two ports, got {list(ports)}")
    share = 1.0 / (len(ports) - 1)
    return TrafficPattern("fully-meshed", tuple(
        Flow(tx, rx, share) for tx in ports for rx in ports if tx != rx))


def partially_meshed(sources: Sequence[int], destinations: Sequence[int],
                     both_ways: bool = False) -> TrafficPattern:
    sources = _distinct(sources, "sources")
    destinations = _distinct(destinations, "destinations")
    common = sorted(set(sources) & set(destinations))
    if not sources or not destinations or common:
        raise ConfigError(f"RFC 2889 partially meshed: give source and destination ports, "
                          f"two groups with no port in both (sources {list(sources)}, "
                          f"destinations {list(destinations)})")
    flows = [Flow(tx, rx, 1.0 / len(destinations)) for tx in sources for rx in destinations]
    if both_ways:
        flows += [Flow(tx, rx, 1.0 / len(sources)) for tx in destinations for rx in sources]
    return TrafficPattern("partially-meshed", tuple(flows))


def congestion_control(ports: Sequence[int]) -> TrafficPattern:
    """ports = (A, B, C congested, D uncongested)."""
    ports = _distinct(ports, "ports")
    if len(ports) != 4:
        raise ConfigError("RFC 2889 congestion control: give four ports, A,B,C,D: A and B "
                          f"send to the congested C, A also to the uncongested D (got "
                          f"{list(ports)})")
    a, b, c, d = ports
    return TrafficPattern("congestion-control", (Flow(a, c, 0.5), Flow(a, d, 0.5),
                                                 Flow(b, c, 1.0)))


def forward_pressure(ports: Sequence[int]) -> TrafficPattern:
    """ports = (A sending, B receiving)."""
    ports = _distinct(ports, "ports")
    if len(ports) != 2:
        raise ConfigError("RFC 2889 forward pressure: give two ports, A,B: A sends to B "
                          f"(got {list(ports)})")
    a, b = ports
    return TrafficPattern("forward-pressure", (Flow(a, b, 1.0),))


@dataclass(frozen=True, slots=True)
class CongestionPorts:
    """The roles of a congestion control pattern's ports: A and B send into the
    congested C, A also into the uncongested D."""

    a: int
    b: int
    congested: int
    uncongested: int


def congestion_ports(pattern: TrafficPattern) -> CongestionPorts:
    """The roles, from the pattern's flows: C is the RX port offered the most."""
    congested = max(pattern.rx_ports, key=pattern.offered_to)
    uncongested = min(pattern.rx_ports, key=pattern.offered_to)
    a = next(f.tx_port for f in pattern.flows if f.rx_port == uncongested)
    b = next(port for port in pattern.tx_ports if port != a)
    return CongestionPorts(a, b, congested, uncongested)


def pattern_streams(pattern: TrafficPattern,
                    streams: Sequence[StreamConfig]) -> tuple[tuple[Flow, StreamConfig], ...]:
    """Each flow's stream: the profile's first stream from its TX to its RX port."""
    found = []
    for flow in pattern.flows:
        stream = next((s for s in streams
                       if s.tx_port == flow.tx_port and s.rx_port == flow.rx_port), None)
        if stream is None:
            raise ConfigError(
                f"RFC 2889 {pattern.name}: the profile has no stream from port {flow.tx_port} "
                f"to port {flow.rx_port}; add one, or a mesh of the ports: "
                f"`- {{mesh: [{', '.join(str(p) for p in pattern.ports)}], id: 0}}`")
        found.append((flow, stream))
    return tuple(found)


def learning_streams(pattern: TrafficPattern,
                     streams: Sequence[StreamConfig]) -> tuple[StreamConfig, ...]:
    """One stream from each port of the pattern to another of its ports: its frames
    teach a learning DUT where every port's address is (RFC 2889 section 4), the
    ports that only receive in the pattern included."""
    ports = set(pattern.ports)
    chosen = []
    for port in pattern.ports:
        stream = next((s for s in streams if s.tx_port == port and s.rx_port in ports), None)
        if stream is None:
            raise ConfigError(
                f"RFC 2889 {pattern.name}: port {port} needs a stream to another of the "
                f"test's ports {sorted(ports)} for the learning frames; add a mesh of the "
                f"ports: `- {{mesh: [{', '.join(str(p) for p in pattern.ports)}], id: 0}}`")
        chosen.append(stream)
    return tuple(chosen)
