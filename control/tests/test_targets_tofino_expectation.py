"""The Tofino driver reads a stream's epoch and IP version from its template,
behind the tags, labels and L4 headers the Tofino parser walks."""

from __future__ import annotations

import pytest

from p4tester.dataplane.headers import epoch_flags
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template
from p4tester.targets.tofino.expectation import Expectation, template_expectation


@pytest.mark.parametrize(("encapsulation", "ip_version"), [
    (Encapsulation(), 4),
    (Encapsulation(ipv6=True), 6),
    (Encapsulation(vlan_id=10), 4),
    (Encapsulation(vlan_id=10, outer_vlan_id=100, ipv6=True), 6),
    (Encapsulation(mpls_labels=(16, 17, 18)), 4),
    (Encapsulation(vlan_id=5, mpls_labels=(16,), ipv6=True, l4="tcp"), 6),
    (Encapsulation(l4="tcp"), 4),
])
def test_epoch_and_ip_version_behind_the_headers(encapsulation: Encapsulation,
                                                 ip_version: int) -> None:
    template = build_template(FrameSpec(stream_id=0, frame_size=256, epoch=9,
                                        encapsulation=encapsulation))
    assert template_expectation(template, 140) == Expectation(epoch_flags(9), 140, ip_version)


def test_a_template_without_ip_is_refused() -> None:
    with pytest.raises(ValueError, match="ethertype 0x0806"):
        template_expectation(bytes(12) + b"\x08\x06" + bytes(50), 140)
