"""Classic pcap files (the format tcpdump, tshark and Wireshark all read) of
Ethernet frames as the switch handled them: without FCS, as a Linux capture has
them."""

from __future__ import annotations

import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Final

PCAP_MAGIC_US: Final = 0xA1B2C3D4
LINKTYPE_ETHERNET: Final = 1
SNAPLEN: Final = 65535


def write_pcap(path: Path, frames: Iterable[tuple[float, bytes]]) -> int:
    """(capture time in s since the epoch, frame) records; returns how many."""
    count = 0
    with path.open("wb") as out:
        out.write(struct.pack("<IHHiIII", PCAP_MAGIC_US, 2, 4, 0, 0, SNAPLEN,
                              LINKTYPE_ETHERNET))
        for when, frame in frames:
            seconds = int(when)
            micros = round((when - seconds) * 1_000_000)
            if micros == 1_000_000:
                seconds, micros = seconds + 1, 0
            out.write(struct.pack("<IIII", seconds, micros, len(frame), len(frame)))
            out.write(frame)
            count += 1
    return count
