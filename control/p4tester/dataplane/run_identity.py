"""Which run a test frame belongs to: the run value in the tester header.

Each run (a CLI experiment, a resumed one, a capture, an OTG transmit) draws a
random run value; its trials count their epochs 0, 1, 2, ... within it. The
checker takes a frame as a stream's only with the run value and epoch of the
stream's current trial, so the frames a DUT still holds from an earlier run are
stale, never that run's successor's. The value is drawn apart from the ones the
switch holds from the run before (what a deep DUT queue may still deliver); 256
values leave a chance of 1 in 255 that a run two or more back shares this one's.
"""

from __future__ import annotations

import random
from collections.abc import Collection

from p4tester.dataplane.constants import RUN_VALUES


def draw_run_value(taken: Collection[int], rng: random.Random | None = None) -> int:
    """A random run value, none of `taken` (the previous run's) unless all are."""
    free = [value for value in range(RUN_VALUES) if value not in taken]
    return (rng or random.SystemRandom()).choice(free or range(RUN_VALUES))
