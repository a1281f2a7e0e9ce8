"""What the Tofino tester does with foreign (non-tester) frames, per ingress port.

The table's default drops them; an entry with port mask 0 sets a policy for every
port below the per-port entries (lower $MATCH_PRIORITY wins in BfRt). Ports here are
dev ports: the driver translates topology ports.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Final

from p4tester.dataplane.ternary import Ternary
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient, BfrtNotFoundError, Data, Key

PORT_MASK: Final = 0x1FF
PRIORITY_ONE_PORT: Final = 1
PRIORITY_ALL_PORTS: Final = 2
_ACTIONS: Final = {
    "drop": names.DROP_FOREIGN,
    "punt": names.PUNT_FOREIGN,
    "forward": names.FORWARD_FOREIGN,
}


def set_foreign_policy(client: BfrtClient, action: str, ingress_dev_port: int | None = None,
                       forward_dev_port: int | None = None) -> None:
    """Drop, punt (to the CPU port) or forward foreign frames of one port (None: all)."""
    if action not in _ACTIONS:
        raise ValueError(f"foreign policy {action!r}: choose one of {sorted(_ACTIONS)}")
    data: Data = {}
    if action == "forward":
        if forward_dev_port is None:
            raise ValueError("foreign policy 'forward' needs the port to forward to")
        data = {names.FORWARD_PORT_PARAM: forward_dev_port}
    key: Key
    if ingress_dev_port is None:
        key = {names.FOREIGN_PORT_KEY: Ternary(0, 0), names.MATCH_PRIORITY: PRIORITY_ALL_PORTS}
    else:
        key = {names.FOREIGN_PORT_KEY: Ternary(ingress_dev_port, PORT_MASK),
               names.MATCH_PRIORITY: PRIORITY_ONE_PORT}
    with suppress(BfrtNotFoundError):  # the first policy for this port has none to replace
        client.delete_entry(names.FOREIGN_TRAFFIC, key)
    client.add_entry(names.FOREIGN_TRAFFIC, key, data, action=_ACTIONS[action])
