"""tester.trial_course: the offered load a trial proves from its generator samples."""

from __future__ import annotations

import pytest

from p4tester.results.model import IntervalCounts
from p4tester.tester.trial_course import (
    LatencyCourse,
    OfferedLoad,
    StreamSample,
    interval_counts,
    late_frames,
    latency_course,
    not_offered,
    offered_load,
)


def paced(rate_pps: int, every_us: int, reads: int, start_us: int = 0) -> list[StreamSample]:
    return [StreamSample(start_us + i * every_us, rate_pps * i * every_us // 1_000_000)
            for i in range(reads)]


def test_a_steady_generator_offers_its_rate_with_no_burst() -> None:
    samples = paced(3000, 100_000, 20)  # 3000 frames/s read every 100 ms
    assert offered_load(samples, 3000, budget=6000) == OfferedLoad(3000.0, 0, 1.9)


def test_a_stall_caught_up_is_a_burst() -> None:
    """Stalled for 200 ms (nothing sent), then the 600 frames owed went out with the next
    300 in one 100-ms interval: 600 beyond the rate. The average rate is still right."""
    counts = [0, 300, 600, 600, 600, 1500, 1800, 2100]
    samples = [StreamSample(i * 100_000, n) for i, n in enumerate(counts)]
    load = offered_load(samples, 3000, budget=6000)
    assert load.max_burst_frames == 600
    assert load.pps == pytest.approx(3000.0)


def test_the_clock_wraps_and_the_budget_ends_the_sending_time() -> None:
    """The switch clock wraps at 2^32 us between reads; the read that saw the budget
    complete bounds the burst, not the rate (the stream stopped inside that interval)."""
    start = 2**32 - 150_000
    samples = paced(1000, 100_000, 4, start_us=start)
    samples.append(StreamSample((start + 400_000) % 2**32, 350))  # budget: 350
    load = offered_load(samples, 1000, budget=350)
    assert load == OfferedLoad(1000.0, 0, 0.3)


def test_too_few_samples_measure_no_rate() -> None:
    assert offered_load([StreamSample(5, 10)], 1000, budget=100) == OfferedLoad(None, 0)
    assert offered_load([], 1000, budget=100) == OfferedLoad(None, 0)


def test_offered_as_configured_within_the_tolerances() -> None:
    steady = offered_load(paced(3000, 100_000, 20), 3000, budget=6000)
    assert not_offered(0, steady, 3000, 0.1) == ""
    # 1.9 s at 2951 frames/s instead of 3000: 93 frames short, 2 % is 114.
    assert not_offered(0, OfferedLoad(2951.0, 15, 1.9), 3000, 0.1) == ""


def test_a_generator_that_fell_behind_did_not_offer_its_load() -> None:
    """The measured case: at 100 % of a 5-Mbit/s port (7440 frames/s) the generator
    sent 6020 frames/s."""
    behind = OfferedLoad(6020.0, 12, 0.4)
    assert not_offered(3, behind, 7440, 0.1) == (
        "stream 3 offered 6020 frames/s, not its 7440 (measured on the switch's clock over "
        "0.40 s)")


def test_a_burst_beyond_the_tolerance_is_named() -> None:
    burst = OfferedLoad(3001.0, 17, 1.9)  # 5 % of 300 frames is 15: 16 allowed
    assert not_offered(1, burst, 3000, 0.1) == (
        "stream 1 sent 17 frames beyond its 3000 frames/s in one 0.1-s interval (its "
        "generator stalled and caught up; 16 allowed)")
    assert not_offered(1, OfferedLoad(3001.0, 16, 1.9), 3000, 0.1) == ""


def test_a_slow_stream_is_judged_by_whole_frames() -> None:
    """7 frames/s over 0.9 s: 6.3 frames asked. A paced generator sends 6 or 7 in such
    a span: 5 counted (1.3 short) is within the 2 frames allowed, 4 is not."""
    assert not_offered(0, OfferedLoad(5 / 0.9, 0, 0.9), 7, 0.1) == ""
    assert not_offered(0, OfferedLoad(4 / 0.9, 0, 0.9), 7, 0.1).startswith(
        "stream 0 offered 4 frames/s, not its 7")


def filling(frames_per_read: int, reads: int, first_us: int, step_us: int
            ) -> tuple[list[StreamSample], int, int]:
    """Samples of a stream whose every frame waits step_us longer than the one read
    before it (a queue filling), and the final (frames, latency sum)."""
    samples, total, latency = [], 0, 0
    for read in range(reads):
        total += frames_per_read
        latency += frames_per_read * (first_us + read * step_us)
        samples.append(StreamSample(read * 100_000, total, total, latency))
    return samples, total, latency


def test_a_queue_filling_through_the_trial_is_buffering() -> None:
    """20 reads of 150 frames, latency 200 us at the start rising 500 us per read:
    the first tenth (2 reads: 200, 700) averages 450 us, the last (9200, 9700) 9450."""
    samples, frames, total = filling(150, 20, 200, 500)
    course = latency_course(samples[:-1], frames, total)
    assert course == LatencyCourse(first_tenth=450.0, last_tenth=9450.0)
    assert course.rise == 9000.0
    assert course.buffering


def test_flat_or_noisy_latency_is_no_buffering() -> None:
    samples, frames, total = filling(150, 20, 300, 0)
    course = latency_course(samples[:-1], frames, total)
    assert course == LatencyCourse(300.0, 300.0)
    assert not course.buffering
    # A rise of 900 us, or one that does not double: noise, or a DUT already queueing.
    assert not LatencyCourse(300.0, 1200.0).buffering
    assert not LatencyCourse(3000.0, 5000.0).buffering
    assert LatencyCourse(300.0, 1400.0).buffering


def test_samples_that_do_not_split_the_trial_give_no_course() -> None:
    samples, frames, total = filling(150, 20, 300, 0)
    assert latency_course(samples[:1], frames, total) is None  # nothing past a tenth
    assert latency_course([], frames, total) is None
    # The first read already holds more than half of the frames.
    assert latency_course([StreamSample(0, 2000, 2000, 600_000)], 3000, 900_000) is None
    assert latency_course(samples, 9, total) is None


def test_frames_after_the_budget_was_seen_sent_are_late() -> None:
    """The read that saw the 300-frame budget sent had 200 frames received: the DUT
    still held 100, which arrived in the drain."""
    samples = [StreamSample(0, 100, 60), StreamSample(100_000, 200, 140),
               StreamSample(200_000, 300, 200)]
    assert late_frames(samples, budget=300, received=300) == 100
    assert late_frames(samples, budget=300, received=200) == 0
    assert late_frames(samples[:2], budget=300, received=140) is None  # never seen sent


def test_interval_counts_cut_the_trial_into_seconds_of_the_switch_clock() -> None:
    # Reads every 0.4 s (switch clock, us); 100 frames/s sent, received 2 frames behind.
    samples = [StreamSample(400_000 * i, 40 * i, max(40 * i - 2, 0)) for i in range(8)]
    counts = interval_counts(samples, 1.0)
    # Windows close at the first read a second or more after they opened: 0 -> 1.2 s ->
    # 2.4 s; the 0.4 s left (under half a second) joins the last one.
    assert counts == IntervalCounts(1.0, (120, 160), (118, 160))
    # A longer rest is a window of its own.
    counts = interval_counts(samples[:7], 1.0)
    assert counts == IntervalCounts(1.0, (120, 120), (118, 120))
    assert interval_counts(samples[:1], 1.0) is None
