"""TofinoTarget against the fake BfRt switch: exact writes of prepare, rates and trial
start, register zeroing, and the statistics readout from per-pipe values."""

from __future__ import annotations

import pytest
from tofino_fake import FakeBfrt, Write
from tofino_scenario import F60, F124, FRONT, STREAMS, prepare, start

from p4tester.results.model import Histogram, StreamStats
from p4tester.streams.template import FrameSpec, build_template
from p4tester.targets.base import TargetDriver
from p4tester.targets.tofino.bfrt import BfrtError
from p4tester.targets.tofino.driver import (
    GeneratorCount,
    ReceivedSoFar,
    StreamPorts,
    TofinoTarget,
)

# The fake puts ports 1-8 in pipe 0, 9-16 in pipe 1...; the streams (tofino_scenario):
# stream 0: 1/0 (dev 0, pipe 0) -> 9/0 (dev 128, pipe 1)
# stream 1: 2/0 (dev 8, pipe 0) -> 17/0 (dev 256, pipe 2)
# stream 5: 9/0 (dev 128, pipe 1) -> 1/0 (dev 0, pipe 0)
U32 = 1 << 32
GEN_APPS = "pipe.TesterIngress.generator.gen_apps"
APP_CFG = "tf1.pktgen.app_cfg"
CHK = "pipe.TesterIngress.checker."
RX_EXPECTED = "pipe.TesterIngress.expectation.rx_expected"
TX_CLOCK = "pipe.TesterEgress.generator.tx_clock_correction"


def prepared(fake: FakeBfrt) -> TofinoTarget:
    return prepare(TofinoTarget(fake, STREAMS, FRONT))


def running(fake: FakeBfrt) -> TofinoTarget:
    return start(prepared(fake))


def test_is_a_target_driver_named_tofino() -> None:
    driver: TargetDriver = TofinoTarget(FakeBfrt(), STREAMS, FRONT)
    assert driver.name == "tofino"


def test_prepare_brings_up_ports_and_resets_generators() -> None:
    fake = FakeBfrt()
    TofinoTarget(fake, STREAMS, FRONT).prepare([0, 1, 5], [1, 2, 9])
    up = {"$SPEED": "BF_SPEED_100G", "$FEC": "BF_FEC_TYP_REED_SOLOMON",
          "$AUTO_NEGOTIATION": "PM_AN_DEFAULT", "$PORT_ENABLE": True}
    assert fake.writes == [
        *[Write("add", "$PORT", {"$DEV_PORT": p}, up) for p in (0, 8, 128, 256)],
        # No stream is received on several ports: the slots table is emptied only.
        Write("clear", "pipe.TesterIngress.port_slots.rx_port_slots", {}),
        *[Write("modify", APP_CFG, {"app_id": a}, {"app_enable": False}) for a in range(8)],
        # Generators of the TX ports' pipes (0 and 1): dev ports 68 and 196.
        Write("modify", "tf1.pktgen.port_cfg", {"dev_port": 68}, {"pktgen_enable": True}),
        Write("modify", "tf1.pktgen.port_cfg", {"dev_port": 196}, {"pktgen_enable": True}),
        Write("clear", GEN_APPS, {}),
        Write("clear", RX_EXPECTED, {}),
        Write("clear", TX_CLOCK, {}),
    ]


def test_a_tx_clock_correction_is_an_entry_while_it_is_not_zero() -> None:
    fake = FakeBfrt()
    target = prepared(fake)
    stamp = "TesterEgress.generator.stamp_with"
    target.set_tx_clock_correction(5, -1_500_000)  # the receiver's clock 1.5 ms behind
    target.set_tx_clock_correction(5, 2_000)
    target.set_tx_clock_correction(1, 0)  # never corrected: nothing to write
    target.set_tx_clock_correction(5, 1 << 32)  # 0 modulo 2^32: the entry goes
    assert fake.writes_to(TX_CLOCK)[1:] == [
        Write("add", TX_CLOCK, {"stream": 5}, {"correction_ns": U32 - 1_500_000}, stamp),
        Write("modify", TX_CLOCK, {"stream": 5}, {"correction_ns": 2_000}, stamp),
        Write("delete", TX_CLOCK, {"stream": 5}, {}),
    ]
    assert fake.entries(TX_CLOCK) == []
    with pytest.raises(ValueError, match=r"stream 3 is not among the streams this target sends"):
        target.set_tx_clock_correction(3, 1)


