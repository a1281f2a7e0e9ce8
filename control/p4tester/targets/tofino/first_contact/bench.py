"""What a first-contact check runs on: a BfRt client, a way to let the switch's time
pass, and the topology's ports, each put in the MAC's internal loopback so that no
cable is needed (a frame a port sends comes straight back into it).

On a switch time passes by itself (SwitchBench sleeps); the tests' fake switch moves
its clock when told to, so the checks never read the host's clock.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient
from p4tester.targets.tofino.chip import Chip
from p4tester.targets.tofino.ports import PortSettings

# bf_rt_port_tf1.json / tf2: $PORT's $LOOPBACK_MODE; MAC_NEAR turns a port's frames
# around inside its MAC, before the serdes (ASSUMED spelling, like $PORT_STAT's).
PORT_LOOPBACK: Final = "$LOOPBACK_MODE"
LOOPBACK_MAC_NEAR: Final = "BF_LPBK_MAC_NEAR"
LOOPBACK_NONE: Final = "BF_LPBK_NONE"
NS_PER_S: Final = 1_000_000_000


class Bench(Protocol):
    """A switch the checks run on."""

    @property
    def client(self) -> BfrtClient:
        """The BfRt session bound to the tester program."""

    def wait_ns(self, ns: int) -> None:
        """Let ns nanoseconds of the switch's time pass."""

    @property
    def sde_python(self) -> str | None:
        """The SDE client's Python environment as the check found it (protobuf version
        beside bfrt_grpc), or None when there is no SDE client (a fake switch)."""


class SwitchBench:
    """A real switch: its time passes while the host sleeps."""

    def __init__(self, client: BfrtClient, sde_python: str | None) -> None:
        self._client = client
        self._sde_python = sde_python

    @property
    def client(self) -> BfrtClient:
        return self._client

    @property
    def sde_python(self) -> str | None:
        return self._sde_python

    def wait_ns(self, ns: int) -> None:
        time.sleep(ns / NS_PER_S)


@dataclass(frozen=True, slots=True)
class Setup:
    """The topology's switch as the checks need it: chip, front-panel names and port
    settings by topology port, each port's line rate, and the topology's name."""

    chip: Chip
    front_panel: Mapping[int, str]
    port_settings: Mapping[int, PortSettings] | None
    line_rate_bps: Mapping[int, float]
    topology: str

    @property
    def ports(self) -> tuple[int, ...]:
        return tuple(sorted(self.front_panel))


def set_mac_loopback(client: BfrtClient, dev_ports: Iterable[int], on: bool) -> None:
    """Turn the MAC's internal loopback on (or off) on these ports."""
    mode = LOOPBACK_MAC_NEAR if on else LOOPBACK_NONE
    for dev_port in sorted(set(dev_ports)):
        client.modify_entry(names.PORT, {names.DEV_PORT: dev_port}, {PORT_LOOPBACK: mode})
