"""ARP and IPv6 Neighbor Discovery answered by the eBPF program, out of the port
the request came in on (the NA's ICMPv6 checksum made by the ingress deparser)."""

from __future__ import annotations

import ipaddress

from scapy.layers.inet6 import ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, IPv6
from scapy.layers.l2 import ARP, Ether

from p4tester.dataplane.constants import RX_KIND_CONTROL
from p4tester.targets.ebpf.tester import EbpfTester

from .checker_helpers import settle
from .frames import Capture, send

TESTER_MAC = 0x02AABBCCDD01
TESTER_MAC_TEXT = "02:aa:bb:cc:dd:01"
ASKER_MAC = "02:00:00:00:00:77"


def test_arp_request_for_a_tester_address_is_answered(tester: EbpfTester) -> None:
    tester.answer_arp(1, int(ipaddress.IPv4Address("192.0.2.10")), TESTER_MAC)
    request = Ether(src=ASKER_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(
        op=1, hwsrc=ASKER_MAC, psrc="192.0.2.1", pdst="192.0.2.10")
    capture = Capture("p4eb1b")
    try:
        send("p4eb1b", [bytes(request)])
        replies = capture.frames(1)
    finally:
        capture.close()
    settle(tester, 1)
    assert tester.rx_kinds()[RX_KIND_CONTROL] == 1
    reply = Ether(replies[0])
    assert reply.dst == ASKER_MAC and reply.src == TESTER_MAC_TEXT
    assert (reply[ARP].op, reply[ARP].hwsrc, reply[ARP].psrc, reply[ARP].pdst) == (
        2, TESTER_MAC_TEXT, "192.0.2.10", "192.0.2.1")


def test_neighbor_solicitation_is_answered_with_a_valid_checksum(tester: EbpfTester) -> None:
    target = "2001:db8::10"
    tester.answer_nd(1, ipaddress.IPv6Address(target).packed, TESTER_MAC)
    solicitation = Ether(src=ASKER_MAC, dst="33:33:ff:00:00:10") / IPv6(
        src="2001:db8::1", dst="ff02::1:ff00:10", hlim=255) / ICMPv6ND_NS(tgt=target)
    capture = Capture("p4eb1b")
    try:
        send("p4eb1b", [bytes(solicitation)])
        replies = capture.frames(1)
    finally:
        capture.close()
    advertisement = Ether(replies[0])
    assert advertisement[IPv6].src == target and advertisement[IPv6].dst == "2001:db8::1"
    assert advertisement[ICMPv6ND_NA].tgt == target
    assert advertisement[ICMPv6NDOptDstLLAddr].lladdr == TESTER_MAC_TEXT
    received = advertisement[ICMPv6ND_NA].cksum
    del advertisement[ICMPv6ND_NA].cksum
    assert Ether(bytes(advertisement))[ICMPv6ND_NA].cksum == received


def test_solicitation_from_the_unspecified_address_is_not_answered(tester: EbpfTester) -> None:
    """Duplicate address detection: the program's constant entry for :: (written by
    the map initializer) keeps it from answering."""
    target = "2001:db8::10"
    tester.answer_nd(1, ipaddress.IPv6Address(target).packed, TESTER_MAC)
    probe = Ether(src=ASKER_MAC, dst="33:33:ff:00:00:10") / IPv6(
        src="::", dst="ff02::1:ff00:10", hlim=255) / ICMPv6ND_NS(tgt=target)
    capture = Capture("p4eb1b")
    try:
        send("p4eb1b", [bytes(probe)])
        replies = capture.frames(1, timeout_s=0.5)
    finally:
        capture.close()
    settle(tester, 1)
    assert replies == []