def test_prepare_and_constructor_errors() -> None:
    fake = FakeBfrt()
    target = TofinoTarget(fake, STREAMS, FRONT)
    with pytest.raises(ValueError, match=r"streams \[3\] are not among this target's streams"):
        target.prepare([0, 3], [1])
    with pytest.raises(ValueError,
                       match=r"TX ports \[4\] carry none of the streams this target sends"):
        target.prepare([0], [4])
    with pytest.raises(ValueError, match=r"stream 0: port 9 has no front-panel name"):
        TofinoTarget(fake, STREAMS, {1: "1/0"})
    with pytest.raises(ValueError, match=r"stream id 1024 is outside 0..1023"):
        TofinoTarget(fake, [StreamPorts(1024, 1, 2)], FRONT)
    with pytest.raises(ValueError, match=r"stream ids must be unique"):
        TofinoTarget(fake, [StreamPorts(1, 1, 2), StreamPorts(1, 2, 1)], FRONT)
    with pytest.raises(RuntimeError, match=r"prepare\(\) the target before setting rates"):
        target.set_stream_rates({0: 1e6})
    with pytest.raises(ValueError, match=r"templates for streams \[9\]"):
        target.set_templates({9: F60})


def test_rates_make_applications_buffers_and_groups() -> None:
    fake = FakeBfrt()
    target = prepared(fake)
    target.set_templates({0: F60, 1: F60, 5: F124})
    fake.writes.clear()
    target.set_stream_rates({0: 1e6, 1: 1e6, 5: 2e6})
    apps = target.apps
    # Both applications run in both TX pipes (0 and 1), each pipe making half the rate.
    assert [(a.app_id, a.pipes, a.stream_ids, a.schedule.period_ns, a.achieved_pps)
            for a in apps] == [(0, (0, 1), (0, 1), 2000, 1e6), (1, (0, 1), (5,), 1000, 2e6)]
    buffer = "tf1.pktgen.pkt_buffer"
    assert [(w.op, w.table, w.key, w.pipe) for w in fake.writes] == [
        *[w for pipe in (0, 1) for w in (
            ("modify", buffer, {"pkt_buffer_offset": 0, "pkt_buffer_size": 60}, pipe),
            ("modify", buffer, {"pkt_buffer_offset": 64, "pkt_buffer_size": 124}, pipe),
            ("modify", APP_CFG, {"app_id": 0}, pipe),
            ("modify", APP_CFG, {"app_id": 1}, pipe))],
        ("add", "$pre.node", {"$MULTICAST_NODE_ID": 0}, None),
        ("add", "$pre.node", {"$MULTICAST_NODE_ID": 1}, None),
        ("add", "$pre.mgid", {"$MGID": 1}, None),
        ("add", "$pre.node", {"$MULTICAST_NODE_ID": 5}, None),
        ("add", "$pre.mgid", {"$MGID": 2}, None),
    ]
    ports = {e.key["$MULTICAST_NODE_ID"]: e.data["$DEV_PORT"] for e in fake.entries("$pre.node")}
    assert ports == {0: (0,), 1: (8,), 5: (128,)}


def test_templates_set_what_each_streams_frames_must_be() -> None:
    """Each stream's template's run value, epoch bits and IP version, on its RX dev
    port (stream 5: IPv6, epoch 5 = flags 0x0A, back on 1/0 = dev 0); the next
    trial's templates modify the entries."""
    fake = FakeBfrt()
    target = prepared(fake)
    fake.writes.clear()
    target.set_templates({0: F60, 1: F60, 5: F124})
    assert fake.writes == [
        Write("add", RX_EXPECTED, {"stream": s}, {"trial_run": 0, "trial_epoch": flags,
                                                  "rx_port": port, "ip_version": version},
              "TesterIngress.expectation.expect")
        for s, flags, port, version in ((0, 0, 128, 4), (1, 0, 256, 4), (5, 0x0A, 0, 6))]
    fake.writes.clear()
    target.set_templates({0: build_template(FrameSpec(stream_id=0, frame_size=64, epoch=127,
                                                      run=0xB7))})
    assert fake.writes == [
        Write("modify", RX_EXPECTED, {"stream": 0}, {"trial_run": 0xB7, "trial_epoch": 0xFE,
                                                     "rx_port": 128, "ip_version": 4},
              "TesterIngress.expectation.expect")]
    with pytest.raises(RuntimeError, match=r"prepare\(\) the target before setting templates"):
        TofinoTarget(fake, STREAMS, FRONT).set_templates({0: F60})


