"""The Linux router DUT with `neighbours: dynamic`: the commands it runs (iproute2
and sysctl, recorded instead of run), and the setting checked."""

from __future__ import annotations

import dataclasses
import time

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.keys import DUT_LINUX
from p4tester.config.topology import DutConfig, load_topology, topology_from_dict
from p4tester.lab import linux_dut, netdev
from p4tester.lab.netdev import LabError


def recorded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    commands: list[str] = []

    def run(args: list[str], *, check: bool = True, netns: str | None = None) -> str:
        commands.append(f"[{netns or 'root'}] {' '.join(args)}")
        return ""

    monkeypatch.setattr(netdev, "run", run)
    monkeypatch.setattr(netdev, "add_netns", lambda name: commands.append(f"netns {name}"))
    monkeypatch.setattr(time, "sleep",
                        lambda seconds: commands.append(f"sleep {seconds}"))
    return commands


def test_dynamic_router_has_no_static_neighbour_and_takes_the_gateways(
        monkeypatch: pytest.MonkeyPatch) -> None:
    commands = recorded(monkeypatch)
    assert linux_dut.start_linux_dut(load_topology("topologies/linux-router-arp.yaml")) \
        == "p4t-dut"
    ns = "[p4t-dut] "
    assert commands == [
        "netns p4t-dut",
        "[root] ip link set p4ld1 netns p4t-dut",
        "[root] ip link set p4ld2 netns p4t-dut",
        ns + "sysctl -qw net.ipv6.conf.all.forwarding=1",
        *(ns + f"sysctl -qw net.ipv{family}.conf.{key}.{setting}"
          for key in ("all", "default", "p4ld1", "p4ld2")
          for family, setting in (("4", "arp_accept=2"), ("6", "accept_untracked_na=2"),
                                  ("6", "accept_dad=0"),
                                  ("6", "mldv2_unsolicited_report_interval=1"),
                                  ("6", "disable_ipv6=0"))),
        ns + "ip addr add 192.0.2.254/24 dev p4ld1",
        ns + "ip -6 addr add 2001:db8::254/64 dev p4ld1 nodad",
        ns + "ip link set p4ld1 up",
        ns + "ip addr add 198.51.100.254/24 dev p4ld2",
        ns + "ip -6 addr add 2001:db8:1::254/64 dev p4ld2 nodad",
        ns + "ip link set p4ld2 up",
        "sleep 0.3",
        ns + "sysctl -qw net.ipv4.ip_forward=1",
        ns + "sysctl -qw net.ipv4.conf.all.rp_filter=0",
        ns + "sysctl -qw net.ipv4.icmp_ratelimit=0",
    ]
    assert not any("neigh" in c or " address " in c for c in commands)


def test_static_router_keeps_its_static_neighbours(monkeypatch: pytest.MonkeyPatch) -> None:
    commands = recorded(monkeypatch)
    linux_dut.start_linux_dut(load_topology("topologies/linux-router.yaml"))
    neigh = [c for c in commands if " neigh " in c]
    assert neigh == [
        "[p4t-dut] ip neigh replace 192.0.2.1 lladdr 02:00:00:00:00:01 dev p4ld1 nud permanent",
        "[p4t-dut] ip neigh replace 198.51.100.1 lladdr 02:00:00:00:00:03 dev p4ld2 "
        "nud permanent",
    ]


def test_dynamic_router_defaults_without_port_addresses() -> None:
    topo = topology_from_dict({"name": "t", "ports": {1: {"line_rate": "1Mbps",
                                                          "peer": "dut:1"}}}, "t.yaml")
    assert linux_dut.router_addresses(topo, 1, "192.0.2.254/24", "2001:db8::254/64") == (
        "192.0.2.254/24", "2001:db8::254/64")


def test_unknown_neighbours_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    commands = recorded(monkeypatch)
    topo = dataclasses.replace(load_topology("topologies/linux-router-arp.yaml"),
                               dut=DutConfig("linux", (("neighbours", "learned"),)))
    with pytest.raises(LabError) as caught:
        linux_dut.start_linux_dut(topo)
    assert str(caught.value) == ("topologies/linux-router-arp.yaml: dut: neighbours "
                                 "'learned' unknown; use one of ('static', 'dynamic')")
    assert commands == []


@pytest.mark.parametrize(("dut", "lab", "message"), [
    ({"kind": "linux", "neighbours": "learned"}, "veth",
     "t.yaml: dut: neighbours 'learned' unknown; use one of ('static', 'dynamic')"),
    ({"kind": "bmv2", "neighbours": "dynamic"}, "veth",
     "t.yaml: dut: neighbours is a setting of kind linux (this DUT is bmv2); drop it"),
    ({"kind": "linux", "neighbours": "dynamic"}, "mininet",
     "t.yaml: dut: neighbours: dynamic runs on lab: veth only (lab: mininet builds its "
     "router with static neighbours); drop one of them"),
])
def test_neighbours_setting_checked_in_the_topology(dut: dict[str, str], lab: str,
                                                    message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        topology_from_dict({"name": "t", "lab": lab, "dut": dut, "ports": {
            1: {"line_rate": "1Mbps", "peer": "dut:1"}}}, "t.yaml")
    assert str(caught.value) == message


def test_static_is_the_default_and_may_be_named() -> None:
    topo = topology_from_dict({"name": "t", "dut": {"kind": "linux", "neighbours": "static"},
                               "ports": {1: {"line_rate": "1Mbps", "peer": "dut:1"}}}, "t.yaml")
    assert linux_dut.neighbours_mode(topo) == "static"
    assert linux_dut.neighbours_mode(load_topology("topologies/linux-router.yaml")) == "static"


def test_the_static_routers_macs_are_the_ones_the_reference_states() -> None:
    """docs/configuration.md says which MACs the streams each way give as next hop."""
    description = DUT_LINUX.key("neighbours").description
    assert f"ingress port at {linux_dut.INGRESS_MAC}" in description
    assert f"egress port at {linux_dut.EGRESS_MAC}" in description
