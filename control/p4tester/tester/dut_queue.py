"""A lab DUT's queue that overflowed below its configured rate (issue 41).

A lab DUT paced by a queue rate (a BMv2 DUT's `queue_rate_pps`) drains its queue at
that rate while it gets the CPU. Offered less than that rate, evenly, its queue never
fills: a frame it dropped in its queue then says it did not drain at its rate, because
the host it shares starved it (seen: an eBPF tester's NDR search over a BMv2 DUT of
6000 frames/s ended at 5701 on a busy host, a trial below the rate having lost frames
in the DUT's queue). Such a trial is as little the DUT's result as one whose
interfaces lost frames: dut-limited.

Only a trial at constant rates is judged so (a shaped stream's mean says nothing of
its steps), and only a DUT that drops nothing by design (no impairments) states the rate
(DutCounterSource.steady_rate_pps); a load above STEADY_SHARE of it is left alone: a
DUT's pacing and a tester's allowed bursts may fill a queue there. Below it, filling
a queue of 64 frames at 3000 frames/s takes the DUT falling 21 ms behind.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from p4tester.results.checks import SelfCheck
from p4tester.tester.selfcheck import ProgramPortCounts, counted_between

STEADY_SHARE: Final = 0.99


def queue_drops(before: ProgramPortCounts, after: ProgramPortCounts) -> int:
    """Frames the DUT program took in and did not send between two reads (after the
    trial's drain: what its queue dropped)."""
    return counted_between(before.rx, after.rx) - counted_between(before.tx, after.tx)


def starved_queue(dut_check: SelfCheck, dropped: int, offered_pps: float,
                  steady_rate_pps: float | None) -> SelfCheck:
    """`dut_check`, unvouched when the DUT dropped frames in its queue at a load below
    STEADY_SHARE of its slowest queue rate."""
    if (steady_rate_pps is None or dropped <= 0
            or offered_pps > STEADY_SHARE * steady_rate_pps):
        return dut_check
    why = (f"the DUT dropped {dropped} frames in its queue at {offered_pps:.0f} frames/s, "
           f"below {STEADY_SHARE:.0%} of its slowest queue rate ({steady_rate_pps:g} "
           "frames/s): it did not drain at its configured rate (the host starved it)")
    return replace(dut_check, unvouched="; ".join(p for p in (dut_check.unvouched, why) if p))
