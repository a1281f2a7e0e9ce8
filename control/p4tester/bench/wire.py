"""Raw access to a veth end for the benches: a receiver that records kernel
receive timestamps ("on the wire")."""

from __future__ import annotations

import socket
import struct
import threading
import time
from dataclasses import dataclass, field

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_TIMESPEC = struct.Struct("@qq")
HEAD_BYTES = 64  # enough for Ethernet/IPv4/UDP and the tester header


def open_raw(iface: str) -> socket.socket:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.bind((iface, 0))
    return sock


@dataclass
class Receiver:
    """Collects (kernel timestamp, frame length, first bytes) of frames arriving on a
    veth end."""

    iface: str
    stamps: list[float] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    heads: list[bytes] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._sock = open_raw(self.iface)
        self._sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self._sock.settimeout(0.1)
        # SO_RCVBUFFORCE (root) passes net.core.rmem_max: a plain SO_RCVBUF is capped
        # near 200 kB, which a busy capture thread can overrun at 10k frames/s.
        force = getattr(socket, "SO_RCVBUFFORCE", 33)
        self._sock.setsockopt(socket.SOL_SOCKET, force, 64 * 1024 * 1024)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        space = socket.CMSG_SPACE(_TIMESPEC.size)
        while not self._stop.is_set():
            try:
                data, ancillary, _flags, addr = self._sock.recvmsg(65535, space)
            except TimeoutError:
                continue
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            stamp = time.time()
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = _TIMESPEC.unpack(payload[: _TIMESPEC.size])
                    stamp = sec + nsec * 1e-9
            self.stamps.append(stamp)
            self.lengths.append(len(data))
            self.heads.append(data[:HEAD_BYTES])

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._sock.close()

    def count_between(self, start: float, end: float) -> int:
        return sum(1 for t in self.stamps if start <= t < end)