def test_start_trial_zeroes_registers_and_arms_budgets() -> None:
    fake = FakeBfrt()
    target = running(fake)
    fake.set_register(CHK + "rx_lost", 5, "TesterIngress.checker.rx_lost.f1", [9, 9, 9, 9])
    fake.writes.clear()
    target.start_trial({0: 1000, 1: 1000, 5: 500}, initial_seq=7)

    def cells(register: str, field: str, value: int) -> list[Write]:
        return [Write("register", register, {"$REGISTER_INDEX": s}, {field: value})
                for s in (0, 1, 5)]

    def plain(name: str, value: int, control: str = "TesterIngress.checker") -> list[Write]:
        prefix = "pipe.TesterEgress.generator." if control.startswith("TesterEgress") else CHK
        return cells(prefix + name, f"{control}.{name}.f1", value)

    def wide(name: str) -> list[Write]:
        return [Write("register", f"{CHK}{name}.cells", {"$REGISTER_INDEX": s},
                      {f"TesterIngress.checker.{name}.cells.lo": 0,
                       f"TesterIngress.checker.{name}.cells.hi": 0}) for s in (0, 1, 5)]

    assert fake.writes == [
        *plain("rx_next_expected", 7), *plain("rx_last_seq", 6), *plain("rx_seen", 0),
        *plain("rx_lost", 0), *plain("latency_min", 0xFFFFFFFF), *plain("latency_max", 0),
        *plain("last_latency", 0), *plain("tx_next_seq", 7, "TesterEgress.generator"),
        *wide("latency_sum"), *wide("jitter_sum"),
        *[Write("register", "pipe.TesterIngress.generator.generated", {"$REGISTER_INDEX": a},
                {"TesterIngress.generator.generated.made": 0,
                 "TesterIngress.generator.generated.last_tick": 0}) for a in (0, 1)],
        # Each pipe's share of the budget: 500 + 500 for app 0; 250 + 250 for app 1.
        *[Write("add", GEN_APPS, {"pipe_id": pipe, "app_id": 0},
                {"mcast_group": 1, "packet_budget": 500,
                     "drop_draws_below": 0}, "TesterIngress.generator.run")
          for pipe in (0, 1)],
        *[Write("add", GEN_APPS, {"pipe_id": pipe, "app_id": 1},
                {"mcast_group": 2, "packet_budget": 250,
                     "drop_draws_below": 0}, "TesterIngress.generator.run")
          for pipe in (0, 1)],
        *[Write("modify", APP_CFG, {"app_id": app}, {"app_enable": True}, pipe=pipe)
          for app in (0, 1) for pipe in (0, 1)],
    ]
    # Written to every pipe: whichever pipe a stream's port is in starts clean.
    assert fake.registers[CHK + "rx_lost"][5]["TesterIngress.checker.rx_lost.f1"] == [0] * 4


def test_start_trial_needs_one_budget_per_application() -> None:
    fake = FakeBfrt()
    target = running(fake)
    with pytest.raises(ValueError, match=r"streams \[0, 1\] share generator application 0"):
        target.start_trial({0: 1000, 1: 999, 5: 500})
    with pytest.raises(RuntimeError,
                       match=r"set_stream_rates\(\) or set_templates\(\) before start_trial"):
        prepared(FakeBfrt()).start_trial({0: 1})


def test_stop_and_restart_modify_the_application_entries() -> None:
    fake = FakeBfrt()
    target = running(fake)
    target.start_trial({0: 10, 1: 10, 5: 10})
    fake.writes.clear()
    target.stop_trial()
    assert fake.writes == [w for app in (0, 1) for pipe in (0, 1) for w in (
        Write("modify", APP_CFG, {"app_id": app}, {"app_enable": False}, pipe=pipe),
        Write("modify", GEN_APPS, {"pipe_id": pipe, "app_id": app}, {},
              "TesterIngress.generator.stopped"))]
    target.start_trial({0: 21, 1: 21, 5: 20})
    runs = [w for w in fake.writes_to(GEN_APPS) if w.action == "TesterIngress.generator.run"]
    assert [w.op for w in runs] == ["modify"] * 4
    # An odd budget: the first pipe makes the extra packet.
    assert [w.data["packet_budget"] for w in runs] == [11, 10, 10, 10]


