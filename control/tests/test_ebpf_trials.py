"""The eBPF target's trial pieces that need no kernel: copies per template, the
sender's schedule (a socket that records), the program's clock in the trial loop's
units, and the topology's ebpf settings."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.topology import topology_from_dict
from p4tester.targets.ebpf import sender as sender_module
from p4tester.targets.ebpf.sender import Feed, TemplateSender
from p4tester.targets.ebpf.trials import (
    MAX_COPIES,
    EbpfStreamPlan,
    catch_up_templates,
    copies_per_template,
)
from p4tester.tester.trial_course import burst_allowed


def test_copies_keep_the_sender_at_its_template_rate() -> None:
    assert copies_per_template(5_000, 1, burst=False) == 1
    assert copies_per_template(10_000, 1, burst=False) == 1
    assert copies_per_template(10_001, 1, burst=False) == 2
    assert copies_per_template(37_202, 1, burst=False) == 4
    # Two streams share the sender: each gets twice the copies.
    assert copies_per_template(37_202, 2, burst=False) == 8
    assert copies_per_template(2_000_000, 1, burst=False) == MAX_COPIES
    assert copies_per_template(100, 1, burst=True) == MAX_COPIES


def test_a_plan_feeds_enough_templates_for_its_budget() -> None:
    from p4tester.config.profile import StreamConfig

    plan = EbpfStreamPlan(StreamConfig(id=0, tx_port=1, rx_port=2), 26_000.0, 52_000, 3,
                          b"x")
    feed = plan.feed
    assert feed.count == 17_334  # ceil(52000 / 3): the program drops the 2 extra copies
    assert feed.template_pps == pytest.approx(26_000 / 3)


class RecordingSocket:
    def __init__(self, refuse_every: int = 0) -> None:
        self.sent: list[bytes] = []
        self.refuse_every = refuse_every
        self.calls = 0

    def send(self, data: bytes) -> int:
        self.calls += 1
        if self.refuse_every and self.calls % self.refuse_every == 0:
            raise OSError(105, "No buffer space available")
        self.sent.append(data)
        return len(data)

    def close(self) -> None:
        pass


def recording_sender(sock: RecordingSocket) -> TemplateSender:
    sender = TemplateSender.__new__(TemplateSender)
    sender.interface = "test"
    sender._socket = sock  # type: ignore[assignment]
    return sender


class FakeClock:
    """perf_counter and sleep over one clock: sleeping advances it."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def with_fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    clock = FakeClock()
    fake: Any = type("FakeTime", (), {"perf_counter": staticmethod(clock.perf_counter),
                                      "sleep": staticmethod(clock.sleep)})
    monkeypatch.setattr(sender_module, "time", fake)
    return clock


def test_feeds_are_sent_each_at_its_rate_to_their_counts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = with_fake_clock(monkeypatch)
    sock = RecordingSocket()
    report = recording_sender(sock).send_feeds(
        [Feed(b"a", 100, 1000.0), Feed(b"b", 30, 300.0)], time_limit_s=5.0)
    assert sock.sent.count(b"a") == 100 and sock.sent.count(b"b") == 30
    assert report.templates == 130 and report.refused == 0 and not report.stopped
    # Each template goes out in the 1-ms slot before it is due: the last of a, due at
    # 99 / 1000 s, at 0.098 s; the last of b, due at 29 / 300 s, before it.
    assert clock.now == pytest.approx(0.098, abs=1e-9)


