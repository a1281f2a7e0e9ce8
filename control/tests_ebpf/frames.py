"""Frames the eBPF suite sends and reads, on raw sockets of its own interfaces."""

from __future__ import annotations

import select
import socket
import time

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from p4tester.dataplane.constants import TESTER_UDP_DST_PORT
from p4tester.dataplane.headers import TesterHeader

_ETH_P_ALL = 0x0003


def stream_frame(header: TesterHeader, frame_size: int = 64, ipv6: bool = False,
                 sport: int = 0xC020, dport: int = TESTER_UDP_DST_PORT,
                 udp_checksum: int | None = 0) -> Packet:
    """An IPv4 (or IPv6) UDP test frame of frame_size bytes with FCS (the wire has none)."""
    ip = (IPv6(src="2001:db8::1", dst="2001:db8::2") if ipv6
          else IP(src="192.0.2.1", dst="198.51.100.1", ttl=64))
    udp = UDP(sport=sport, dport=dport) if udp_checksum is None else UDP(
        sport=sport, dport=dport, chksum=udp_checksum)
    base = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / ip / udp
    payload = header.pack()
    padding = frame_size - 4 - len(base) - len(payload)
    return base / Raw(payload + bytes(max(padding, 0)))


def send(interface: str, frames: list[bytes]) -> None:
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as raw:
        raw.bind((interface, 0))
        for frame in frames:
            raw.send(frame)


SO_RCVBUFFORCE = 33  # linux/socket.h; not in Python's socket module


class Capture:
    """Frames arriving on an interface from now on (bounded by count and time)."""

    def __init__(self, interface: str, buffer_bytes: int = 0) -> None:
        self._socket = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(_ETH_P_ALL))
        if buffer_bytes:
            # Past net.core.rmem_max (the suite runs as root): a batch of frames read
            # after it was sent all wait in the socket.
            self._socket.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, buffer_bytes)
        self._socket.bind((interface, 0))

    def frames(self, count: int, timeout_s: float = 2.0) -> list[bytes]:
        received: list[bytes] = []
        deadline = time.monotonic() + timeout_s
        while len(received) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([self._socket], [], [], left)
            if ready:
                data, address = self._socket.recvfrom(65535)
                if address[2] != socket.PACKET_OUTGOING:
                    received.append(data)
        return received

    def close(self) -> None:
        self._socket.close()
