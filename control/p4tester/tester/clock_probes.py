"""Probe frames both ways between two testers, in the data plane, to measure their
clocks' offset (tester.clock_offset) at a trial's start and end.

A probe is a short burst of frames of a stream's own kind (its addresses, so the DUT
forwards it as it forwards the stream) under a stream id the profile does not use.
The sender adds PROBE_BIAS to its stamps, so the receiver's latency register holds
delay + offset + 2^31 modulo 2^32: never negative whichever clock is ahead, and its
minimum is the shortest delay's. A round is a burst each way; its two minima are one
exchange. The estimate keeps the rounds with the shortest round trips.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from p4tester.config.profile import StreamConfig
from p4tester.results.clocks import PtpState
from p4tester.tester.clock_offset import (
    STAMP_RANGE,
    OffsetEstimate,
    ProbeExchange,
    estimate_offset,
)

# Added to a probe's TX stamps (mod 2^32): half the stamps' range, so a delay plus an
# offset of up to +-2^31 ns (2.1 s) reads as a positive latency.
PROBE_BIAS: Final = 1 << 31
# Rounds at each end of a trial, frames each way per round, and their rate: the minimum
# of 16 frames is a frame that met an empty queue on an idle path; 7 rounds keep 2.
PROBE_ROUNDS: Final = 7
PROBE_FRAMES: Final = 16
PROBE_PPS: Final = 2000.0
# How long a burst's frames may take to arrive before the round is lost.
PROBE_WAIT_S: Final = 1.0
PROBE_POLL_S: Final = 0.01


class ProbeUnanswered(RuntimeError):
    """No probe arrived in a round each way: the offset cannot be measured."""


class ProbeSide(Protocol):
    """One tester's side of the probes (a target's)."""

    @property
    def name(self) -> str: ...

    def expect_probe(self, probe: StreamConfig) -> None:
        """Count the probe's frames from here on, its figures cleared."""
        ...

    def send_probe(self, probe: StreamConfig, frames: int, rate_pps: float,
                   correction_ns: int) -> None:
        """Send `frames` of the probe out of its TX port, stamps plus correction_ns."""
        ...

    def probe_minimum(self, probe_id: int) -> tuple[int, int]:
        """(frames received, the least latency register value) of the probe."""
        ...

    def end_probe(self, probe_id: int) -> None:
        """Neither send nor count the probe any more."""
        ...

    def ptp_state(self) -> PtpState:
        """What PTP says on the tester's host now (tester.ptp_state)."""
        ...


@dataclass(frozen=True, slots=True)
class ProbePath:
    """Two testers that exchange streams, and a stream each way whose frames the
    probes copy (so the DUT forwards them as it does those)."""

    a: ProbeSide
    b: ProbeSide
    forward: StreamConfig  # a -> b, its id already the probe's
    reverse: StreamConfig  # b -> a


def signed_delay(latency_register: int) -> int:
    """The delay plus offset (ns, signed) a probe's latency register holds."""
    value = (latency_register + PROBE_BIAS) % (1 << 32)
    return value - (1 << 32) if value >= PROBE_BIAS else value


def consistent(forward_ns: int, reverse_ns: int) -> int:
    """The forward delay + offset, read modulo 2^32 as the reverse one was: where the
    offset is near +-2^31 ns, one of them may have wrapped and the other not. Their sum
    is the round trip, small and positive, whatever the offset: the forward reading
    that makes it so."""
    return (forward_ns + reverse_ns) % STAMP_RANGE - reverse_ns


@dataclass(frozen=True, slots=True)
class Burst:
    """What one burst each way showed: frames that arrived, and the least delay +
    offset (ns; None when none arrived)."""

    frames: int
    least_ns: int | None


def _one_way(sender: ProbeSide, receiver: ProbeSide, probe: StreamConfig,
             sleep: Callable[[float], None], clock: Callable[[], float]) -> Burst:
    receiver.expect_probe(probe)
    try:
        sender.send_probe(probe, PROBE_FRAMES, PROBE_PPS, PROBE_BIAS)
        deadline = clock() + PROBE_WAIT_S
        frames, least = receiver.probe_minimum(probe.id)
        while frames < PROBE_FRAMES and clock() < deadline:
            sleep(PROBE_POLL_S)
            frames, least = receiver.probe_minimum(probe.id)
        return Burst(frames, signed_delay(least) if frames else None)
    finally:
        sender.end_probe(probe.id)
        receiver.end_probe(probe.id)


def measure_offset(path: ProbePath, asymmetry_ns: float,
                   sleep: Callable[[float], None] = time.sleep,
                   clock: Callable[[], float] = time.monotonic,
                   rounds: int = PROBE_ROUNDS,
                   received: Callable[[str, int], None] = lambda tester, frames: None
                   ) -> OffsetEstimate:
    """B's clock minus A's, from `rounds` bursts each way (ProbeUnanswered when no
    round had frames both ways). `received(tester, frames)` is told each burst's
    frames, which the tester's counters show as its streams' (tester.tester_group
    keeps them out of the trials')."""
    exchanges = []
    for _ in range(rounds):
        at_ns = round(clock() * 1e9)
        there = _one_way(path.a, path.b, path.forward, sleep, clock)
        received(path.b.name, there.frames)
        back = _one_way(path.b, path.a, path.reverse, sleep, clock)
        received(path.a.name, back.frames)
        forward, reverse = there.least_ns, back.least_ns
        if forward is None or reverse is None:
            continue
        forward = consistent(forward, reverse)
        exchanges.append(ProbeExchange(a_sent=at_ns, b_received=at_ns + forward,
                                       b_sent=at_ns, a_received=at_ns + reverse))
    if not exchanges:
        raise ProbeUnanswered(
            f"no probe frames came through both ways between testers {path.a.name} and "
            f"{path.b.name} in {rounds} rounds (streams {path.forward.tx_port} -> "
            f"{path.forward.rx_port} and {path.reverse.tx_port} -> {path.reverse.rx_port}): "
            "the path is down, or the DUT drops those frames")
    return estimate_offset(exchanges, asymmetry_ns)
