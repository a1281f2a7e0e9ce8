"""Tester-port addresses in a topology (ARP / ND, issue 14): parsed, and each
mistake refused naming the port, the key and the fix."""

from __future__ import annotations

from typing import Any

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.topology import PortAddresses, load_topology, topology_from_dict

PORT_1 = {"line_rate": "10Mbps", "peer": "dut:1", "mac": "02:00:00:00:00:01",
          "ipv4": "192.0.2.1/24", "gateway4": "192.0.2.254",
          "ipv6": "2001:db8::1/64", "gateway6": "2001:db8::254", "vlan": 10, "announce": True}


def topology(**port: Any) -> dict[str, Any]:
    return {"name": "t", "ports": {1: port, 2: {"line_rate": "10Mbps"}}}


def test_port_addresses_parse() -> None:
    topo = topology_from_dict(topology(**PORT_1), "t.yaml")
    assert topo.port(1).addresses == PortAddresses(
        "02:00:00:00:00:01", "192.0.2.1/24", "2001:db8::1/64", "192.0.2.254",
        "2001:db8::254", 10, True)
    addresses = topo.port(1).addresses
    assert addresses is not None
    assert (addresses.ipv4_address, addresses.ipv6_address) == ("192.0.2.1", "2001:db8::1")
    assert topo.port(2).addresses is None


def test_one_family_and_no_gateway_is_enough() -> None:
    topo = topology_from_dict(topology(line_rate="10Mbps", mac="02:AA:00:00:00:01",
                                       ipv6="2001:db8::1/64"), "t.yaml")
    assert topo.port(1).addresses == PortAddresses("02:aa:00:00:00:01", "", "2001:db8::1/64")


def test_shipped_arp_topology() -> None:
    topo = load_topology("topologies/linux-router-arp.yaml")
    assert [p.addresses for p in topo.ports] == [
        PortAddresses("02:00:00:00:00:01", "192.0.2.1/24", "2001:db8::1/64", "192.0.2.254",
                      "2001:db8::254"),
        PortAddresses("02:00:00:00:00:03", "198.51.100.1/24", "2001:db8:1::1/64",
                      "198.51.100.254", "2001:db8:1::254"),
    ]
    assert dict(topo.dut.settings)["neighbours"] == "dynamic"


@pytest.mark.parametrize(("changes", "message"), [
    ({"mac": None}, "t.yaml: ports: port 1: addresses need the port's 'mac', the MAC the "
                    "tester answers with, e.g. mac: \"02:00:00:00:00:01\""),
    ({"mac": "02:00:00:00:01"}, "t.yaml: ports: port 1: mac '02:00:00:00:01' must be a "
                                "unicast MAC such as \"02:00:00:00:00:01\" (six hex bytes, "
                                "first byte even)"),
    ({"mac": "01:00:5e:00:00:01"}, "t.yaml: ports: port 1: mac '01:00:5e:00:00:01' must be a "
                                   "unicast MAC such as \"02:00:00:00:00:01\" (six hex bytes, "
                                   "first byte even)"),
    ({"ipv4": "192.0.2.1"}, "t.yaml: ports: port 1: ipv4 '192.0.2.1' needs its prefix length, "
                            "e.g. ipv4: 192.0.2.1/24"),
    ({"ipv4": "192.0.2.0/24"}, "t.yaml: ports: port 1: ipv4 '192.0.2.0/24' is its subnet's "
                               "network address; give the port a host address, e.g. "
                               "ipv4: 192.0.2.1/24"),
    ({"gateway4": "198.51.100.1"}, "t.yaml: ports: port 1: gateway4 198.51.100.1 is not in the "
                                   "port's subnet 192.0.2.0/24 (ipv4); the gateway must be "
                                   "on the link"),
    ({"gateway6": "2001:db8::1"}, "t.yaml: ports: port 1: gateway6 2001:db8::1 is the port's "
                                  "own ipv6 address; name the DUT's address on this link"),
    ({"gateway6": "192.0.2.254"}, "t.yaml: ports: port 1: gateway6 192.0.2.254 is not in the "
                                  "port's subnet 2001:db8::/64 (ipv6); the gateway must be "
                                  "on the link"),
    ({"ipv6": None}, "t.yaml: ports: port 1: gateway6 '2001:db8::254' needs the port's own "
                     "ipv6 address (the source of its requests); add it or drop the gateway"),
    ({"ipv4": None, "ipv6": None, "gateway4": None, "gateway6": None},
     "t.yaml: ports: port 1: mac without ipv4 or ipv6: give the port an address, e.g. "
     "ipv4: 192.0.2.1/24, or drop mac"),
    ({"vlan": 4095}, "t.yaml: ports: port 1: vlan 4095 must be an 802.1Q VLAN id in 1..4094 "
                     "(drop it for an untagged port)"),
    ({"announce": "yes"}, "t.yaml: ports: port 1: announce 'yes' must be true or false (a "
                          "gratuitous ARP / unsolicited NA for the port's addresses when a "
                          "session opens)"),
    ({"gatway4": "192.0.2.254"}, "t.yaml: ports: port 1: unknown key 'gatway4'; did you mean "
                                 "'gateway4'?"),
])
def test_port_address_errors(changes: dict[str, Any], message: str) -> None:
    port = {k: v for k, v in {**PORT_1, **changes}.items() if v is not None}
    with pytest.raises(ConfigError) as caught:
        topology_from_dict(topology(**port), "t.yaml")
    assert str(caught.value) == message


def test_bad_address_names_key_and_example() -> None:
    with pytest.raises(ConfigError, match=r"^t\.yaml: ports: port 1: ipv6 '2001:db8::zz/64': .*"
                                          r"; write address/prefix, e\.g\. "
                                          r"ipv6: 2001:db8::1/64$"):
        topology_from_dict(topology(**{**PORT_1, "ipv6": "2001:db8::zz/64"}), "t.yaml")
