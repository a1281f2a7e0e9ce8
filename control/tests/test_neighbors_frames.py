"""ARP requests and Neighbor Solicitations as the tester sends them, and answers as
a router sends them, checked field by field against scapy's reading."""

from __future__ import annotations

from scapy.layers.inet6 import (
    ICMPv6ND_NA,
    ICMPv6ND_NS,
    ICMPv6NDOptDstLLAddr,
    ICMPv6NDOptSrcLLAddr,
    IPv6,
)
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether

from p4tester.neighbors.frames import (
    NeighborAnswer,
    arp_request,
    gratuitous_arp,
    multicast_mac,
    neighbor_solicitation,
    parse_answer,
    solicited_node,
    unsolicited_na,
)

MAC = "02:00:00:00:00:01"
ROUTER_MAC = "5a:11:22:33:44:55"


def test_arp_request_fields() -> None:
    frame = arp_request(MAC, "192.0.2.1", "192.0.2.254")
    assert len(frame) == 60
    packet = Ether(frame)
    assert (packet.dst, packet.src, packet.type) == ("ff:ff:ff:ff:ff:ff", MAC, 0x0806)
    arp = packet[ARP]
    assert (arp.hwtype, arp.ptype, arp.hwlen, arp.plen, arp.op) == (1, 0x0800, 6, 4, 1)
    assert (arp.hwsrc, arp.psrc, arp.hwdst, arp.pdst) == (
        MAC, "192.0.2.1", "00:00:00:00:00:00", "192.0.2.254")


def test_arp_request_on_a_vlan() -> None:
    packet = Ether(arp_request(MAC, "192.0.2.1", "192.0.2.254", vlan=10))
    assert (packet.type, packet[Dot1Q].vlan, packet[Dot1Q].type) == (0x8100, 10, 0x0806)
    assert packet[ARP].pdst == "192.0.2.254"


def test_solicited_node_group_and_mac() -> None:
    group = solicited_node("2001:db8::12:3456")
    assert str(group) == "ff02::1:ff12:3456"
    assert multicast_mac(group) == "33:33:ff:12:34:56"


def test_neighbor_solicitation_fields_and_checksum() -> None:
    frame = neighbor_solicitation(MAC, "2001:db8::1", "2001:db8::254", vlan=7)
    assert len(frame) == 14 + 4 + 40 + 32
    packet = Ether(frame)
    assert (packet.dst, packet.src, packet[Dot1Q].vlan) == ("33:33:ff:00:02:54", MAC, 7)
    ip = packet[IPv6]
    assert (ip.src, ip.dst, ip.nh, ip.hlim, ip.plen) == (
        "2001:db8::1", "ff02::1:ff00:254", 58, 255, 32)
    ns = packet[ICMPv6ND_NS]
    assert (ns.type, ns.code, ns.tgt) == (135, 0, "2001:db8::254")
    assert packet[ICMPv6NDOptSrcLLAddr].lladdr == MAC
    recomputed = packet.copy()
    del recomputed[ICMPv6ND_NS].cksum
    assert ns.cksum == Ether(bytes(recomputed))[ICMPv6ND_NS].cksum


def test_parse_arp_reply() -> None:
    reply = Ether(dst=MAC, src=ROUTER_MAC) / ARP(op=2, hwsrc=ROUTER_MAC, psrc="192.0.2.254",
                                                 hwdst=MAC, pdst="192.0.2.1")
    assert parse_answer(bytes(reply)) == NeighborAnswer("192.0.2.254", ROUTER_MAC)


def test_parse_na_behind_two_tags_uses_the_target_option() -> None:
    advert = (Ether(dst=MAC, src="5a:00:00:00:00:99") / Dot1AD(vlan=100) / Dot1Q(vlan=10)
              / IPv6(src="2001:db8::254", dst="2001:db8::1")
              / ICMPv6ND_NA(tgt="2001:db8::254", S=1)
              / ICMPv6NDOptDstLLAddr(lladdr=ROUTER_MAC))
    assert parse_answer(bytes(advert)) == NeighborAnswer("2001:db8::254", ROUTER_MAC)


def test_parse_na_without_option_uses_the_ethernet_source() -> None:
    advert = (Ether(dst=MAC, src=ROUTER_MAC) / IPv6(src="2001:db8::254", dst="2001:db8::1")
              / ICMPv6ND_NA(tgt="2001:db8::254"))
    assert parse_answer(bytes(advert)) == NeighborAnswer("2001:db8::254", ROUTER_MAC)


def test_requests_and_other_frames_are_not_answers() -> None:
    assert parse_answer(arp_request(MAC, "192.0.2.1", "192.0.2.254")) is None
    assert parse_answer(neighbor_solicitation(MAC, "2001:db8::1", "2001:db8::254")) is None
    assert parse_answer(bytes(Ether() / IPv6() / ICMPv6ND_NS(tgt="::1"))) is None
    assert parse_answer(b"\x00" * 10) is None


def test_gratuitous_arp_fields() -> None:
    packet = Ether(gratuitous_arp(MAC, "192.0.2.1"))
    assert (packet.dst, packet.src) == ("ff:ff:ff:ff:ff:ff", MAC)
    arp = packet[ARP]
    assert (arp.op, arp.hwsrc, arp.psrc, arp.hwdst, arp.pdst) == (
        1, MAC, "192.0.2.1", "00:00:00:00:00:00", "192.0.2.1")


def test_unsolicited_na_fields_and_checksum() -> None:
    frame = unsolicited_na(MAC, "2001:db8::1", vlan=5)
    packet = Ether(frame)
    assert (packet.dst, packet.src, packet[Dot1Q].vlan) == ("33:33:00:00:00:01", MAC, 5)
    ip = packet[IPv6]
    assert (ip.src, ip.dst, ip.hlim, ip.plen) == ("2001:db8::1", "ff02::1", 255, 32)
    na = packet[ICMPv6ND_NA]
    assert (na.type, na.R, na.S, na.O, na.tgt) == (136, 0, 0, 1, "2001:db8::1")
    assert packet[ICMPv6NDOptDstLLAddr].lladdr == MAC
    recomputed = packet.copy()
    del recomputed[ICMPv6ND_NA].cksum
    assert na.cksum == Ether(bytes(recomputed))[ICMPv6ND_NA].cksum
    # An announcement is not taken for an answer to a solicitation of ours: it is one.
    assert parse_answer(frame) is not None and parse_answer(frame) == NeighborAnswer(
        "2001:db8::1", MAC)
