"""Generator applications: grouping streams, the template buffer layout (16-B aligned,
16 KiB per pipe), and the exact application configuration written."""

from __future__ import annotations

import pytest
from tofino_fake import FakeBfrt, Write

from p4tester.targets.tofino import pktgen
from p4tester.targets.tofino.apps import AppPlan, app_budget, pipe_budgets, plan_apps
from p4tester.targets.tofino.pktgen import BufferSlot, layout_buffer
from p4tester.targets.tofino.rates import TimerSchedule

F60 = bytes(range(60))  # a 64-B frame without FCS
F124 = bytes(124)
APP_CFG = "tf1.pktgen.app_cfg"


def test_templates_are_stored_whole_at_16_byte_aligned_offsets() -> None:
    frames = [F60, F124, bytes(1514), F60]
    slots = layout_buffer(frames)
    assert [s.offset for s in slots] == [0, 64, 192, 1712]
    # The generator puts its 6-byte header in front of what it reads: no padding here.
    assert [s.data for s in slots] == frames
    assert slots[-1].end == 1772


def test_templates_must_fit_the_pipes_buffer() -> None:
    assert layout_buffer([bytes(9212)])[0].end == 9212
    with pytest.raises(ValueError, match=r"templates of 9212, 9212 B need 18428 B of a pipe's "
                                         r"16384 B packet-generator buffer"):
        layout_buffer([bytes(9212), bytes(9212)])


def test_streams_of_one_rate_and_template_share_an_application() -> None:
    pipes = {0: 0, 1: 0, 2: 1, 3: 1, 4: 2}
    apps = plan_apps({0: 1e6, 1: 1e6, 2: 1e6, 3: 2e6, 4: 1e6},
                     {0: F60, 1: F60, 2: F60, 3: F60, 4: F124}, pipes)
    # Every application runs in all three TX pipes, each making a third of its rate.
    assert [(a.app_id, a.pipes, a.stream_ids, a.rate_pps) for a in apps] == [
        (0, (0, 1, 2), (0, 1, 2), 1e6), (1, (0, 1, 2), (3,), 2e6), (2, (0, 1, 2), (4,), 1e6)]
    assert [a.mcast_group for a in apps] == [1, 2, 3]
    assert [a.frame_size for a in apps] == [64, 64, 128]
    assert apps[1].schedule == TimerSchedule(1500, 1, 1, 2e6 / 3, 0.0)
    assert apps[1].achieved_pps == 2e6


def test_more_than_eight_applications_is_refused() -> None:
    rates = {s: 1e6 + s for s in range(9)}
    with pytest.raises(ValueError, match=r"need 9 generator applications .* Tofino 1 has 8"):
        plan_apps(rates, dict.fromkeys(range(9), F60), dict.fromkeys(range(9), 0))


def test_a_pipes_generator_cannot_exceed_its_port() -> None:
    # Two 64-B applications at 60% of line rate each, both made by pipe 0 alone.
    rate = 0.6 * 100e9 / 672
    with pytest.raises(ValueError, match=r"pipe 0's packet generator would make 120 Gbit/s"):
        plan_apps({0: rate, 1: rate}, {0: F60, 1: bytes(60)}, {0: 0, 1: 0})
    # With TX ports in two pipes each generator makes half: 60 Gbit/s.
    apps = plan_apps({0: rate, 1: rate}, {0: F60, 1: bytes(60)}, {0: 0, 1: 1})
    assert [a.pipes for a in apps] == [(0, 1), (0, 1)]


def test_budgets_split_over_the_pipes() -> None:
    app = AppPlan(0, (0, 2, 3), (1,), F60, 1e6, TimerSchedule(3000, 1, 1, 1e6 / 3, 0.0))
    assert pipe_budgets(app, 10) == {0: 4, 2: 3, 3: 3}
    assert pipe_budgets(app, 1) == {0: 1, 2: 0, 3: 0}
    assert pipe_budgets(app, 9) == {0: 3, 2: 3, 3: 3}


def test_stream_without_template_or_with_a_runt() -> None:
    with pytest.raises(ValueError, match=r"stream 3 has a rate but no template"):
        plan_apps({3: 1e6}, {}, {3: 0})
    with pytest.raises(ValueError, match=r"stream 3: template of 20 B \(no FCS\)"):
        plan_apps({3: 1e6}, {3: bytes(20)}, {3: 0})


def test_streams_of_an_application_share_one_budget() -> None:
    app = AppPlan(0, (0,), (1, 2), F60, 1e6, TimerSchedule(1000, 1, 1, 1e6, 0.0))
    assert app_budget(app, {1: 500, 2: 500}) == 500
    with pytest.raises(ValueError, match=r"streams \[1, 2\] share generator application 0"):
        app_budget(app, {1: 500, 2: 501})
    with pytest.raises(ValueError, match=r"packet budget 4294967296 must be in"):
        app_budget(app, {1: 1 << 32, 2: 1 << 32})


def test_program_apps_writes_buffer_then_disabled_application() -> None:
    fake = FakeBfrt()
    # Line rate at 64 B made by two pipes: 25 packets every 336 ns in each.
    app = AppPlan(3, (1, 2), (5,), F60, 148_809_523.8,
                  TimerSchedule(336, 1, 25, 7.44e7, 0.0))
    pktgen.program_apps(fake, [app])
    assert fake.writes == [w for pipe in (1, 2) for w in (
        Write("modify", "tf1.pktgen.pkt_buffer", {"pkt_buffer_offset": 0, "pkt_buffer_size": 60},
              {"buffer": F60}, pipe=pipe),
        Write("modify", APP_CFG, {"app_id": 3}, {
            "timer_nanosec": 336, "app_enable": False, "pkt_len": 60, "pkt_buffer_offset": 0,
            "pipe_local_source_port": 68, "increment_source_port": False,
            "batch_count_cfg": 0, "packets_per_batch_cfg": 24,  # zero-based counts
            "ibg": 0, "ibg_jitter": 0, "ipg": 0, "ipg_jitter": 0,
            "batch_counter": 0, "pkt_counter": 0, "trigger_counter": 0,
        }, "trigger_timer_periodic", pipe=pipe))]
    assert fake.entries(APP_CFG, pipe=2)[0].data["app_enable"] is False
    assert fake.entries(APP_CFG, pipe=0) == []


def test_generator_ports_and_enabling() -> None:
    fake = FakeBfrt()
    pktgen.enable_generator_ports(fake, [3, 0, 3])
    pktgen.set_app_enabled(fake, 1, True, 3)
    pktgen.disable_all_apps(fake)
    assert fake.writes[:3] == [
        Write("modify", "tf1.pktgen.port_cfg", {"dev_port": 68}, {"pktgen_enable": True}),
        Write("modify", "tf1.pktgen.port_cfg", {"dev_port": 452}, {"pktgen_enable": True}),
        Write("modify", APP_CFG, {"app_id": 1}, {"app_enable": True}, pipe=3),
    ]
    assert fake.writes[3:] == [Write("modify", APP_CFG, {"app_id": a}, {"app_enable": False})
                               for a in range(8)]


def test_slot_end() -> None:
    assert BufferSlot(32, bytes(10)).end == 42
