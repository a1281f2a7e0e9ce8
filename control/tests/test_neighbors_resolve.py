"""`dst_mac: resolve` and the ports' addresses, against a fake data plane that
answers (or not) like a router on the other end of the port."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from scapy.layers.inet6 import ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import Topology, topology_from_dict
from p4tester.neighbors import resolve
from p4tester.neighbors.resolve import (
    Gateway,
    ResolutionError,
    check_resolvable,
    prepare,
    resolve_streams,
    write_addresses,
)
from p4tester.runs.describe import describe

MAC1 = "02:00:00:00:00:01"
ROUTER4 = "5a:00:00:00:00:04"
ROUTER6 = "5a:00:00:00:00:06"


@dataclass
class FakeRouter:
    """Answers ARP requests for 192.0.2.254 and NS for 2001:db8::254 arriving on
    port 1, after `silent` requests unanswered; every frame it got is in `sent`."""

    silent: int = 0
    chatter: list[tuple[int, bytes]] = field(default_factory=list)  # handed up first
    sent: list[tuple[int, bytes]] = field(default_factory=list)
    entries: list[tuple[int, str, tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=list)
    waits: list[float] = field(default_factory=list)
    _pending: list[tuple[int, bytes]] = field(default_factory=list)

    def set_neighbor_addresses(self, port: int, mac: str, ipv4: Sequence[str],
                               ipv6: Sequence[str]) -> None:
        self.entries.append((port, mac, tuple(ipv4), tuple(ipv6)))

    def send_frame(self, port: int, frame: bytes) -> None:
        self.sent.append((port, frame))
        if len(self.sent) <= self.silent or port != 1:
            return
        packet = Ether(frame)
        vlan = [Dot1Q(vlan=packet[Dot1Q].vlan)] if Dot1Q in packet else []
        answer: Any
        if ARP in packet and packet[ARP].pdst == "192.0.2.254":
            answer = Ether(dst=MAC1, src=ROUTER4, type=0x8100 if vlan else 0x0806)
            answer = (answer / vlan[0] if vlan else answer) / ARP(
                op=2, hwsrc=ROUTER4, psrc="192.0.2.254", hwdst=MAC1, pdst="192.0.2.1")
        elif ICMPv6ND_NS in packet and packet[ICMPv6ND_NS].tgt == "2001:db8::254":
            answer = (Ether(dst=MAC1, src=ROUTER6) / IPv6(src="2001:db8::254")
                      / ICMPv6ND_NA(tgt="2001:db8::254", S=1)
                      / ICMPv6NDOptDstLLAddr(lladdr=ROUTER6))
        else:
            return
        self._pending.append((1, bytes(answer)))

    def control_frames(self, timeout_s: float) -> list[tuple[int, bytes]]:
        self.waits.append(timeout_s)
        frames = self.chatter + self._pending
        self.chatter, self._pending = [], []
        if not frames:
            time.sleep(timeout_s)  # as the data plane waits for a packet-in
        return frames


def topology(**port1: Any) -> Topology:
    port = {"line_rate": "10Mbps", "mac": MAC1, "ipv4": "192.0.2.1/24",
            "gateway4": "192.0.2.254", "ipv6": "2001:db8::1/64", "gateway6": "2001:db8::254",
            **port1}
    return topology_from_dict({"name": "t", "ports": {
        1: {k: v for k, v in port.items() if v is not None},
        2: {"line_rate": "10Mbps", "mac": "02:00:00:00:00:03", "ipv4": "198.51.100.1/24"},
        3: {"line_rate": "10Mbps"}}}, "t.yaml")


def profile(*streams: dict[str, Any]) -> Any:
    return profile_from_dict({"name": "p", "frame_sizes": [128], "streams": [
        {"tx_port": 1, "rx_port": 2, "share": 0.2, **s} for s in streams]}, "p.yaml")


@pytest.fixture(autouse=True)
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resolve, "REPLY_WAIT_S", 0.05)


def test_write_addresses_for_every_addressed_port() -> None:
    router = FakeRouter()
    write_addresses(topology(), router)
    assert router.entries == [(1, MAC1, ("192.0.2.1",), ("2001:db8::1",)),
                              (2, "02:00:00:00:00:03", ("198.51.100.1",), ())]


def test_resolve_ipv4_and_ipv6_once_per_gateway() -> None:
    router = FakeRouter(chatter=[(2, bytes(Ether() / ARP(op=2, psrc="192.0.2.254",
                                                         hwsrc="5a:ff:ff:ff:ff:ff")))])
    given = profile({"id": 0, "dst_mac": "resolve"}, {"id": 1, "dst_mac": "resolve"},
                    {"id": 2, "dst_mac": "resolve", "ipv6": True},
                    {"id": 3, "dst_mac": "02:00:00:00:00:09"})
    resolved = resolve_streams(given, topology(), router)
    assert [s.addresses.dst_mac for s in resolved.streams] == [
        ROUTER4, ROUTER4, ROUTER6, "02:00:00:00:00:09"]
    assert [s.addresses.src_mac for s in resolved.streams] == [
        s.addresses.src_mac for s in given.streams]
    # One ARP request, one NS, both out of port 1; the answer on port 2 was not taken.
    assert [(port, Ether(frame).type) for port, frame in router.sent] == [
        (1, 0x0806), (1, 0x86DD)]
    assert resolve_streams(resolved, topology(), router) == resolved  # nothing left to ask
    assert len(router.sent) == 2


def test_vlan_port_asks_tagged() -> None:
    router = FakeRouter()
    resolved = resolve_streams(profile({"id": 0, "dst_mac": "resolve"}), topology(vlan=20),
                               router)
    assert resolved.streams[0].addresses.dst_mac == ROUTER4
    assert Ether(router.sent[0][1])[Dot1Q].vlan == 20


def test_retries_until_answered() -> None:
    router = FakeRouter(silent=2)
    resolved = resolve_streams(profile({"id": 0, "dst_mac": "resolve"}), topology(), router)
    assert resolved.streams[0].addresses.dst_mac == ROUTER4
    assert len(router.sent) == 3


def test_no_answer_names_port_gateway_and_tries() -> None:
    router = FakeRouter(silent=3)
    with pytest.raises(ResolutionError) as caught:
        resolve_streams(profile({"id": 0, "dst_mac": "resolve", "ipv6": True}), topology(),
                        router)
    assert str(caught.value) == (
        "port 1: no answer from gateway 2001:db8::254 to 3 Neighbor Solicitations "
        "(0.05 s each); check that the DUT has 2001:db8::254 on the link cabled to tester "
        "port 1 and that it is up")
    assert len(router.sent) == 3
    assert all(0 < wait <= 0.05 for wait in router.waits)


@pytest.mark.parametrize(("port1", "stream", "message"), [
    ({"gateway4": None}, {"id": 4, "dst_mac": "resolve"},
     "t.yaml: stream 0 has dst_mac: resolve (IPv4) but its TX port 1 has no gateway4; add "
     "mac, ipv4 and gateway4 to port 1, or give the stream a dst_mac"),
    ({}, {"id": 5, "dst_mac": "resolve", "ipv6": True, "tx_port": 3},
     "t.yaml: stream 5 has dst_mac: resolve (IPv6) but its TX port 3 has no gateway6; add "
     "mac, ipv6 and gateway6 to port 3, or give the stream a dst_mac"),
])
def test_missing_gateway_refused_before_any_request(port1: dict[str, Any],
                                                    stream: dict[str, Any],
                                                    message: str) -> None:
    router = FakeRouter()
    with pytest.raises(ConfigError) as caught:
        prepare(topology(**port1), profile({"id": 0, "dst_mac": "resolve"}, stream), router)
    assert str(caught.value) == message
    assert router.sent == []


def test_prepare_writes_then_resolves() -> None:
    router = FakeRouter()
    resolved = prepare(topology(), profile({"id": 0, "dst_mac": "resolve", "ipv6": True}),
                       router)
    assert resolved.streams[0].addresses.dst_mac == ROUTER6
    assert len(router.entries) == 2
    assert len(router.sent) == 1


def test_check_resolvable_and_validate() -> None:
    given = profile({"id": 0, "dst_mac": "resolve"}, {"id": 1, "dst_mac": "resolve",
                                                       "ipv6": True}, {"id": 2})
    assert check_resolvable(given, topology()) == {
        0: Gateway(1, "192.0.2.254", False), 1: Gateway(1, "2001:db8::254", True)}
    document, _text = describe(topology(), given)
    assert document["valid"] is True
    with pytest.raises(ConfigError) as caught:
        describe(topology(gateway6=None), given)
    assert str(caught.value) == (
        "t.yaml: stream 1 has dst_mac: resolve (IPv6) but its TX port 1 has no gateway6; add "
        "mac, ipv6 and gateway6 to port 1, or give the stream a dst_mac")


def test_announce_sends_gratuitous_arp_and_unsolicited_na() -> None:
    router = FakeRouter()
    write_addresses(topology(announce=True), router)
    assert router.entries == [(1, MAC1, ("192.0.2.1",), ("2001:db8::1",)),
                              (2, "02:00:00:00:00:03", ("198.51.100.1",), ())]
    arp, na = (Ether(frame) for _port, frame in router.sent)
    assert [port for port, _frame in router.sent] == [1, 1]
    assert (arp[ARP].psrc, arp[ARP].pdst, arp[ARP].hwsrc) == ("192.0.2.1", "192.0.2.1", MAC1)
    assert (na[ICMPv6ND_NA].tgt, na[IPv6].dst) == ("2001:db8::1", "ff02::1")
