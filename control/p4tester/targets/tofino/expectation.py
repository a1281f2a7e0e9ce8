"""What each stream's frames must be in a trial, written into the Tofino program's
rx_expected table before the trial (p4src/common/rx_expectation.p4): the trial's
epoch and the IP version, both read from the template the stream sends, and the
dev port its frames come back on. Frames of the stream that differ are counted as
stale or mismatched, never as the stream's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p4tester.dataplane.constants import IP_VERSION_4, IP_VERSION_6, TESTER_FLAG_EPOCH_MASK
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import offset_of_tester_header
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient

ETHERTYPE_OFFSET = 12
ETHERTYPE_VLAN = 0x8100
ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
VLAN_TAG_BYTES = 4
VLAN_ID_MASK = 0x0FFF
FLAGS_OFFSET_IN_HEADER = 3  # after the 3-byte signature


@dataclass(frozen=True, slots=True)
class Expectation:
    """One stream's rx_expected entry."""

    epoch_flags: int
    rx_dev_port: int
    ip_version: int


def template_expectation(template: bytes, rx_dev_port: int) -> Expectation:
    """The epoch bits and IP version a template fixes, for frames arriving on rx_dev_port."""
    offset = ETHERTYPE_OFFSET
    ethertype = int.from_bytes(template[offset:offset + 2], "big")
    vlan_id = None
    if ethertype == ETHERTYPE_VLAN:
        vlan_id = int.from_bytes(template[offset + 2:offset + 4], "big") & VLAN_ID_MASK
        offset += VLAN_TAG_BYTES
        ethertype = int.from_bytes(template[offset:offset + 2], "big")
    if ethertype not in (ETHERTYPE_IPV4, ETHERTYPE_IPV6):
        raise ValueError(f"template ethertype {ethertype:#06x}: a stream sends IPv4 or IPv6")
    ipv6 = ethertype == ETHERTYPE_IPV6
    header = offset_of_tester_header(Encapsulation(ipv6=ipv6, vlan_id=vlan_id))
    flags = template[header + FLAGS_OFFSET_IN_HEADER]
    return Expectation(flags & TESTER_FLAG_EPOCH_MASK, rx_dev_port,
                       IP_VERSION_6 if ipv6 else IP_VERSION_4)


def write_expectations(client: BfrtClient, expectations: Mapping[int, Expectation],
                       written: set[int]) -> None:
    """Write each stream's entry (modify the ones in `written`, add the rest)."""
    for stream, exp in expectations.items():
        key = {names.RX_EXPECTED_KEY: stream}
        data = {names.RX_EXPECT_EPOCH: exp.epoch_flags, names.RX_EXPECT_PORT: exp.rx_dev_port,
                names.RX_EXPECT_IP_VERSION: exp.ip_version}
        if stream in written:
            client.modify_entry(names.RX_EXPECTED, key, data, action=names.RX_EXPECT)
        else:
            client.add_entry(names.RX_EXPECTED, key, data, action=names.RX_EXPECT)
            written.add(stream)
