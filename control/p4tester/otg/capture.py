"""Port capture on a lab: tcpdump of the frames that arrive at a tester port's
interface from the wire (tester port N is p4lt<N>, or the interface its topology
names: lab.ifaces), served as pcap with each frame's FCS put back (pcap.py).

A capture starts when asked (POST /control/state port.capture start), ends by
itself after MAX_CAPTURE_S, and stops when asked, when the config changes or when
the server exits; only the tcpdump processes started here are ever stopped.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

from p4tester.lab.ifaces import tester_iface

from .errors import internal, validation
from .pcap import with_fcs

START_S: Final = 10.0
STOP_S: Final = 10.0
MAX_CAPTURE_S: Final = 600  # tcpdump exits by itself after this (-G with -W 1)


def interface_exists(iface: str) -> bool:
    return Path("/sys/class/net", iface).exists()


class _Running:
    def __init__(self, process: subprocess.Popen[bytes], path: Path) -> None:
        self.process = process
        self.path = path


class PortCaptures:
    """One capture per tester port at most; the last stopped one is kept to read."""

    def __init__(self, interface: Callable[[int], str] = tester_iface) -> None:
        self._interface = interface
        self._lock = threading.Lock()
        # Made by the first capture, removed by close: a driver that never captures
        # leaves nothing behind.
        self._dir: Path | None = None
        self._running: dict[int, _Running] = {}

    def _directory(self) -> Path:
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="p4tester-otg-capture-"))
        return self._dir

    def start(self, port: int) -> None:
        tcpdump = shutil.which("tcpdump")
        iface = self._interface(port)
        if tcpdump is None:
            raise validation("port capture needs tcpdump on the server's host")
        if not interface_exists(iface):
            raise validation(f"tester port {port} has no interface {iface} on this host to "
                             "capture on (port capture works on labs)")
        with self._lock:
            if port in self._running:
                raise validation(f"tester port {port} is already capturing: stop it first")
            path = self._directory() / f"port{port}.pcap"
            path.unlink(missing_ok=True)
            process = subprocess.Popen(
                [tcpdump, "-i", iface, "-Q", "in", "-U", "--immediate-mode", "-B", "65536",
                 "-s", "0", "-G", str(MAX_CAPTURE_S), "-W", "1",
                 "-w", str(path)],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            self._running[port] = _Running(process, path)
        self._wait_listening(port, process)

    def _wait_listening(self, port: int, process: subprocess.Popen[bytes]) -> None:
        """tcpdump says 'listening on' once its socket is open; bounded."""
        stderr = process.stderr
        assert stderr is not None
        line: list[bytes] = []
        reader = threading.Thread(target=lambda: line.append(stderr.readline()), daemon=True)
        reader.start()
        reader.join(START_S)
        if not line or b"listening on" not in line[0]:
            self.stop(port)
            said = line[0].decode(errors="replace").strip() if line else "nothing"
            raise internal(f"capture on tester port {port} did not start (tcpdump said "
                           f"{said!r})")

    def stop(self, port: int) -> None:
        with self._lock:
            running = self._running.pop(port, None)
        if running is None:
            return
        process = running.process
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(STOP_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_S)
        _close(process.stderr)

    def capturing(self, port: int) -> bool:
        with self._lock:
            return port in self._running

    def read(self, port: int) -> bytes:
        if self.capturing(port):
            raise validation(f"tester port {port} is still capturing: stop the capture first")
        if self._dir is None or not (path := self._dir / f"port{port}.pcap").exists():
            raise validation(f"tester port {port} has no capture: start and stop one first")
        return with_fcs(path.read_bytes())

    def clear(self) -> None:
        for port in list(self._running):
            self.stop(port)
        if self._dir is not None:
            for path in self._dir.glob("port*.pcap"):
                path.unlink()

    def close(self) -> None:
        self.clear()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _close(stream: IO[bytes] | None) -> None:
    if stream is not None:
        stream.close()
