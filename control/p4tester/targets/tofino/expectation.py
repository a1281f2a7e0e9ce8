"""What each stream's frames must be in a trial, written into the Tofino program's
rx_expected table before the trial (p4src/common/rx_expectation.p4): the trial's
run value, epoch and IP version, all read from the template the stream sends, and the
dev port its frames come back on. Frames of the stream that differ are counted as
stale or mismatched, never as the stream's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p4tester.dataplane.constants import (
    IP_VERSION_4,
    IP_VERSION_6,
    TESTER_FLAG_EPOCH_MASK,
    TESTER_SIGNATURE,
)
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient

ETHERTYPE_OFFSET = 12
ETHERTYPE_VLAN = 0x8100
ETHERTYPE_QINQ = 0x88A8
ETHERTYPE_MPLS = 0x8847
MPLS_LABEL_BYTES = 4
MPLS_BOTTOM_OF_STACK = 0x01  # in the label's third byte
ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
VLAN_TAG_BYTES = 4
RUN_OFFSET_IN_HEADER = 2  # after the 2-byte signature
FLAGS_OFFSET_IN_HEADER = 3


@dataclass(frozen=True, slots=True)
class Expectation:
    """One stream's rx_expected entry."""

    epoch_flags: int
    rx_dev_port: int
    ip_version: int
    run: int = 0


def template_expectation(template: bytes, rx_dev_port: int) -> Expectation:
    """The run value, epoch bits and IP version a template fixes, for frames
    arriving on rx_dev_port.

    The template is walked as the switch's parser walks it (p4src/common/frame_parser.p4,
    without the tunnels Tofino 1 leaves out): VLAN and QinQ tags, MPLS labels, then IPv4
    or IPv6; the tester header is the one after the L4 header, found by its signature."""
    offset = ETHERTYPE_OFFSET
    ethertype = int.from_bytes(template[offset:offset + 2], "big")
    while ethertype in (ETHERTYPE_VLAN, ETHERTYPE_QINQ):
        offset += VLAN_TAG_BYTES
        ethertype = int.from_bytes(template[offset:offset + 2], "big")
    l3 = offset + 2
    if ethertype == ETHERTYPE_MPLS:
        while not template[l3 + 2] & MPLS_BOTTOM_OF_STACK:
            l3 += MPLS_LABEL_BYTES
        l3 += MPLS_LABEL_BYTES
        version = template[l3] >> 4
        ethertype = {4: ETHERTYPE_IPV4, 6: ETHERTYPE_IPV6}.get(version, 0)
    if ethertype not in (ETHERTYPE_IPV4, ETHERTYPE_IPV6):
        raise ValueError(f"template ethertype {ethertype:#06x}: a stream sends IPv4 or IPv6")
    header = template.find(TESTER_SIGNATURE.to_bytes(2, "big"), l3)
    if header < 0:
        raise ValueError("template has no tester header")
    flags = template[header + FLAGS_OFFSET_IN_HEADER]
    return Expectation(flags & TESTER_FLAG_EPOCH_MASK, rx_dev_port,
                       IP_VERSION_6 if ethertype == ETHERTYPE_IPV6 else IP_VERSION_4,
                       run=template[header + RUN_OFFSET_IN_HEADER])


def write_expectations(client: BfrtClient, expectations: Mapping[int, Expectation],
                       written: set[int]) -> None:
    """Write each stream's entry (modify the ones in `written`, add the rest)."""
    for stream, exp in expectations.items():
        key = {names.RX_EXPECTED_KEY: stream}
        data = {names.RX_EXPECT_RUN: exp.run, names.RX_EXPECT_EPOCH: exp.epoch_flags,
                names.RX_EXPECT_PORT: exp.rx_dev_port,
                names.RX_EXPECT_IP_VERSION: exp.ip_version}
        if stream in written:
            client.modify_entry(names.RX_EXPECTED, key, data, action=names.RX_EXPECT)
        else:
            client.add_entry(names.RX_EXPECTED, key, data, action=names.RX_EXPECT)
            written.add(stream)
