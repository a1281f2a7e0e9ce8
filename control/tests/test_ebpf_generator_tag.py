"""Where the eBPF generator finds the tester header, and the tag it writes."""

from __future__ import annotations

import pytest
from scapy.contrib.mpls import MPLS
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.packet import Packet, Raw

from p4tester.dataplane.headers import TesterHeader
from p4tester.targets.ebpf.generator_tag import (
    GENERATOR_TAG_BYTES,
    TemplateError,
    find_tester_header,
    tag_template,
)

PAYLOAD = Raw(TesterHeader(stream_id=7).pack())


def frame(*layers: Packet) -> bytes:
    packet = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    for layer in layers:
        packet = packet / layer
    return bytes(packet / PAYLOAD)


@pytest.mark.parametrize(("layers", "offset"), [
    ((IP(), UDP()), 42),
    ((IPv6(), UDP()), 62),
    ((IP(), TCP()), 54),
    ((Dot1Q(vlan=5), IP(), UDP()), 46),
    ((Dot1AD(vlan=5), Dot1Q(vlan=6), IPv6(), UDP()), 70),
    ((MPLS(label=16, s=0), MPLS(label=17, s=1), IP(), UDP()), 50),
])
def test_the_find_tester_header_follows_the_headers(layers: tuple[Packet, ...],
                                                       offset: int) -> None:
    assert find_tester_header(frame(*layers)) == offset


def test_the_tag_sits_after_the_mac_addresses() -> None:
    template = frame(IPv6(), UDP())
    tagged = tag_template(template, 7)
    assert len(tagged) == len(template) + GENERATOR_TAG_BYTES
    assert tagged[:12] == template[:12]
    # EtherType IPv4, signature "PG", stream 7, 48 bytes to the tester header, 0, IPv6.
    assert tagged[12:22].hex() == "0800" + "5047" + "0007" + "30" + "00" + "86dd"
    assert tagged[22:] == template[14:]


def test_templates_without_a_tester_header_are_refused() -> None:
    with pytest.raises(TemplateError, match="no tester header at byte 42"):
        tag_template(bytes(Ether() / IP() / UDP() / Raw(bytes(18))), 0)
    with pytest.raises(TemplateError, match="IP protocol 47"):
        find_tester_header(bytes(Ether() / IP(proto=47) / Raw(bytes(30))))
    with pytest.raises(TemplateError, match="without options"):
        find_tester_header(bytes(Ether() / IP(ihl=6, options=b"\0\0\0\0") / UDP() / PAYLOAD))
    with pytest.raises(TemplateError, match="EtherType 0x0806"):
        find_tester_header(bytes(Ether(type=0x0806) / Raw(bytes(40))))
