"""The wait before a trial until the DUT has drained (results.settle, issue 42).

Frames of earlier trials and runs (the tester's own frames, of any epoch: the
checker's stream, stale and mismatched kinds) must have stopped arriving for a quiet
time before a trial starts. The time since the previous trial's closing edge counts
when nothing arrived since; the wait reads the counters every SETTLE_READ_S and gives
up at a bound, and the trial then says the DUT was not drained.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from p4tester.results.settle import SettleRecord

# How often the wait reads what arrived: a DUT draining at 10 frames/s or faster
# shows a frame in every read.
SETTLE_READ_S: Final = 0.1
# After a trial the DUT had not drained for, the next one waits this much longer.
QUIET_GROWTH: Final = 2.0


def wait_for_drain(arrived: Callable[[], int], clock: Callable[[], float],
                   sleep: Callable[[float], None], quiet_s: float, max_s: float,
                   quiet_since: float | None = None) -> SettleRecord:
    """Waits until `arrived()` (frames of earlier traffic since a baseline, rising)
    stays put for `quiet_s`, at most `max_s`. `quiet_since`: when the baseline was read
    (the clock's time), if nothing is known to have arrived since; None: unknown, the
    quiet time starts now."""
    start = clock()
    seen = arrived()
    now = clock()
    if quiet_since is None or seen:
        quiet_since = now
    while True:
        quiet_for, waited = now - quiet_since, now - start
        if quiet_for >= quiet_s:
            return SettleRecord(waited, seen, quiet_s)
        if waited >= max_s:
            return SettleRecord(waited, seen, quiet_s, drained=False)
        sleep(min(SETTLE_READ_S, quiet_s - quiet_for, max_s - waited))
        count, now = arrived(), clock()
        if count > seen:
            seen, quiet_since = count, now


def next_quiet_s(quiet_s: float, configured_s: float, max_s: float, drained: bool) -> float:
    """The quiet time before the next trial: longer after a trial the DUT had not
    drained for (up to the bound), the configured one after one it had."""
    if drained:
        return configured_s
    return min(max(quiet_s, configured_s, SETTLE_READ_S) * QUIET_GROWTH, max_s)
