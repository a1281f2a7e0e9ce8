"""Streams received on several ports on Tofino (common/rx_port_slots.p4), against the
fake BfRt switch: the slots table's entries (keys are dev ports), the slots' registers
zeroed and read in their ports' pipes, per-port figures, and a spread stream over
pipes refused (registers are per pipe: one sequence cannot span them)."""

from __future__ import annotations

import pytest
from tofino_fake import FakeBfrt

from p4tester.streams.template import FrameSpec, build_template
from p4tester.targets.tofino.driver import StreamPorts, TofinoTarget
from p4tester.tester.receive_slots import PortSlots, ReceiveSlots

FRONT = {n: f"{n}/0" for n in range(1, 33)}  # 1-8 pipe 0 (dev 0, 8, 16...), 9-16 pipe 1
CHK = "pipe.TesterIngress.checker."
SLOTS_TABLE = "pipe.TesterIngress.port_slots.rx_port_slots"
F60 = build_template(FrameSpec(stream_id=0, frame_size=64))
# Stream 0: 1 -> 2 (dev 8, pipe 0) and 9 (dev 128, pipe 1), replicated: slots 0 and 2.
# Stream 1: 1 -> 2 and 3 (dev 16, pipe 0), spread: its sequence in 1, figures in 3, 4.
STREAMS = [StreamPorts(0, 1, 2), StreamPorts(1, 1, 2)]
RECEIVE = {0: ReceiveSlots(0, True, (PortSlots(2, 0, 0), PortSlots(9, 2, 2))),
           1: ReceiveSlots(1, False, (PortSlots(2, 1, 3), PortSlots(3, 1, 4)))}


def running(fake: FakeBfrt) -> TofinoTarget:
    target = TofinoTarget(fake, STREAMS, FRONT, receive=RECEIVE)
    target.prepare([0, 1], [1])
    target.set_latency_bins([0, 1, 2, 5])
    target.set_qdepth_bins([0, 4, 8])
    target.set_templates({0: F60, 1: F60})
    target.set_stream_rates({0: 1e6, 1: 1e6})
    return target


def test_the_slots_table_names_each_port_by_its_dev_port() -> None:
    fake = FakeBfrt()
    running(fake)
    entries = {(e.key["stream"], e.key["rx_port"]): (e.action, e.data)
               for e in fake.entries(SLOTS_TABLE)}
    receive = "TesterIngress.port_slots.receive_as"
    assert entries == {(0, 8): (receive, {"seq": 0, "figures": 0}),
                       (0, 128): (receive, {"seq": 2, "figures": 2}),
                       (1, 8): (receive, {"seq": 1, "figures": 3}),
                       (1, 16): (receive, {"seq": 1, "figures": 4})}


def test_each_slot_is_zeroed_and_read_in_its_ports_pipe() -> None:
    fake = FakeBfrt()
    target = running(fake)
    for cell in range(6):  # an earlier trial's leftovers
        fake.set_register(CHK + "rx_seen", cell, "TesterIngress.checker.rx_seen.f1",
                          [1, 1, 1, 1])
    target.start_trial({0: 1000, 1: 1000})
    # Every cell of both streams starts the trial zeroed (rx_seen 0 in every pipe); 5
    # is no stream's and keeps what it had.
    seen = fake.read_registers(CHK + "rx_seen", range(6))
    assert {cell: tuple(values["TesterIngress.checker.rx_seen.f1"])
            for cell, values in seen.items()} == {**{c: (0, 0, 0, 0) for c in range(5)},
                                                  5: (1, 1, 1, 1)}
    before = target.snapshot()

    def reg(name: str, cell: int, pipe: int, value: int, field: str = "f1") -> None:
        register = CHK + name
        values = [0, 0, 0, 0]
        values[pipe] = value
        fake.set_register(register, cell, f"{register[5:]}.{field}", values)

    # Stream 0: port 2 (slot 0, pipe 0) whole, port 9 (slot 2, pipe 1) 100 short.
    fake.count("pipe.TesterEgress.generator.tx_stream", 0, 0, 1000, 60_000)
    fake.count(CHK + "rx_stream", 0, 0, 1000, 60_000)
    fake.count(CHK + "rx_stream", 2, 1, 900, 54_000)
    fake.count(CHK + "rx_gap_events", 2, 1, 3)
    for cell, pipe in ((0, 0), (2, 1)):
        reg("rx_seen", cell, pipe, 1)
        reg("latency_min", cell, pipe, 1000)
        reg("latency_max", cell, pipe, 4000)
    reg("rx_lost", 2, 1, 100)
    reg("latency_sum.cells", 0, 0, 2_000_000, "lo")
    reg("latency_sum.cells", 2, 1, 2_700_000, "lo")
    # Stream 1: its sequence (slot 1) saw 1000 frames; 600 came on port 2, 400 on 3.
    fake.count("pipe.TesterEgress.generator.tx_stream", 1, 0, 1000, 60_000)
    fake.count(CHK + "rx_stream", 3, 0, 600, 36_000)
    fake.count(CHK + "rx_stream", 4, 0, 400, 24_000)
    fake.count(CHK + "rx_reordered", 1, 0, 5)
    reg("rx_seen", 1, 0, 1)
    for cell in (3, 4):
        reg("latency_min", cell, 0, 500)
        reg("latency_max", cell, 0, 800)
    reg("latency_sum.cells", 3, 0, 360_000, "lo")
    reg("latency_sum.cells", 4, 0, 260_000, "lo")
    after = target.snapshot()
    replicated, spread = target.stream_stats(before, after)

    assert (replicated.stream_id, replicated.replicated) == (0, True)
    assert [(r.port, r.rx_frames, r.gap_events, r.lost_in_gaps)
            for r in replicated.receivers] == [(2, 1000, 0, 0), (9, 900, 3, 100)]
    assert (replicated.frames_due, replicated.lost) == (2000, 100)
    port9 = replicated.receivers[1].latency
    assert port9 is not None and (port9.samples, port9.avg_us) == (900, 3.0)

    assert (spread.stream_id, spread.replicated) == (1, False)
    assert [(r.port, r.rx_frames) for r in spread.receivers] == [(2, 600), (3, 400)]
    assert (spread.rx_frames, spread.lost, spread.reordered) == (1000, 0, 5)
    joined = spread.latency
    assert joined is not None
    assert (joined.samples, joined.min_us, joined.max_us, joined.avg_us) == (
        1000, 0.5, 0.8, 0.62)


def test_a_spread_stream_over_two_pipes_is_refused() -> None:
    receive = {1: ReceiveSlots(1, False, (PortSlots(2, 1, 3), PortSlots(9, 1, 4)))}
    target = TofinoTarget(FakeBfrt(), [StreamPorts(1, 1, 2)], FRONT, receive=receive)
    with pytest.raises(ValueError) as caught:
        target.prepare([1], [1])
    assert str(caught.value) == (
        "stream 1 spreads over ports 2 (pipe 0), 9 (pipe 1): Tofino keeps a register cell "
        "per pipe, so one sequence over several pipes cannot be checked; give a spread "
        "stream RX ports of one pipe (or replicate: a sequence per port)")
