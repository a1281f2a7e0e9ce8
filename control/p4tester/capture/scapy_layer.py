"""A scapy layer for the tester header, to read captures in Python:

    from scapy.all import rdpcap
    from p4tester.capture.scapy_layer import find_tester_header
    for frame in rdpcap("stream0.pcap"):
        print(find_tester_header(frame).summary())   # stream, seq, tx_ts, epoch ...

The header follows the innermost UDP or TCP header wherever the tester finds it
(p4src/common/frame_parser.p4): after the tester's UDP port scapy dissects it by
itself; elsewhere find_tester_header() finds it by its signature.
"""

from __future__ import annotations

import scapy.contrib.gtp
import scapy.contrib.mpls
import scapy.layers.vxlan  # noqa: F401 (binds VxLAN to UDP 4789)
from scapy.fields import IntField, ShortField, X3BytesField, XByteField
from scapy.layers.inet import TCP, UDP
from scapy.packet import Packet, Raw, bind_layers

from p4tester.dataplane.constants import (
    EPOCH_SHIFT,
    TESTER_SIGNATURE,
    TESTER_UDP_DST_PORT,
)


class P4TesterHeader(Packet):
    name = "P4Tester"
    fields_desc = [  # noqa: RUF012 (scapy reads the class attribute)
        X3BytesField("signature", TESTER_SIGNATURE),
        XByteField("flags", 0),
        ShortField("stream_id", 0),
        IntField("seq", 0),
        IntField("tx_ts", 0),
        ShortField("dut_qdepth", 0),
        ShortField("dut_qdelay", 0),
    ]

    def mysummary(self) -> str:
        return self.sprintf(f"P4Tester stream %stream_id% seq %seq% tx_ts %tx_ts% "
                            f"epoch {int(self.flags) >> EPOCH_SHIFT}")


bind_layers(UDP, P4TesterHeader, dport=TESTER_UDP_DST_PORT)

_SIGNATURE = TESTER_SIGNATURE.to_bytes(3, "big")


def find_tester_header(frame: Packet) -> P4TesterHeader | None:
    """The frame's tester header: after the innermost UDP/TCP header, or None."""
    found = frame.getlayer(P4TesterHeader)
    if isinstance(found, P4TesterHeader):
        return found
    for layer_type in (UDP, TCP):
        layers = [layer for layer in frame.iterpayloads() if isinstance(layer, layer_type)]
        if layers:
            payload = bytes(layers[-1].payload)
            if payload.startswith(_SIGNATURE):
                return P4TesterHeader(payload)
    raw = frame.getlayer(Raw)
    if raw is not None and bytes(raw.load).startswith(_SIGNATURE):
        return P4TesterHeader(bytes(raw.load))
    return None
