"""Streams received on several ports (issue 24, item 1): what a profile entry says
about where its frames come back, and what the DUT should do with them.

    - {id: 0, tx_port: 1, rx_port: [2, 3], receive: replicate}   # multicast: every
                                                                # port gets every frame
    - {id: 1, tx_port: 1, rx_port: [2, 3], receive: spread}      # ECMP / LAG: each frame
                                                                # once, on any port

A stream with one RX port (`rx_port: 2`) has no Receive: it is received as always.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p4tester.config.errors import ConfigError

REPLICATE: Final = "replicate"
SPREAD: Final = "spread"
RECEIVE_MODES: Final = (REPLICATE, SPREAD)


@dataclass(frozen=True, slots=True)
class Receive:
    """A stream's RX ports (two or more, in the profile's order) and what the DUT does
    with its frames: REPLICATE (each port is due every frame) or SPREAD (each frame is
    due once, on any of the ports)."""

    mode: str
    ports: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.mode not in RECEIVE_MODES:
            raise ConfigError(f"receive: {self.mode!r} is not one of {', '.join(RECEIVE_MODES)}")
        if len(self.ports) < 2:
            raise ConfigError("receive: a stream received on several ports needs two or more")
        if len(set(self.ports)) != len(self.ports):
            raise ConfigError(f"rx_port: {list(self.ports)} names a port twice")

    @property
    def replicates(self) -> bool:
        return self.mode == REPLICATE


def parse_rx_ports(rx_port: object, receive: object, where: str) -> tuple[int, Receive | None]:
    """The entry's `rx_port` (a port, or a list of ports) and `receive`: the stream's
    first RX port, and its Receive when it has several."""
    if isinstance(rx_port, bool):
        raise ConfigError(f"{where}: rx_port: expected a port number or a list of them")
    if isinstance(rx_port, int):
        if receive is not None:
            raise ConfigError(f"{where}: receive: {receive!r} is for a stream received on "
                              "several ports: give rx_port a list, e.g. rx_port: [2, 3]")
        return rx_port, None
    if (not isinstance(rx_port, list) or not rx_port
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in rx_port)):
        raise ConfigError(f"{where}: rx_port: expected a port number or a list of them")
    if len(rx_port) == 1:
        return parse_rx_ports(rx_port[0], receive, where)
    if receive is None:
        raise ConfigError(f"{where}: rx_port {rx_port} names several ports: say what the DUT "
                          f"does with the frames, receive: {REPLICATE} (every port gets every "
                          f"frame) or receive: {SPREAD} (each frame once, on any of them)")
    if not isinstance(receive, str):
        raise ConfigError(f"{where}: receive: expected {' or '.join(RECEIVE_MODES)}")
    try:
        return rx_port[0], Receive(receive, tuple(rx_port))
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
