"""The Tofino driver's ARP/ND entries, written into a fake switch built from the
compiler's bfrt.json (names, key and parameter widths checked by the fake)."""

from __future__ import annotations

from tofino_fake import FakeBfrt

from p4tester.targets.tofino import names
from p4tester.targets.tofino.neighbors import write_neighbor_addresses


def test_one_entry_per_address_with_the_ports_mac() -> None:
    fake = FakeBfrt()
    write_neighbor_addresses(fake, 140, "02:00:00:00:aa:01", ["192.0.2.2", "192.0.2.3"],
                             ["2001:db8:1::2"])
    arp = fake.entries(names.ARP_REPLY)
    assert [(dict(e.key), dict(e.data), e.action) for e in arp] == [
        ({"port": 140, "target_ip": 0xC0000202}, {"mac": 0x02000000AA01}, names.ANSWER_ARP),
        ({"port": 140, "target_ip": 0xC0000203}, {"mac": 0x02000000AA01}, names.ANSWER_ARP),
    ]
    nd = fake.entries(names.ND_REPLY)
    assert [(dict(e.key), dict(e.data), e.action) for e in nd] == [
        ({"port": 140, "target_ip6": 0x20010DB8000100000000000000000002},
         {"mac": 0x02000000AA01}, names.ANSWER_ND),
    ]
