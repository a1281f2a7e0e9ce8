"""Which legs `make bench`'s capacity part runs, and how often (bench.capacity)."""

from __future__ import annotations

from p4tester.bench.capacity import DEFAULT_SET_UPS, RATIO_SIZE, SET_UPS, TABLE_REPETITIONS


def test_the_default_runs_each_ratio_side_and_the_measurement_builds_other_sizes() -> None:
    chosen = [s for s in SET_UPS if s.name in DEFAULT_SET_UPS]
    assert [(s.name, s.frame_sizes, s.ratio_side) for s in chosen] == [
        ("before", (RATIO_SIZE,), True),
        ("measurement", (RATIO_SIZE,), True),
        ("measurement", (512, 1518), False),
    ]
    # Two legs of one set-up keep their calibrations apart: the data-plane part reads
    # the 64-B one from calibrate-measurement.
    assert [s.directory for s in chosen] == [
        "calibrate-before", "calibrate-measurement", "calibrate-measurement-sizes"]
    assert TABLE_REPETITIONS == 3

