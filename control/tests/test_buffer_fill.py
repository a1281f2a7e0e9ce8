"""The trial length suggested from how fast a DUT's buffer filled (issue 21.5)."""

from __future__ import annotations

import pytest

from p4tester.results.buffer_fill import BufferFill, buffer_fill


def test_the_deep_queue_lab() -> None:
    # tests_e2e/test_dut_buffering.py: a 100-frames/s DUT queue offered 150 frames/s for
    # 2 s, latency rising 785 ms. Growth 0.785 / 1.8 s per s; the estimate errs high (the
    # tenths lie at most 0.9 of the trial apart), never suggesting too short a trial.
    fill = buffer_fill(785_000.0, 2.0, 150.0)
    growth = 0.785 / 1.8
    assert fill.sustained_pps == pytest.approx(150.0 / (1 + growth))  # 104.4
    assert fill.excess_pps == pytest.approx(150.0 - 150.0 / (1 + growth))  # 45.6
    assert fill.fill_s == pytest.approx(1000 / fill.excess_pps)  # 21.95
    assert fill.suggested_trial_s == 22.0
    assert fill.describe() == ("the DUT forwarded about 104 frames/s while its queue grew by "
                               "46 frames/s, which fills a 1000-frame buffer in 22.0 s")


def test_suggestions_are_whole_seconds_between_twice_the_trial_and_60() -> None:
    # make demo: 12 ms in 2 s at 3045 frames/s: 20 frames/s into the queue, 49.6 s.
    assert buffer_fill(12_000.0, 2.0, 3045.0).suggested_trial_s == 50.0
    # Filling fast: never shorter than twice the trial that passed.
    assert buffer_fill(900_000.0, 2.0, 10_000.0).suggested_trial_s == 4.0
    # Filling slowly: RFC 2544's 60 s.
    assert buffer_fill(1_500.0, 2.0, 3000.0).suggested_trial_s == 60.0


def test_nonsense_is_refused() -> None:
    with pytest.raises(ValueError, match=r"rise 0\.0 us, trial 2\.0 s and load 150\.0 "):
        buffer_fill(0.0, 2.0, 150.0)
    assert isinstance(buffer_fill(1.0, 1.0, 1.0), BufferFill)