def test_a_slots_templates_go_round_robin_and_the_lead_turns(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Three streams of one port, 3 templates each due in the first slot, 1 in the
    second: they alternate template by template, and the second slot starts with the
    second stream (RFC 2889's round-robin destinations)."""
    with_fake_clock(monkeypatch)
    sock = RecordingSocket()
    # 2000 templates/s: 3 due in the first 1-ms slot (0, 0.5 and 1 ms), then 2 a slot.
    recording_sender(sock).send_feeds(
        [Feed(b"a", 4, 2000.0), Feed(b"b", 4, 2000.0), Feed(b"c", 4, 2000.0)],
        time_limit_s=1.0)
    assert b"".join(sock.sent) == b"abcabcabc" + b"bca"


class StallingClock(FakeClock):
    """A host that does not run the sender for `stall_s` once, at `at_s`."""

    def __init__(self, at_s: float, stall_s: float) -> None:
        super().__init__()
        self.at_s, self.stall_s = at_s, stall_s

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        if self.stall_s and self.now >= self.at_s:
            self.now += self.stall_s
            self.stall_s = 0.0


class TimedSocket(RecordingSocket):
    def __init__(self, clock: FakeClock) -> None:
        super().__init__()
        self.clock = clock
        self.times: list[float] = []

    def send(self, data: bytes) -> int:
        self.times.append(self.clock.now)
        return super().send(data)


def send_through_a_stall(monkeypatch: pytest.MonkeyPatch, catch_up: int | None
                         ) -> tuple[sender_module.SendReport, list[float]]:
    """6000 frames/s of one copy per template for 0.3 s; the host holds the sender
    9 ms at 0.1 s (as one core busy did on the BMv2-DUT lab: 61 templates at once)."""
    clock = StallingClock(at_s=0.1, stall_s=0.009)
    fake: Any = type("FakeTime", (), {"perf_counter": staticmethod(clock.perf_counter),
                                      "sleep": staticmethod(clock.sleep)})
    monkeypatch.setattr(sender_module, "time", fake)
    sock = TimedSocket(clock)
    report = recording_sender(sock).send_feeds([Feed(b"a", 1800, 6000.0, catch_up=catch_up)],
                                               time_limit_s=5.0)
    return report, sock.times


def worst_burst(times: list[float], rate_pps: float, window_s: float) -> float:
    """The most frames sent beyond `rate_pps` in any window of `window_s` (each 0.1-ms
    start): what the trial's samples can see of a burst."""
    starts = [step / 10_000 for step in range(int((times[-1] + window_s) * 10_000))]
    return max(sum(start < t <= start + window_s for t in times) - rate_pps * window_s
               for start in starts)


def test_a_sender_behind_catches_up_no_more_than_its_feed_allows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After the stall, the sender writes a slot's share (7 templates at 6000/s) and half
    its catch-up of 23 (11) at once, then 6000 templates/s and the other half (115/s):
    the 9-ms lag is repaid, never dropped from the schedule (before, 31 templates of it
    slipped: 5.2 ms of the trial's rate). No window of a trial's samples holds more
    than the 30 frames a trial allows beyond its rate (burst_allowed); sent all at once,
    the stall's 61 templates are 54 beyond it (the CI run's trial the tester could not
    vouch for)."""
    catch_up = catch_up_templates(6000.0, 1)
    assert catch_up == 23
    report, times = send_through_a_stall(monkeypatch, catch_up)
    assert report.templates == 1800 and not report.stopped
    assert report.most_at_once == (7 + 11,)
    assert worst_burst(times, 6000.0, 0.1) == 23.0 < burst_allowed(6000.0, 0.1) == 30.0
    # 0.2 s after the stall, 11 + 23 of its 55 templates repaid; the last 19 (3.2 ms)
    # made the feed end late by that much.
    (late,) = report.slipped_s
    assert late == pytest.approx(19 / 6000.0, abs=1 / 6000.0)

    report, times = send_through_a_stall(monkeypatch, None)
    assert report.templates == 1800 and report.most_at_once == (61,)
    assert report.slipped_s == (0.0,)
    assert worst_burst(times, 6000.0, 0.1) == 54.0  # 61 less a slot's 7


def test_a_long_lag_is_repaid_window_by_window() -> None:
    """A feed 200 templates behind (the bucket full): 18 at once, then its rate and
    115 templates/s more, so every 0.1-s window repays at most 11.5 + the 7 of a slot's
    rounding, and the whole lag takes about 1.6 s."""
    feed = Feed(b"a", 100_000, 6000.0, catch_up=23)
    bucket = sender_module.CatchUpBucket.of(feed)
    assert bucket is not None
    assert bucket.allow(0.0, 200) == 18
    written, now = 18, 0.0
    while now < 1.0:
        now += 0.001
        owed = 200 + round(6000 * now) - written  # the lag, and what fell due since
        written += bucket.allow(now, owed)
    # After 1 s: 18 at once and 115 more than the 6000 due, 133 of the 200 repaid.
    assert written - round(6000 * 1.0) == pytest.approx(18 + 115, abs=2)


def test_catch_up_is_what_the_trial_allows_less_a_slot() -> None:
    # 30 frames allowed at 6000 frames/s, a slot's share 7 templates of 1 copy.
    assert catch_up_templates(6000.0, 1) == 30 - 7
    # The router lab: 101 frames allowed at 20 208/s, templates of 3 copies, 8 a slot.
    assert catch_up_templates(20_208.0, 3) == 33 - 8
    # Slow streams: at least the 16 frames allowed, 2 templates a slot.
    assert catch_up_templates(1000.0, 1) == 16 - 2
    # Many copies a template: none beyond the slot's share.
    assert catch_up_templates(1000.0, 63) == 0


def test_only_a_steady_plan_bounds_its_catch_up() -> None:
    from p4tester.config.profile import StreamConfig

    stream = StreamConfig(id=0, tx_port=1, rx_port=2)
    assert EbpfStreamPlan(stream, 6000.0, 12_000, 1, b"x").feed.catch_up == 23
    assert EbpfStreamPlan(stream, 1000.0, 2000, 32, b"x", bursts=True).feed.catch_up is None
    shaped = EbpfStreamPlan(stream, 1000.0, 2000, 1, b"x", steps=((0.0, 500.0), (1.0, 1500.0)))
    assert shaped.feed.catch_up is None
    with pytest.raises(ValueError, match="catch-up -1 must be 0 or more"):
        Feed(b"a", 10, 10.0, catch_up=-1)


def test_the_sender_thread_alone_runs_ahead_of_other_work() -> None:
    """Nice -20 for the thread that asks (root may), and nothing else: the process's
    other threads keep theirs."""
    import os

    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: list[tuple[bool, int]] = []

    def sender() -> None:
        applied = sender_module.run_ahead_of_other_work()
        seen.append((applied, os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))

    thread = threading.Thread(target=sender)
    thread.start()
    thread.join()
    root = os.geteuid() == 0
    assert seen == [(root, sender_module.SENDER_NICE if root else before)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


def test_refused_templates_are_reported_not_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    with_fake_clock(monkeypatch)
    sock = RecordingSocket(refuse_every=10)
    report = recording_sender(sock).send_feeds([Feed(b"a", 100, 1000.0)], time_limit_s=5.0)
    assert report.templates == 90 and report.refused == 10
    assert len(sock.sent) == 90


def test_a_stopped_sender_says_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    with_fake_clock(monkeypatch)
    stop = threading.Event()
    stop.set()
    report = recording_sender(RecordingSocket()).send_feeds(
        [Feed(b"a", 100, 1000.0)], time_limit_s=5.0, stop=stop)
    assert report.templates == 0 and report.stopped


def test_feeds_refuse_a_rate_of_zero() -> None:
    with pytest.raises(ValueError, match="template rate 0"):
        Feed(b"a", 10, 0.0)


def topology(port: dict[str, object], target: str = "ebpf") -> dict[str, object]:
    return {"name": "t", "switch": {"target": target},
            "ports": {1: {"line_rate": "1Gbps", **port}, 2: {"line_rate": "1Gbps"}}}


def test_an_ebpf_port_names_its_interface() -> None:
    loaded = topology_from_dict(topology({"interface": "enp1s0f0"}), "t.yaml")
    assert loaded.switch.target == "ebpf"
    assert loaded.port(1).interface == "enp1s0f0"
    assert loaded.port(2).interface == ""
    assert loaded.switch.ebpf_object == "build/ebpf/tester.o"


@pytest.mark.parametrize(("port", "target", "message"), [
    ({"interface": "eth0"}, "bmv2",
     r"t.yaml: ports: port 1: interface is for target ebpf \(this switch is bmv2\); drop it"),
    ({"interface": "a/b"}, "ebpf",
     r"port 1: interface 'a/b' is not a Linux interface name"),
    ({"interface": "x" * 16}, "ebpf", r"is not a Linux interface name \(1-15 characters"),
])
def test_bad_interfaces_are_refused(port: dict[str, object], target: str,
                                    message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        topology_from_dict(topology(port, target), "t.yaml")


def test_one_interface_is_one_port() -> None:
    data = topology({"interface": "eth0"})
    data["ports"] = {1: {"line_rate": "1Gbps", "interface": "eth0"},
                     2: {"line_rate": "1Gbps", "interface": "eth0"}}
    with pytest.raises(ConfigError, match=r"ports 1 and 2 are both interface 'eth0'"):
        topology_from_dict(data, "t.yaml")


def test_a_shaped_feed_falls_due_step_by_step() -> None:
    """100 templates/s for 1 s, then 300/s (a shaped stream's steps, issue 24)."""
    feed = Feed(b"t", 500, 200.0, steps=((0.0, 100.0), (1.0, 300.0)))
    assert [feed.due_by(t) for t in (0.0, 0.5, 1.0, 1.5)] == [0.0, 50.0, 100.0, 250.0]
    assert [feed.due_at(n) for n in (0, 50, 100, 250)] == [0.0, 0.5, 1.0, 1.5]
    assert [feed.rate_at(t) for t in (0.0, 0.99, 1.0, 9.0)] == [100.0, 100.0, 300.0, 300.0]
    # A feed without steps keeps its one rate.
    flat = Feed(b"t", 500, 200.0)
    assert (flat.due_by(1.5), flat.due_at(300), flat.rate_at(1.0)) == (300.0, 1.5, 200.0)
    with pytest.raises(ValueError, match=r"first step starts at 0, not 0.5"):
        Feed(b"t", 500, 200.0, steps=((0.5, 100.0),))
