"""Front-panel ports: names ("1/0") to dev ports, and bring-up (100G with RS-FEC by
default; a Tofino 2's ports at their topology line rate with their lanes, chip.py).

Idempotent: a port that exists with the wanted speed and FEC is only modified (enabled,
autonegotiation set); one that exists with another speed or FEC is deleted and added
again, since the SDE fixes both when it creates a port (ASSUMED from the port
manager's add-only handling of $SPEED); a missing port is added.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from p4tester.config.topology import FRONT_PANEL_PATTERN
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient, BfrtNotFoundError, Data, TableEntry


class PortError(ValueError):
    """A front-panel port that is misnamed or not on this switch."""


@dataclass(frozen=True, slots=True)
class PortSettings:
    speed: str = names.SPEED_100G
    fec: str = names.FEC_RS
    autoneg: str = names.AUTONEG_DEFAULT
    lanes: int | None = None  # $N_LANES when set (a channel of a Tofino 2 400G cage)


def check_front_panel_name(name: str) -> None:
    if not FRONT_PANEL_PATTERN.match(name):
        raise PortError(
            f"front-panel port {name!r} must be written connector/channel, e.g. '1/0' "
            "(what the switch's port manager shows as PORT)"
        )


def resolve_dev_ports(client: BfrtClient, front_panel: Iterable[str]) -> dict[str, int]:
    """Front-panel name -> dev port, through the SDE's $PORT_STR_INFO table."""
    dev_ports: dict[str, int] = {}
    for name in dict.fromkeys(front_panel):
        check_front_panel_name(name)
        try:
            entry = client.read_entry(names.PORT_STR_INFO, {names.PORT_NAME: name})
        except BfrtNotFoundError as exc:
            raise PortError(
                f"front-panel port {name!r} is not on this switch; check the topology's "
                "front_panel names against the switch's port list (bf-sde> pm show)"
            ) from exc
        dev_port = entry.data[names.DEV_PORT]
        if not isinstance(dev_port, int):
            raise PortError(f"{names.PORT_STR_INFO} gave {dev_port!r} for {name!r}, not a number")
        dev_ports[name] = dev_port
    return dev_ports


def bring_up_ports(client: BfrtClient, front_panel: Iterable[str],
                   settings: PortSettings | Mapping[str, PortSettings] | None = None,
                   ) -> dict[str, int]:
    """Create or update the ports; returns front-panel name -> dev port. `settings`:
    one for every port, or each port's by its front-panel name (default PortSettings())."""
    dev_ports = resolve_dev_ports(client, front_panel)
    existing = {e.key[names.DEV_PORT]: e for e in client.read_entries(names.PORT)}
    for name, dev_port in dev_ports.items():
        if isinstance(settings, Mapping):
            if name not in settings:
                raise PortError(f"front-panel port {name!r} has no port settings")
            port = settings[name]
        else:
            port = settings or PortSettings()
        _bring_up(client, dev_port, port, existing.get(dev_port))
    return dev_ports


def _bring_up(client: BfrtClient, dev_port: int, settings: PortSettings,
              current: TableEntry | None) -> None:
    """One port: modified when its speed, FEC and lanes are right, else (re)added."""
    key = {names.DEV_PORT: dev_port}
    enable: Data = {names.PORT_AUTONEG: settings.autoneg, names.PORT_ENABLE: True}
    lanes: Data = {} if settings.lanes is None else {names.PORT_LANES: settings.lanes}
    if current is not None and current.data.get(names.PORT_SPEED) == settings.speed \
            and current.data.get(names.PORT_FEC) == settings.fec \
            and all(current.data.get(k) == v for k, v in lanes.items()):
        client.modify_entry(names.PORT, key, enable)
        return
    if current is not None:
        client.delete_entry(names.PORT, key)
    client.add_entry(names.PORT, key, {names.PORT_SPEED: settings.speed,
                                       names.PORT_FEC: settings.fec, **lanes, **enable})
