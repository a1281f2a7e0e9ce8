"""The tester ports' addresses on the switch, and `dst_mac: resolve`.

`prepare(topology, profile, dataplane)` is what a session calls once it has loaded
the program: it writes every addressed port's ARP / ND answers, then asks each
gateway that a `dst_mac: resolve` stream sends to for its MAC (an ARP request for
an IPv4 stream, a Neighbor Solicitation for an IPv6 one, out of the stream's TX
port) and returns the profile with those MACs in place. Calling it again is
harmless: the answers are rewritten, resolved streams stay as they are.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Protocol

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import PortAddresses, Topology
from p4tester.neighbors.frames import (
    arp_request,
    gratuitous_arp,
    neighbor_solicitation,
    parse_answer,
    unsolicited_na,
)

RESOLVE: Final = "resolve"  # a stream's dst_mac: the TX port's gateway's MAC
REQUEST_TRIES: Final = 3
REPLY_WAIT_S: Final = 1.0  # per try


class NeighborDataplane(Protocol):
    """What resolution needs of the data plane (dataplane.program.TesterDataplane)."""

    def set_neighbor_addresses(self, port: int, mac: str, ipv4: Sequence[str],
                               ipv6: Sequence[str]) -> None: ...

    def send_frame(self, port: int, frame: bytes) -> None: ...

    def control_frames(self, timeout_s: float) -> list[tuple[int, bytes]]: ...


class ResolutionError(ValueError):
    """A gateway did not tell its MAC. A ValueError: most often the topology names a
    gateway the DUT does not have (the CLI reports it as bad input, exit code 2)."""


@dataclass(frozen=True, slots=True)
class Gateway:
    """One next hop to resolve: out of `port`, `address` (IPv4 or IPv6)."""

    port: int
    address: str
    ipv6: bool


def write_addresses(topology: Topology, dataplane: NeighborDataplane) -> None:
    """The switch answers ARP / NS for every addressed port's own addresses; a port
    with `announce: true` then sends a gratuitous ARP / an unsolicited NA for each."""
    for port in topology.ports:
        own = port.addresses
        if own is None:
            continue
        dataplane.set_neighbor_addresses(
            port.number, own.mac, [own.ipv4_address] if own.ipv4 else [],
            [own.ipv6_address] if own.ipv6 else [])
        if own.announce and own.ipv4:
            dataplane.send_frame(port.number, gratuitous_arp(own.mac, own.ipv4_address,
                                                             own.vlan))
        if own.announce and own.ipv6:
            dataplane.send_frame(port.number, unsolicited_na(own.mac, own.ipv6_address,
                                                             own.vlan))


def gateway_of(stream: StreamConfig, topology: Topology) -> Gateway:
    """The gateway a `dst_mac: resolve` stream's MAC comes from; a ConfigError
    naming the stream, the port and the missing key when there is none."""
    port = topology.port(stream.tx_port)
    family, key = ("IPv6", "gateway6") if stream.ipv6 else ("IPv4", "gateway4")
    own = port.addresses
    gateway = "" if own is None else (own.gateway6 if stream.ipv6 else own.gateway4)
    if not gateway:
        raise ConfigError(
            f"{topology.source or topology.name}: stream {stream.id} has dst_mac: resolve "
            f"({family}) but its TX port {port.number} has no {key}; add mac, "
            f"{'ipv6' if stream.ipv6 else 'ipv4'} and {key} to port {port.number}, or give "
            "the stream a dst_mac")
    return Gateway(port.number, gateway, stream.ipv6)


def check_resolvable(profile: Profile, topology: Topology) -> dict[int, Gateway]:
    """The gateway of each `dst_mac: resolve` stream, by stream id (`p4tester validate`
    and resolve_streams); a ConfigError for the first stream without one."""
    return {s.id: gateway_of(s, topology) for s in profile.streams
            if s.addresses.dst_mac == RESOLVE}


def resolve_gateway(gateway: Gateway, own: PortAddresses, dataplane: NeighborDataplane,
                    tries: int = REQUEST_TRIES, wait_s: float | None = None) -> str:
    """The gateway's MAC: a request out of its port, `tries` times, each waiting up to
    wait_s (REPLY_WAIT_S) for the answer among the control frames the switch hands up."""
    wait_s = REPLY_WAIT_S if wait_s is None else wait_s
    if gateway.ipv6:
        request = neighbor_solicitation(own.mac, own.ipv6_address, gateway.address, own.vlan)
    else:
        request = arp_request(own.mac, own.ipv4_address, gateway.address, own.vlan)
    for _try in range(tries):
        dataplane.send_frame(gateway.port, request)
        deadline = time.monotonic() + wait_s
        while (left := deadline - time.monotonic()) > 0:
            for port, frame in dataplane.control_frames(left):
                answer = parse_answer(frame)
                if port == gateway.port and answer is not None \
                        and answer.ip == gateway.address:
                    return answer.mac
    kind = "Neighbor Solicitation" if gateway.ipv6 else "ARP request"
    raise ResolutionError(
        f"port {gateway.port}: no answer from gateway {gateway.address} to {tries} "
        f"{kind}s ({wait_s:g} s each); check that the DUT has {gateway.address} on the "
        f"link cabled to tester port {gateway.port} and that it is up")


def resolve_streams(profile: Profile, topology: Topology,
                    dataplane: NeighborDataplane) -> Profile:
    """The profile with each `dst_mac: resolve` replaced by its gateway's MAC (each
    gateway asked once); other streams unchanged."""
    gateways = check_resolvable(profile, topology)  # all checked before asking
    macs: dict[Gateway, str] = {}
    for gateway in gateways.values():
        if gateway not in macs:
            own = topology.port(gateway.port).addresses
            assert own is not None  # gateway_of found its gateway there
            macs[gateway] = resolve_gateway(gateway, own, dataplane)
    if not gateways:
        return profile
    streams = tuple(
        replace(s, addresses=replace(s.addresses, dst_mac=macs[gateways[s.id]]))
        if s.id in gateways else s for s in profile.streams)
    return replace(profile, streams=streams)


def prepare(topology: Topology, profile: Profile, dataplane: NeighborDataplane) -> Profile:
    """Write the ports' answers, then resolve the profile's gateways (see module doc)."""
    write_addresses(topology, dataplane)
    return resolve_streams(profile, topology, dataplane)
