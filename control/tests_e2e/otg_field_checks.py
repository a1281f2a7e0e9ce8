"""What the OTG pattern tests send and check (tests_e2e/test_otg_snappi_patterns.py on
BMv2, tests_ebpf/test_otg_on_ebpf.py on eBPF): a flow whose IPv4 source steps over
256 addresses and whose TCP destination port is drawn, and the check of a capture of
it frame by frame."""

from __future__ import annotations

import ipaddress
from pathlib import Path

from scapy.layers.inet import IP, TCP
from scapy.layers.l2 import Ether
from scapy.packet import Packet
from scapy.utils import rdpcap

from p4tester.dataplane.headers import TesterHeader
from p4tester.streams.field_patterns import draw, field_seed

SRC_MAC = "02:00:00:00:0c:01"
FIRST_SRC = "10.1.0.0"
ADDRESSES = 256
PORT_MIN, PORT_MAX, SEED, DRAWS = 1000, 1999, 7, 50


def expected_fields(seq: int) -> tuple[str, int]:
    """Frame `seq`'s source address (the increment) and destination port (the OTG
    random: COUNT draws of CRC-32 on the seed and the draw's index, again and again)."""
    source = ipaddress.IPv4Address(int(ipaddress.IPv4Address(FIRST_SRC)) + seq % ADDRESSES)
    port = PORT_MIN + draw(field_seed(SEED, "dst_port"), seq % DRAWS) % (PORT_MAX - PORT_MIN + 1)
    return str(source), port


def checked_frames(pcap: Path) -> list[tuple[int, str, int]]:
    """(seq, source address, destination port) of the flow's frames in the capture,
    each checked: its IPv4 and TCP checksums are what scapy recomputes."""
    found = []
    for frame in rdpcap(str(pcap)):
        if not frame.haslayer(TCP) or frame[Ether].src != SRC_MAC:
            continue
        rebuilt: Packet = Ether(bytes(frame))
        del rebuilt[IP].chksum
        del rebuilt[TCP].chksum
        rebuilt = Ether(bytes(rebuilt))
        assert (rebuilt[IP].chksum, rebuilt[TCP].chksum) == (frame[IP].chksum,
                                                             frame[TCP].chksum)
        header = TesterHeader.unpack(bytes(frame[TCP].payload))
        found.append((header.seq, frame[IP].src, int(frame[TCP].dport)))
    return found


def assert_frames_as_patterned(pcap: Path, count: int) -> None:
    frames = checked_frames(pcap)
    assert sorted(seq for seq, _, _ in frames) == list(range(count))
    assert all((source, port) == expected_fields(seq) for seq, source, port in frames), \
        [f for f in frames if f[1:] != expected_fields(f[0])][:5]
    # The flows really do vary: every address once per 256 frames, and at most DRAWS
    # distinct ports, all in range.
    assert len({source for _, source, _ in frames}) == min(count, ADDRESSES)
    ports = {port for _, _, port in frames}
    assert 1 < len(ports) <= DRAWS and all(PORT_MIN <= p <= PORT_MAX for p in ports)
