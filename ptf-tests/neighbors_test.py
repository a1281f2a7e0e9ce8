"""ARP and IPv6 ND: the switch answers for its ports' addresses in the data plane
(VLAN tags kept), hands every other ARP/ND frame to the controller, counts them
all as control (never foreign), and sends the controller's frames out of a port."""

from __future__ import annotations

import ipaddress

import ptf.testutils as tu
from scapy.layers.inet6 import (
    ICMPv6ND_NA,
    ICMPv6ND_NS,
    ICMPv6NDOptDstLLAddr,
    ICMPv6NDOptSrcLLAddr,
    IPv6,
)
from scapy.layers.l2 import ARP, Dot1Q, Ether

from p4tester.dataplane.constants import RX_KIND_CONTROL, RX_KIND_COUNT

from checker_base import CheckerTest
from tester_base import PORT_A, PORT_B

TESTER_MAC = "02:00:00:00:aa:01"
DUT_MAC = "02:00:00:00:bb:01"
TESTER_IP = "192.0.2.2"
DUT_IP = "192.0.2.254"
TESTER_IP6 = "2001:db8:1::2"
DUT_IP6 = "2001:db8:1::fe"


def solicited_node(address: str) -> str:
    low = int(ipaddress.IPv6Address(address)) & 0xFFFFFF
    return str(ipaddress.IPv6Address(int(ipaddress.IPv6Address("ff02::1:ff00:0")) | low))


class NeighborTest(CheckerTest):
    def setUp(self) -> None:
        super().setUp()
        self.tester.set_neighbor_addresses(PORT_A, TESTER_MAC, [TESTER_IP], [TESTER_IP6])

    def assert_control_only(self, count: int) -> None:
        self.assertEqual(self.rx_kinds(), [count if k == RX_KIND_CONTROL else 0
                                           for k in range(RX_KIND_COUNT)])


class AnswersArpRequests(NeighborTest):
    """Untagged and VLAN-tagged requests get exact replies out of the same port."""

    def runTest(self) -> None:
        for tag in (None, 30):
            request = Ether(src=DUT_MAC, dst="ff:ff:ff:ff:ff:ff")
            reply = Ether(src=TESTER_MAC, dst=DUT_MAC)
            if tag is not None:
                request = request / Dot1Q(vlan=tag)
                reply = reply / Dot1Q(vlan=tag)
            request = request / ARP(op=1, hwsrc=DUT_MAC, psrc=DUT_IP, pdst=TESTER_IP)
            reply = reply / ARP(op=2, hwsrc=TESTER_MAC, psrc=TESTER_IP, hwdst=DUT_MAC,
                                pdst=DUT_IP)
            tu.send_packet(self, PORT_A, request)
            self.sent += 1
            (frame,) = self.receive_frames(PORT_A, 1)
            # The request's Ethernet padding (to 60 B) stays behind the reply.
            self.assertEqual(frame[:len(bytes(reply))], bytes(reply), Ether(frame).summary())
            self.assert_no_more_frames(PORT_A)
        self.settle()
        self.assert_control_only(2)


class AnswersNeighborSolicitations(NeighborTest):
    """A solicitation gets a solicited, override NA with the target link-layer
    option and a valid ICMPv6 checksum (scapy recomputes it to compare)."""

    def runTest(self) -> None:
        solicitation = (Ether(src=DUT_MAC, dst="33:33:ff:00:00:02")
                        / IPv6(src=DUT_IP6, dst=solicited_node(TESTER_IP6), hlim=255)
                        / ICMPv6ND_NS(tgt=TESTER_IP6) / ICMPv6NDOptSrcLLAddr(lladdr=DUT_MAC))
        tu.send_packet(self, PORT_A, solicitation)
        self.sent += 1
        (frame,) = self.receive_frames(PORT_A, 1)
        expected = (Ether(src=TESTER_MAC, dst=DUT_MAC)
                    / IPv6(src=TESTER_IP6, dst=DUT_IP6, hlim=255)
                    / ICMPv6ND_NA(R=0, S=1, O=1, tgt=TESTER_IP6)
                    / ICMPv6NDOptDstLLAddr(lladdr=TESTER_MAC))
        self.assertEqual(frame, bytes(expected))
        self.assert_no_more_frames(PORT_A)
        self.settle()
        self.assert_control_only(1)


class HandsTheRestToTheController(NeighborTest):
    """A request for another address, the DUT's own reply, an NA and a duplicate
    address detection NS: none answered, each handed up with its port."""

    def runTest(self) -> None:
        frames = [
            Ether(src=DUT_MAC, dst="ff:ff:ff:ff:ff:ff")
            / ARP(op=1, hwsrc=DUT_MAC, psrc=DUT_IP, pdst="192.0.2.99"),
            Ether(src=DUT_MAC, dst=TESTER_MAC)
            / ARP(op=2, hwsrc=DUT_MAC, psrc=DUT_IP, hwdst=TESTER_MAC, pdst=TESTER_IP),
            Ether(src=DUT_MAC, dst=TESTER_MAC) / IPv6(src=DUT_IP6, dst=TESTER_IP6, hlim=255)
            / ICMPv6ND_NA(S=1, O=1, tgt=DUT_IP6) / ICMPv6NDOptDstLLAddr(lladdr=DUT_MAC),
            Ether(src=DUT_MAC, dst="33:33:ff:00:00:02")
            / IPv6(src="::", dst=solicited_node(TESTER_IP6), hlim=255)
            / ICMPv6ND_NS(tgt=TESTER_IP6),
        ]
        for frame in frames:
            tu.send_packet(self, PORT_B, frame)
            self.sent += 1
        self.settle()
        handed = []
        for _ in range(10):
            handed += self.tester.control_frames(timeout_s=0.5)
            if len(handed) >= len(frames):
                break
        self.assertEqual([port for port, _ in handed], [PORT_B] * len(frames))
        self.assertEqual([payload[:len(bytes(sent))] for (_, payload), sent
                          in zip(handed, frames, strict=True)],
                         [bytes(sent) for sent in frames])
        self.assert_no_more_frames(PORT_B)
        self.assert_control_only(len(frames))


class SendsControllerFrames(NeighborTest):
    def runTest(self) -> None:
        request = bytes(Ether(src=TESTER_MAC, dst="ff:ff:ff:ff:ff:ff")
                        / ARP(op=1, hwsrc=TESTER_MAC, psrc=TESTER_IP, pdst=DUT_IP))
        self.tester.send_frame(PORT_B, request)
        self.assertEqual(self.receive_frames(PORT_B, 1), [request])
        self.assert_no_more_frames(PORT_B)
        self.assert_no_more_frames(PORT_A)