GENERATED = "pipe.TesterIngress.generator.generated"
MADE = "TesterIngress.generator.generated.made"
LAST_TICK = "TesterIngress.generator.generated.last_tick"


def test_generated_sums_the_pipes_at_the_latest_tick_in_microseconds() -> None:
    fake = FakeBfrt()
    target = running(fake)
    target.start_trial({0: 1000, 1: 1000, 5: 500})
    assert target.generated() == {0: GeneratorCount(0, None), 1: GeneratorCount(0, None)}
    # App 0 (streams 0 and 1) runs in pipes 0 and 1; app 1 (stream 5) too. Pipe 2's
    # tick of app 0 is a leftover with no packet counted: no time of its own.
    fake.set_register(GENERATED, 0, MADE, [600, 400, 0, 0])
    fake.set_register(GENERATED, 0, LAST_TICK, [781_249, 781_245, 900_000, 0])
    fake.set_register(GENERATED, 1, MADE, [250, 0, 0, 0])
    fake.set_register(GENERATED, 1, LAST_TICK, [1003, 0, 0, 0])
    # 781,249 ticks of 256 ns = 199,999,744 ns: 199,999 us; 1003 ticks = 256.768 us.
    assert target.generated() == {0: GeneratorCount(1000, 199_999),
                                  1: GeneratorCount(250, 256)}


