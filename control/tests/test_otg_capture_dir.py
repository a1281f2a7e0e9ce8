"""The OTG server's port captures keep their files in a directory of their own, made
by the first capture and removed by close: a driver that never captures (every unit
test, most runs) leaves nothing in /tmp."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from p4tester.otg.capture import PortCaptures
from p4tester.otg.errors import OtgError


def _ours() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("p4tester-otg-capture-*"))


def test_no_capture_no_directory() -> None:
    before = _ours()
    captures = PortCaptures(lambda port: f"no-such-iface-{port}")
    with pytest.raises(OtgError, match="tester port 3 has no capture: start and stop one first"):
        captures.read(3)
    captures.clear()
    captures.close()
    assert _ours() == before


def test_close_removes_what_a_capture_made() -> None:
    before = _ours()
    captures = PortCaptures(lambda port: f"no-such-iface-{port}")
    made = captures._directory()  # what start() makes before tcpdump runs
    (made / "port1.pcap").write_bytes(b"")
    assert _ours() == before | {made}
    captures.close()
    assert _ours() == before
