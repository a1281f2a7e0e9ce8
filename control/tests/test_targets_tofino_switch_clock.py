"""The generator's 32-bit ticks of 256 ns as the trial loop's switch clock: widened past
their 2^40-ns wrap, then microseconds wrapping at 2^32 (tester.trial_course)."""

from __future__ import annotations

import pytest

from p4tester.targets.tofino.switch_clock import TickWidener, ticks_to_switch_time
from p4tester.tester.trial_course import StreamSample, switch_seconds

WRAP = 1 << 32


def test_ticks_become_whole_microseconds() -> None:
    assert ticks_to_switch_time(0) == 0
    assert ticks_to_switch_time(3) == 0  # 768 ns
    assert ticks_to_switch_time(4) == 1  # 1024 ns
    assert ticks_to_switch_time(3_906_250) == 1_000_000  # exactly 1 s


def test_microseconds_wrap_where_the_trial_loop_expects() -> None:
    # 2^32 us = 16,777,216,000 ticks of 256 ns: the trial loop's clock wraps to 0.
    assert ticks_to_switch_time(16_777_216_000) == 0
    before = StreamSample(ticks_to_switch_time(16_777_216_000 - 3_906_250), 0)
    after = StreamSample(ticks_to_switch_time(16_777_216_000 + 3_906_250), 0)
    assert (before.switch_time, after.switch_time) == (WRAP - 1_000_000, 1_000_000)
    assert switch_seconds(before, after) == 2.0


def test_a_cell_is_followed_across_the_wrap() -> None:
    clock = TickWidener()
    assert clock.widen("a", WRAP - 10) == WRAP - 10
    assert clock.widen("a", 5) == WRAP + 5  # 15 ticks on
    assert clock.widen("a", 5) == WRAP + 5  # no packet since: the same tick
    assert clock.widen("a", WRAP - 1) == 2 * WRAP - 1  # on, never back


def test_a_cell_read_first_joins_the_trials_clock() -> None:
    clock = TickWidener()
    clock.widen("a", WRAP - 10)
    clock.widen("a", 100)  # after the wrap: WRAP + 100
    # Another cell's first tick, 20 before the latest and before the wrap.
    assert clock.widen("b", WRAP - 20) == WRAP - 20
    # And one after it.
    assert clock.widen("c", 300) == WRAP + 300
    clock.reset()
    assert clock.widen("b", 7) == 7


def test_a_tick_wider_than_the_register_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^generator tick 4294967296 does not fit 32 bits$"):
        TickWidener().widen("a", WRAP)


def test_ticks_before_the_first_era_still_give_the_clock() -> None:
    clock = TickWidener()
    clock.widen("a", 10)
    # Cell b's first tick is from just before the wrap a's first was after: negative.
    assert clock.widen("b", WRAP - 6) == -6
    assert ticks_to_switch_time(-6) == WRAP - 2  # -1536 ns: 2 us before 0, wrapped
