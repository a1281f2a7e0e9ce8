"""The one rule for when a sender has sent its budget, and when it is late
(tester.send_watch), as the trial loop and the OTG flows use it."""

from __future__ import annotations

from p4tester.tester.send_watch import Sender, SendWatch, SentReading

STREAM = Sender(0, budget=100, rate_pps=50.0)  # 2 s of frames: late after 2 x 1.5 + 5 s
WATCHER = Sender(9, budget=10, rate_pps=5.0, waited=False)


def test_done_once_made_and_let_out() -> None:
    watch = SendWatch([STREAM, WATCHER], now=0.0)
    assert list(watch.waiting) == [0]  # the watcher is neither waited for nor timed
    assert watch.allowed_s == 8.0
    assert watch.done({0: SentReading(generated=99, sent=90)}) == []
    assert watch.done({0: SentReading(generated=100, sent=97)}) == []  # still leaving
    assert watch.done({0: SentReading(generated=100, sent=100)}) == [STREAM]
    assert watch.waiting == {}


def test_a_tx_queue_that_stopped_moving_has_let_out_what_it_will() -> None:
    """A frame a full TX queue dropped is never numbered: sent stops short of the budget."""
    watch = SendWatch([STREAM], now=0.0)
    assert watch.done({0: SentReading(generated=100, sent=96)}) == []
    assert watch.done({0: SentReading(generated=100, sent=96)}) == [STREAM]


def test_where_the_target_tells_only_what_it_made_made_is_sent() -> None:
    watch = SendWatch([STREAM], now=0.0)
    assert watch.done({0: SentReading(generated=100)}) == [STREAM]


def test_late_after_its_time_and_paused_time_does_not_count() -> None:
    watch = SendWatch([STREAM], now=10.0)
    assert watch.late(18.0) == []
    watch.pause(12.0)
    assert watch.late(30.0) == []  # paused: never late
    watch.resume(32.0)  # 20 s paused: the deadline moves from 18 to 38
    assert watch.late(37.9) == []
    assert watch.late(38.1) == [0]
    assert SendWatch([WATCHER], now=0.0).late(1e9) == []  # nothing waited for