def test_generated_times_are_widened_across_the_ticks_wrap() -> None:
    fake = FakeBfrt()
    target = running(fake)
    target.start_trial({0: 10**9, 1: 10**9, 5: 10**9})
    fake.set_register(GENERATED, 0, MADE, [10, 0, 0, 0])
    fake.set_register(GENERATED, 0, LAST_TICK, [U32 - 256, 0, 0, 0])
    # (2^32 - 256) x 256 ns = 1,099,511,562,240 ns.
    assert target.generated()[0] == GeneratorCount(10, 1_099_511_562)
    # The 32-bit tick wrapped (2^40 ns): 272 ticks later, not 2^32 - 240 ticks before.
    fake.set_register(GENERATED, 0, LAST_TICK, [16, 0, 0, 0])
    fake.set_register(GENERATED, 0, MADE, [20, 0, 0, 0])
    assert target.generated()[0] == GeneratorCount(20, (U32 + 16) * 256 // 1000)
    # App 1's first read, after the wrap: on the same clock (not 2^40 ns behind).
    fake.set_register(GENERATED, 1, MADE, [5, 0, 0, 0])
    fake.set_register(GENERATED, 1, LAST_TICK, [8, 0, 0, 0])
    assert target.generated()[1] == GeneratorCount(5, (U32 + 8) * 256 // 1000)
    # A new trial starts its clock afresh.
    target.start_trial({0: 10**9, 1: 10**9, 5: 10**9})
    fake.set_register(GENERATED, 0, MADE, [1, 0, 0, 0])
    fake.set_register(GENERATED, 0, LAST_TICK, [16, 0, 0, 0])
    assert target.generated()[0] == GeneratorCount(1, 16 * 256 // 1000)


def test_received_counts_from_the_trials_start_with_latency_in_nanoseconds() -> None:
    fake = FakeBfrt()
    target = running(fake)
    fake.count(CHK + "rx_stream", 0, 1, 70)  # an earlier trial's frames
    target.start_trial({0: 1000, 1: 1000, 5: 500})
    assert target.received([0, 5]) == {0: ReceivedSoFar(0, 0), 5: ReceivedSoFar(0, 0)}
    # Stream 0 comes back on 9/0 (pipe 1), stream 5 on 1/0 (pipe 0).
    fake.count(CHK + "rx_stream", 0, 1, 300)
    fake.set_register(CHK + "latency_sum.cells", 0, "TesterIngress.checker.latency_sum.cells.lo",
                      [77, 450_999, 88, 99])
    fake.set_register(CHK + "latency_sum.cells", 5, "TesterIngress.checker.latency_sum.cells.hi",
                      [1, 0, 0, 0])
    fake.count(CHK + "rx_stream", 5, 0, 2)
    received = target.received([5, 0])
    assert received == {0: ReceivedSoFar(300, 450_999), 5: ReceivedSoFar(2, U32)}
    assert (received[0].latency_sum_us, received[5].latency_sum_us) == (450, U32 // 1000)


def test_readout_takes_rx_state_from_the_rx_pipe_and_sums_counters() -> None:
    fake = FakeBfrt()
    target = running(fake)
    target.start_trial({0: 1000, 1: 1000, 5: 500})
    before = target.snapshot()

    # Stream 0 comes back on 9/0 (pipe 1): its checker state is pipe 1's column; the
    # other pipes hold another stream's leftovers that must not be used.
    def reg(name: str, value: int, field: str = "f1") -> None:
        register = CHK + name
        fake.set_register(register, 0, f"{register[5:]}.{field}", [77, value, 88, 99])

    reg("rx_seen", 1)
    reg("rx_lost", 7)
    reg("latency_min", 1500)
    reg("latency_max", 3000)
    reg("latency_sum.cells", 2_000_000, "lo")
    reg("latency_sum.cells", 0, "hi")
    reg("jitter_sum.cells", 98_900, "lo")
    reg("jitter_sum.cells", 0, "hi")
    fake.count("pipe.TesterEgress.generator.tx_stream", 0, 0, 1000, 60_000)
    fake.count(CHK + "rx_stream", 0, 1, 990, 63_360)
    fake.count(CHK + "rx_stream", 0, 3, 10, 640)  # counters are summed over pipes
    fake.count(CHK + "rx_gap_events", 0, 1, 2)
    fake.count(CHK + "rx_reordered", 0, 1, 1)
    for cell, packets in ((0, 0), (1, 600), (2, 390), (31, 10)):
        fake.count(CHK + "latency_hist", 0 * 32 + cell, 1, packets)
    fake.count("pipe.TesterIngress.rx_kind", 1, 2, 3)  # foreign frames
    after = target.snapshot()
    stats = {s.stream_id: s for s in target.stream_stats(before, after)}
    assert sorted(stats) == [0, 1, 5]
    zero = stats[0]
    assert zero == StreamStats(
        stream_id=0, frame_size=64, tx_frames=1000, rx_frames=1000, rx_bytes=64_000,
        gap_events=2, lost_in_gaps=7, reordered=1, duplicates=0,
        latency=zero.latency, queue_depth=None)
    latency = zero.latency
    assert latency is not None
    assert (latency.samples, latency.min_us, latency.max_us) == (1000, 1.5, 3.0)
    assert latency.avg_us == pytest.approx(2.0)
    assert latency.jitter_us == pytest.approx(98_900 / 999 / 1000)
    assert latency.histogram == Histogram((0, 1, 2, 5), (0, 600, 390), 10)
    assert stats[1].latency is None and stats[1].rx_frames == 0
    assert after.cell("pipe.TesterIngress.rx_kind", 1).packets == 3


def test_wide_sums_combine_hi_and_lo() -> None:
    fake = FakeBfrt()
    target = running(fake)
    target.start_trial({0: 1, 1: 1, 5: 1})
    before = target.snapshot()
    sum_ns = 3 * U32 + 5
    for name, value in (("lo", sum_ns % U32), ("hi", sum_ns >> 32)):
        fake.set_register(CHK + "latency_sum.cells", 5,
                          f"TesterIngress.checker.latency_sum.cells.{name}", [value] * 4)
    fake.set_register(CHK + "rx_seen", 5, "TesterIngress.checker.rx_seen.f1", [1] * 4)
    fake.set_register(CHK + "latency_max", 5, "TesterIngress.checker.latency_max.f1",
                      [U32 - 1] * 4)
    fake.count(CHK + "rx_stream", 5, 0, 4, 512)
    stats = {s.stream_id: s for s in target.stream_stats(before, target.snapshot())}
    latency = stats[5].latency
    assert latency is not None
    assert latency.avg_us == pytest.approx(sum_ns / 4 / 1000)


def test_rx_lost_is_widened_across_wraps() -> None:
    fake = FakeBfrt()
    target = running(fake)
    target.start_trial({0: 1, 1: 1, 5: 1})
    field = "TesterIngress.checker.rx_lost.f1"
    # Stream 5 comes back on 1/0, pipe 0.
    for raw in (4_000_000_000, 100, 50_000):
        fake.set_register(CHK + "rx_lost", 5, field, [raw, 0, 0, 0])
        target.poll_lost()
    before = target.snapshot()
    stats = {s.stream_id: s for s in target.stream_stats(before, before)}
    assert stats[5].lost_in_gaps == U32 + 50_000
    target.start_trial({0: 1, 1: 1, 5: 1})  # a new trial starts from zero
    fake.set_register(CHK + "rx_lost", 5, field, [3, 0, 0, 0])
    stats = {s.stream_id: s for s in target.stream_stats(before, before)}
    assert stats[5].lost_in_gaps == 3


def test_readout_needs_bin_edges() -> None:
    fake = FakeBfrt()
    target = TofinoTarget(fake, STREAMS, FRONT)
    target.prepare([0], [1])
    target.set_templates({0: F60, 1: F60, 5: F60})
    target.set_stream_rates({0: 1e6})
    snap = target.snapshot()
    with pytest.raises(RuntimeError, match=r"set_latency_bins\(\) and set_qdepth_bins\(\)"):
        target.stream_stats(snap, snap)


def test_clear_stream_rates_stops_their_application_and_groups() -> None:
    fake = FakeBfrt()
    target = running(fake)
    target.start_trial({0: 1, 1: 1, 5: 1})
    target.clear_stream_rates([5])
    assert [a.app_id for a in target.apps] == [0]
    assert [e.key["$MGID"] for e in fake.entries("$pre.mgid")] == [1]
    enabled = {(pipe, e.key["app_id"]): e.data["app_enable"]
               for pipe in (0, 1) for e in fake.entries(APP_CFG, pipe=pipe)
               if e.key["app_id"] in (0, 1)}
    assert enabled == {(0, 0): True, (1, 0): True, (0, 1): False, (1, 1): False}
    stopped = {(e.key["pipe_id"], e.key["app_id"]): e.action for e in fake.entries(GEN_APPS)}
    run, stop = "TesterIngress.generator.run", "TesterIngress.generator.stopped"
    assert stopped == {(0, 0): run, (1, 0): run, (0, 1): stop, (1, 1): stop}


def test_new_rates_stop_the_old_applications_and_replace_groups() -> None:
    fake = FakeBfrt()
    target = running(fake)
    target.start_trial({0: 1, 1: 1, 5: 1})
    target.set_stream_rates({0: 3e6, 1: 3e6, 5: 3e6})  # same rate, two templates: two apps
    assert [(a.app_id, a.stream_ids) for a in target.apps] == [(0, (0, 1)), (1, (5,))]
    target.set_templates({5: F60})
    target.set_stream_rates({0: 3e6, 1: 3e6, 5: 3e6})
    assert [(a.app_id, a.pipes, a.stream_ids) for a in target.apps] == [(0, (0, 1), (0, 1, 5))]
    assert [e.key["$MGID"] for e in fake.entries("$pre.mgid")] == [1]
    assert all(e.action == "TesterIngress.generator.stopped" for e in fake.entries(GEN_APPS))


def test_the_fake_refuses_values_wider_than_the_schemas_fields() -> None:
    """The fake switch takes widths from bfrt.json, as a server checks them."""
    fake = FakeBfrt()
    run = "TesterIngress.generator.run"
    with pytest.raises(BfrtError, match=r"gen_apps: pipe_id = 4 does not fit 2 bits"):
        fake.add_entry(GEN_APPS, {"pipe_id": 4, "app_id": 0},
                       {"mcast_group": 1, "packet_budget": 1}, action=run)
    with pytest.raises(BfrtError, match=r"gen_apps: mcast_group = 65536 does not fit 16 bits"):
        fake.add_entry(GEN_APPS, {"pipe_id": 0, "app_id": 0},
                       {"mcast_group": 1 << 16, "packet_budget": 1}, action=run)
    with pytest.raises(BfrtError, match=r"rx_seen.f1 = 256 does not fit 8 bits"):
        fake.write_registers(CHK + "rx_seen", {0: {"TesterIngress.checker.rx_seen.f1": 256}})
