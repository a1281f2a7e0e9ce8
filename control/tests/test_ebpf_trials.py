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
from p4tester.targets.ebpf.trials import MAX_COPIES, EbpfStreamPlan, copies_per_template


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
