"""dataplane.run_identity: a run's value is random, and never the previous run's."""

from __future__ import annotations

import random

from p4tester.dataplane.constants import RUN_VALUES
from p4tester.dataplane.run_identity import draw_run_value


def test_draw_avoids_the_values_taken() -> None:
    rng = random.Random(7)
    taken = set(range(RUN_VALUES)) - {42, 200}
    drawn = {draw_run_value(taken, rng) for _ in range(200)}
    assert drawn == {42, 200}


def test_draw_covers_every_free_value() -> None:
    rng = random.Random(11)
    drawn = {draw_run_value({5}, rng) for _ in range(5000)}
    assert drawn == set(range(RUN_VALUES)) - {5}


def test_every_value_taken_still_draws_one() -> None:
    """A switch whose expectations hold all 256 values (a run per stream, streams
    from many runs) leaves nothing to avoid: any value is as good."""
    value = draw_run_value(range(RUN_VALUES), random.Random(3))
    assert 0 <= value < RUN_VALUES
