"""RFC 2544 26.4 back-to-back frames and the RFC 9004 buffer-time correction, on a DUT
with a known buffer."""

from __future__ import annotations

import re

import pytest

from p4tester.experiments.back_to_back import (
    BackToBackConfig,
    corrected_buffer_time_s,
    run_back_to_back,
)
from p4tester.experiments.recording import Recorder
from p4tester.experiments.simulated_runner import CrashingRunner, SimulatedDut, SimulatedRunner
from p4tester.streams.rates import line_rate_pps

TEN_G = 10e9
# The default buffer (3276800 B) holds 6400 frames of 512 B at a 100 % threshold. The
# DUT forwards 75 % of line rate, so a line-rate burst of B frames leaves B / 4 queued:
# the longest loss-free burst is 4 x 6400 = 25600 frames.
SLOW_DUT = SimulatedDut(capacity_by_size=lambda size: 0.75)
LINE_PPS_512 = line_rate_pps(TEN_G, 512)  # 2349624.06 frames/s


def test_finds_the_burst_exactly_and_the_rfc_9004_buffer() -> None:
    config = BackToBackConfig(512, TEN_G, throughput_fraction=0.75, repetitions=3)
    recorder = Recorder(SimulatedRunner(SLOW_DUT))
    result = run_back_to_back(config, recorder)
    assert result.bursts == (25600, 25600, 25600)
    assert (result.average_frames, result.min_frames, result.max_frames) == (25600, 25600, 25600)
    assert result.stdev_frames == 0.0
    assert not result.limited_by_max_burst and not result.buffer_not_exercised
    assert result.line_rate_pps == pytest.approx(LINE_PPS_512, rel=1e-15)
    assert result.throughput_pps == pytest.approx(0.75 * LINE_PPS_512, rel=1e-15)
    # Implied: 25600 frames / 2349624.06 frames/s; 512-B frames take 4256 bit times.
    assert result.implied_buffer_time_s == pytest.approx(25600 * 4256 / TEN_G, rel=1e-12)
    assert result.implied_buffer_time_s == pytest.approx(0.01089536, rel=1e-12)
    # Corrected: a quarter of it (the DUT sent 3/4 of the burst on while it came in).
    assert result.corrected_buffer_time_s == pytest.approx(0.00272384, rel=1e-12)
    assert result.corrected_buffer_frames == 6400.0  # the simulated buffer, exactly
    assert result.corrected_buffer_time_s * LINE_PPS_512 == pytest.approx(6400.0, rel=1e-12)
    assert result.trial_count == recorder.ran_count


def test_bursts_are_line_rate_frame_counts_labelled_per_repetition() -> None:
    config = BackToBackConfig(512, TEN_G, throughput_fraction=0.75, repetitions=2)
    recorder = Recorder(SimulatedRunner(SLOW_DUT))
    run_back_to_back(config, recorder)
    trials = recorder.trials
    assert all(t.offered_fraction == 1.0 and t.duration_s == 2.0 for t in trials)
    labels = [dict(t.labels) for t in trials]
    assert all(
        int(label["burst_frames"]) == t.tx_frames for label, t in zip(labels, trials, strict=True)
    )
    # The first burst of a repetition is the longest allowed: 2 s of line rate.
    assert trials[0].tx_frames == config.burst_limit == int(LINE_PPS_512 * 2.0) == 4699248
    per_rep = [sum(1 for label in labels if label["repetition"] == str(r)) for r in (0, 1)]
    assert per_rep[0] == per_rep[1] == len(trials) // 2
    # 1 trial at the limit, then halving 0..4699248 down to 1 frame (log2 = 22.2): 22.
    assert per_rep[0] == 23


def test_buffer_threshold_halves_the_burst_and_two_ports_measure_the_buffer() -> None:
    half = SimulatedRunner(SLOW_DUT, buffer_pct=50.0)
    config = BackToBackConfig(512, TEN_G, throughput_fraction=0.75, repetitions=1)
    assert run_back_to_back(config, Recorder(half)).bursts == (12800,)
    # Seed 004: two ports at line rate into one egress. It drains one port's worth, so
    # each port's longest burst is the buffer itself (6400 frames of 512 B, 3200 of 1024).
    fan_in = SimulatedDut(fan_in=2)
    for size, frames in ((512, 6400), (1024, 3200)):
        config = BackToBackConfig(size, TEN_G, throughput_fraction=0.5, repetitions=1)
        assert run_back_to_back(config, Recorder(SimulatedRunner(fan_in))).bursts == (frames,)


def test_a_buffer_that_never_fills_is_flagged() -> None:
    config = BackToBackConfig(
        64, TEN_G, throughput_fraction=1.0, repetitions=2, max_burst_frames=1000
    )
    recorder = Recorder(SimulatedRunner(SimulatedDut()))
    result = run_back_to_back(config, recorder)
    assert result.bursts == (1000, 1000)
    assert result.limited_by_max_burst and result.buffer_not_exercised
    assert result.corrected_buffer_time_s == 0.0 and result.corrected_buffer_frames == 0.0
    assert recorder.ran_count == 2  # one burst at the limit per repetition


def test_resolution_stops_the_search_early() -> None:
    config = BackToBackConfig(512, TEN_G, 0.75, repetitions=1, resolution_frames=1000)
    recorder = Recorder(SimulatedRunner(SLOW_DUT))
    (burst,) = run_back_to_back(config, recorder).bursts
    assert 25600 - 1000 < burst <= 25600
    assert recorder.ran_count < 24


def test_a_dying_switch_mid_search_is_repeated() -> None:
    runner = CrashingRunner(SimulatedRunner(SLOW_DUT), frozenset({5}))
    recorder = Recorder(runner)
    result = run_back_to_back(BackToBackConfig(512, TEN_G, 0.75, repetitions=1), recorder)
    assert result.bursts == (25600,)
    invalid = [t for t in recorder.trials if not t.valid]
    assert [t.trial_index for t in invalid] == [5]
    assert recorder.trials[6].labels == invalid[0].labels  # the same burst again


def test_correction_formula() -> None:
    # RFC 9004 6.4: implied - implied x throughput / line rate.
    assert corrected_buffer_time_s(1000.0, 1e6, 0.0) == 1e-3
    assert corrected_buffer_time_s(1000.0, 1e6, 0.25e6) == pytest.approx(0.75e-3)
    assert corrected_buffer_time_s(1000.0, 1e6, 1e6) == 0.0


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"throughput_fraction": 0.0}, "throughput_fraction must be a share of line rate"),
        ({"repetitions": 0}, "repetitions must be a whole number >= 1"),
        ({"max_burst_frames": 0}, "max_burst_frames must be a whole number >= 1"),
        ({"resolution_frames": 0}, "resolution_frames must be a whole number >= 1"),
        ({"line_rate_bps": -1.0}, "line_rate_bps must be a positive number of bit/s"),
    ],
)
def test_config_errors(fields: dict[str, object], fragment: str) -> None:
    kwargs: dict[str, object] = {
        "frame_size": 512,
        "line_rate_bps": TEN_G,
        "throughput_fraction": 0.75,
        **fields,
    }
    with pytest.raises(ValueError, match=re.escape(f"BackToBackConfig: {fragment}")):
        BackToBackConfig(**kwargs)  # type: ignore[arg-type]
