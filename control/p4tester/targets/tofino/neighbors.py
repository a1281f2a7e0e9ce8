"""The Tofino tester's ARP and IPv6 ND answers (p4src/common/neighbors.p4): one
entry per (dev port, address) with the port's MAC. The switch answers requests
and solicitations for them in the data plane."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient


def write_neighbor_addresses(client: BfrtClient, dev_port: int, mac: str,
                             ipv4: Sequence[str], ipv6: Sequence[str]) -> None:
    mac_value = int(mac.replace(":", ""), 16)
    for address in ipv4:
        client.add_entry(names.ARP_REPLY,
                         {names.NEIGHBOR_PORT_KEY: dev_port,
                          names.ARP_TARGET_KEY: int(ipaddress.IPv4Address(address))},
                         {names.ANSWER_MAC_PARAM: mac_value}, action=names.ANSWER_ARP)
    for address in ipv6:
        client.add_entry(names.ND_REPLY,
                         {names.NEIGHBOR_PORT_KEY: dev_port,
                          names.ND_TARGET_KEY: int(ipaddress.IPv6Address(address))},
                         {names.ANSWER_MAC_PARAM: mac_value}, action=names.ANSWER_ND)
