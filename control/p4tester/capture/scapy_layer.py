"""A scapy layer for the tester header, to read captures in Python:

    from scapy.all import rdpcap
    from p4tester.capture.scapy_layer import find_tester_header
    for frame in rdpcap("stream0.pcap"):
        print(find_tester_header(frame).summary())   # stream, seq, tx_ts, epoch ...

find_tester_header() finds the header by its signature wherever the tester puts it
(after the innermost UDP or TCP header, behind any encapsulation). Importing this
module changes nothing in scapy; bind_to_tester_port() makes scapy dissect the
header by itself after the tester's default UDP port.
"""

from __future__ import annotations

from scapy.fields import ByteField, IntField, ShortField, XByteField, XShortField
from scapy.layers.inet import UDP
from scapy.packet import Packet, bind_layers

from p4tester.dataplane.constants import (
    EPOCH_SHIFT,
    TESTER_HEADER_BYTES,
    TESTER_SIGNATURE,
    TESTER_UDP_DST_PORT,
)

ETHERNET_BYTES = 14


class P4TesterHeader(Packet):
    name = "P4Tester"
    fields_desc = [  # noqa: RUF012 (scapy reads the class attribute)
        XShortField("signature", TESTER_SIGNATURE),
        ByteField("run", 0),
        XByteField("flags", 0),
        ShortField("stream_id", 0),
        IntField("seq", 0),
        IntField("tx_ts", 0),
        ShortField("dut_qdepth", 0),
        ShortField("dut_qdelay", 0),
    ]

    def mysummary(self) -> str:
        return self.sprintf(f"P4Tester stream %stream_id% seq %seq% tx_ts %tx_ts% "
                            f"run %run% epoch {int(self.flags) >> EPOCH_SHIFT}")


def bind_to_tester_port() -> None:
    """Let scapy dissect the header after UDP to the tester's default port."""
    bind_layers(UDP, P4TesterHeader, dport=TESTER_UDP_DST_PORT)


_SIGNATURE = TESTER_SIGNATURE.to_bytes(2, "big")


def find_tester_header(frame: Packet | bytes) -> P4TesterHeader | None:
    """The frame's tester header, found by its signature after the Ethernet header."""
    data = bytes(frame)
    at = data.find(_SIGNATURE, ETHERNET_BYTES)
    if at < 0 or len(data) < at + TESTER_HEADER_BYTES:
        return None
    return P4TesterHeader(data[at:at + TESTER_HEADER_BYTES])
