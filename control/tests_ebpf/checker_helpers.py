"""Waiting for the program and reading a stream's figures, shared by the tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from p4tester.dataplane.headers import TesterHeader
from p4tester.targets.ebpf.tester import EbpfTester

from .frames import send, stream_frame

SETTLE_TIMEOUT_S = 3.0


def settle(tester: EbpfTester, classified: int) -> None:
    """Waits until the program has classified `classified` frames in all."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    seen = -1
    while time.monotonic() < deadline:
        seen = sum(tester.rx_kinds())
        if seen >= classified:
            return
        time.sleep(0.02)
    raise AssertionError(f"the program classified {seen} of {classified} frames "
                         f"in {SETTLE_TIMEOUT_S} s")


def wait_until(condition: Callable[[], bool]) -> None:
    """Waits, bounded, for a figure the program has not necessarily counted yet."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {SETTLE_TIMEOUT_S} s")
        time.sleep(0.02)


def send_seqs(tester: EbpfTester, interface: str, stream_id: int, seqs: list[int],
              already: int = 0) -> None:
    send(interface, [bytes(stream_frame(TesterHeader(stream_id=stream_id, seq=seq)))
                     for seq in seqs])
    settle(tester, already + len(seqs))


@dataclass(frozen=True)
class Figures:
    received: int
    next_expected: int
    lost: int
    gap_events: int
    reordered: int
    duplicates: int


def figures(tester: EbpfTester, stream_id: int) -> Figures:
    state = tester.read_stream_registers(stream_id)
    received = tester.stream_counter("rx_stream", stream_id).packets
    assert state.rx_samples == received
    return Figures(received, state.rx_next_expected, state.rx_lost,
                   tester.stream_counter("rx_gap_events", stream_id).packets,
                   tester.stream_counter("rx_reordered", stream_id).packets,
                   tester.stream_counter("rx_duplicate", stream_id).packets)
