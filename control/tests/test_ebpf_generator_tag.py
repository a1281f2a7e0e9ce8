"""The tag the eBPF generator's sender writes in front of a template."""

from __future__ import annotations

import pytest

from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header
from p4tester.targets.ebpf.generator_tag import GENERATOR_TAG_BYTES, TemplateError, tag_template


def test_the_tag_sits_after_the_mac_addresses() -> None:
    encapsulation = Encapsulation(ipv6=True)
    template = build_template(FrameSpec(stream_id=7, frame_size=84,
                                        encapsulation=encapsulation))
    tagged = tag_template(template, 7, offset_of_tester_header(encapsulation), tx_port=3)
    assert len(tagged) == len(template) + GENERATOR_TAG_BYTES
    assert tagged[:12] == template[:12]
    # EtherType IPv4, signature "PG", stream 7, 48 bytes to the tester header, port 3, IPv6.
    assert tagged[12:22].hex() == "0800" + "5047" + "0007" + "30" + "03" + "86dd"
    assert tagged[22:] == template[14:]


def test_a_vlan_and_mpls_template_carries_its_depth() -> None:
    encapsulation = Encapsulation(vlan_id=5, mpls_labels=(16, 17))
    template = build_template(FrameSpec(stream_id=1, frame_size=76,
                                        encapsulation=encapsulation))
    tagged = tag_template(template, 1, offset_of_tester_header(encapsulation), tx_port=255)
    # VLAN 4 + MPLS 8 + IPv4 20 + UDP 8 bytes after the Ethernet header; port 255;
    # EtherType VLAN.
    assert tagged[16:22].hex() == "0001" + "28" + "ff" + "8100"


def test_templates_the_generator_cannot_carry_are_refused() -> None:
    template = build_template(FrameSpec(stream_id=0))
    with pytest.raises(TemplateError, match="no tester header at byte 40"):
        tag_template(template, 0, 40, tx_port=1)
    deep = bytes(14 + 126) + template[42:]
    with pytest.raises(TemplateError, match="up to 124 bytes of headers"):
        tag_template(deep, 0, 14 + 126, tx_port=1)
    for port in (0, 256):
        with pytest.raises(TemplateError, match=f"tx port {port}: the eBPF generator "
                                                "numbers ports 1..255; renumber"):
            tag_template(template, 0, 42, tx_port=port)
