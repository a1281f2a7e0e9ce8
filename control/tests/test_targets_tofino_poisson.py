"""Poisson arrivals on Tofino (issue 24, item 5), against the fake switch: the grid
timer and draw threshold written, the exact budget and the counts the draw leaves,
the chance the trial allows, the generator's load at the grid's rate, and what is
refused. No Tofino hardware or model here: the random unit and what leaves the ports
are not tested (docs/tofino.md, "Assumed and unverified")."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_targets_tofino_runner import GEN_APPS, PROFILE, TOPOLOGY
from test_targets_tofino_shapes import APP_CFG, ClockedSwitch
from tofino_fake import GENERATED, LAST_TICK, MADE, FakeBfrt

from p4tester.config.profile import StreamConfig, profile_from_dict
from p4tester.config.topology import Topology, topology_from_dict
from p4tester.experiments.runner import TrialSpec
from p4tester.streams.rates import RateError
from p4tester.streams.shapes import TrafficShape
from p4tester.targets.tofino.apps import check_generator_load, pipe_timer, plan_apps
from p4tester.targets.tofino.poisson import DRAWS, ThinnedTimer, thinned_timer
from p4tester.targets.tofino.rates import TimerSchedule, burst_schedule
from p4tester.targets.tofino.shaping import plan_shaped

RUN = "TesterIngress.generator.run"
POISSON = TrafficShape.parse("poisson")  # grid 4
# Two 10-Mbit/s ports in pipes 0 and 1 (1/0 and 9/0): stream 0 (TX 1/0) Poisson,
# stream 1 (TX 9/0) smooth; both applications run in both generators. 0.2 of 10 Mbit/s
# at 64 B is 2976.19 frames/s, 1488.10 per pipe; a grid of 4 is 5952.38 packets/s per
# pipe: one every 168,000 ns (a whole number of 4-ns cycles), keeping 16,384 of the
# 65,536 draws (49,152 dropped): a mean of exactly the load.
SLOW_PORTS: dict[str, Any] = {
    **TOPOLOGY, "ports": {n: {"line_rate": "10Mbps", "front_panel": f"{n}/0"} for n in (1, 9)}}
CROSSED: dict[str, Any] = {
    **PROFILE, "streams": [{"id": 0, "tx_port": 1, "rx_port": 9},
                           {"id": 1, "tx_port": 9, "rx_port": 1}]}
SPEC = TrialSpec("shape", 0, 64, 0.2, 2.0, shapes=((0, POISSON),), shape_step_s=0.5)
GRID_NS = 168_000
LOAD_PPS = 2 * 1e9 / GRID_NS * 16_384 / DRAWS


def _kept_until(pipe: int, app: int, budget: int, seed: int = 24) -> tuple[int, int]:
    """Replays the fake's draws (a Random per pipe and application, seeded as it
    documents) over the grid from its first trigger at GRID_NS: the grid packets it
    takes to keep `budget`, and the tick of the last kept."""
    draws = random.Random(f"{seed}/{pipe}/{app}")
    kept = packets = 0
    while kept < budget:
        packets += 1
        if draws.getrandbits(16) >= 49_152:
            kept += 1
    return packets, (packets * GRID_NS) >> 8


def test_a_poisson_stream_is_a_grid_thinned_by_the_draw_with_an_exact_budget() -> None:
    switch = ClockedSwitch(SLOW_PORTS, CROSSED)
    result = switch.runner().run_trial(SPEC)
    # The grid: one packet per trigger, every 168,000 ns, in each generator pipe.
    grids = [(pipe, data["timer_nanosec"], data["batch_count_cfg"], data["packets_per_batch_cfg"],
              data["ibg"], data["ipg"]) for _, pipe, data, action in switch.app_writes if action]
    assert grids == [(0, GRID_NS, 0, 0, 0, 0), (1, GRID_NS, 0, 0, 0, 0)]
    # The threshold comes with each pipe's run entry; the smooth stream's drops none.
    # The budget is the schedule's 4 steps of 0.5 s at the mean: 5952 frames, exact.
    armed = [(w.key["pipe_id"], w.key["app_id"], w.data) for w in switch.fake.writes_to(GEN_APPS)
             if w.action == RUN]
    assert armed == [
        (0, 0, {"mcast_group": 1, "packet_budget": 2976, "drop_draws_below": 49_152}),
        (1, 0, {"mcast_group": 1, "packet_budget": 2976, "drop_draws_below": 49_152}),
        (0, 1, {"mcast_group": 2, "packet_budget": 2976, "drop_draws_below": 0}),
        (1, 1, {"mcast_group": 2, "packet_budget": 2976, "drop_draws_below": 0})]
    # Each pipe counted its share exactly; the last counted packet's tick is the one
    # the draws say: the dropped packets counted nothing and moved no tick.
    cell = switch.fake.registers[GENERATED][0]
    assert cell[MADE] == [2976, 2976, 0, 0]
    grid_packets = [_kept_until(pipe, 0, 2976) for pipe in (0, 1)]
    assert cell[LAST_TICK] == [grid_packets[0][1], grid_packets[1][1], 0, 0]
    # The generator made about 4 grid packets per frame, the rest dropped by the draw.
    assert all(3 * 2976 < packets < 5 * 2976 for packets, _ in grid_packets)
    # The schedule's rate is the mean the grid and threshold make, in every step.
    poisson, smooth = result.streams
    assert [s.intended_pps for s in poisson.rate_course] == [LOAD_PPS] * 4
    assert round(LOAD_PPS, 6) == 2976.190476
    assert smooth.rate_course == ()
    # Arrivals are random, so the measured steps are off the mean by chance (the
    # fake's draws: 3098.8 frames/s in step 0), within what the trial allows.
    assert [round(s.sent_pps or 0) for s in poisson.rate_course] == [3099, 2774, 2961, 3171]
    assert (result.valid, result.error) == (True, None)


def test_the_trial_allows_the_draws_their_chance_and_no_more(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The schedule's count variance (1 - the kept share, 0.75) is what lets the trial
    above pass: judged as an even stream's, the same draws are tester-limited."""
    shaped = plan_shaped(SPEC, _topology(), [(_stream(), 2976.190476)], {0: 64}, 2,
                         pipe_timer, _bursts)
    assert shaped is not None
    assert [(s.key, s.count_variance) for s in shaped.schedule.senders] == [(0, 0.75)]
    assert shaped.thinning == {0: 49_152}
    monkeypatch.setattr(ThinnedTimer, "count_variance", property(lambda self: 0.0))
    result = ClockedSwitch(SLOW_PORTS, CROSSED).runner().run_trial(SPEC)
    assert result.valid is False
    assert result.error == ("tester-limited: stream 0 offered 3099 frames/s in step 0 (from "
                            "0 s), not its 2976.19 (measured on the switch's clock over 0.20 s)")


def _topology() -> Topology:
    return topology_from_dict(SLOW_PORTS, "t.yaml")


def _stream() -> StreamConfig:
    return profile_from_dict(CROSSED, "p.yaml").streams[0]


def _bursts(pps: float, size: int, frames: int, ceiling: float) -> TimerSchedule:
    return burst_schedule(pps, size, frames, ceiling_pps=ceiling)


def test_the_threshold_takes_up_what_the_whole_cycle_grid_misses() -> None:
    """1000 frames/s with a grid of 3 in one pipe: the grid's ideal 333,333.3 ns is
    333,332 ns in whole cycles (3000.012 packets/s); keeping round(65536 x 1000 /
    3000.012) = 21,845 of the draws gives 999.9985 frames/s on average."""
    thinned = thinned_timer(1000.0, 64, 3, 1)
    grid_pps = 1e9 / 333_332
    mean = grid_pps * 21_845 / DRAWS
    assert thinned == ThinnedTimer(TimerSchedule(333_332, 1, 1, grid_pps, (mean - 1000) / 1000),
                                   DRAWS - 21_845)
    assert thinned.mean_pps == mean
    assert thinned.count_variance == 1 - 21_845 / DRAWS
    # Over 4 pipes each makes a quarter: a grid of 3 x 250 packets/s, 1,333,332 ns.
    quarter = thinned_timer(1000.0, 64, 3, 4)
    assert (quarter.timer.period_ns, quarter.drop_below) == (1_333_332, DRAWS - 21_845)


def test_a_grid_finer_than_the_shortest_timer_is_refused_with_the_fix() -> None:
    with pytest.raises(RateError, match=r"^Poisson arrivals of 5000000 frames/s with grid=4 are "
                       r"20000000 generator packets/s, over 1 generator pipe\(s\) one every "
                       r"50.0 ns in each, more often than the generator's shortest timer "
                       r"period \(100 ns; a Poisson grid is one packet per trigger, so that it "
                       r"stays even\): lower the load to at most 2500000 frames/s, the grid to "
                       r"at most 2, or send the stream from TX ports in more pipes$"):
        thinned_timer(5e6, 64, 4, 1)
    # No grid of 2 or more fits 8 Mframes/s in one pipe: the fix does not offer one.
    with pytest.raises(RateError, match=r"lower the load to at most 2500000 frames/s, or send "
                       r"the stream from TX ports in more pipes$"):
        thinned_timer(8e6, 64, 4, 1)
    thinned_timer(8e6, 64, 4, 4)  # 2 Mframes/s per pipe: a grid every 125 ns fits


def test_the_generators_load_counts_the_whole_grid() -> None:
    """2.5 Mframes/s of 1518 B with a grid of 4 in one pipe: the stream is 30.8 Gbit/s
    (L1) but the generator makes its 10 Mpackets/s grid, 123 Gbit/s: refused."""
    grid = thinned_timer(2.5e6, 1518, 4, 1)
    assert grid.timer.period_ns == 100
    with pytest.raises(ValueError, match=r"^step 0 of the shaped trial: pipe 0's packet "
                       r"generator would make 123.04 Gbit/s \(L1\) for its applications \(a "
                       r"Poisson stream's whole grid: the generator makes the packets its draw "
                       r"drops too; a smaller grid costs less\), above its 100 Gbit/s: lower "
                       r"the rates or use TX ports in more pipes$"):
        plan_apps({0: 2.5e6}, {0: bytes(1514)}, {0: 0}, steps={0: (grid.timer,)},
                  thinning={0: grid.drop_below})
    # The same stream with a grid of 2: 61.5 Gbit/s, which fits.
    halved = thinned_timer(2.5e6, 1518, 2, 1)
    (app,) = plan_apps({0: 2.5e6}, {0: bytes(1514)}, {0: 0}, steps={0: (halved.timer,)},
                       thinning={0: halved.drop_below})
    check_generator_load([app])
    assert (app.achieved_pps, app.mean_pps) == (5e6, 2.5e6)


def test_a_poisson_stream_shares_an_application_only_with_the_same_grid_and_load() -> None:
    grid = thinned_timer(1000.0, 64, 4, 1)
    finer = thinned_timer(1000.0, 64, 8, 1)
    smooth = pipe_timer(1000.0, 64, 1)
    template = bytes(60)
    apps = plan_apps({s: 1000.0 for s in range(5)}, {s: template for s in range(5)},
                     {s: 0 for s in range(5)},
                     steps={0: (grid.timer,), 1: (grid.timer,), 2: (finer.timer,),
                            3: (smooth,)},
                     thinning={0: grid.drop_below, 1: grid.drop_below, 2: finer.drop_below})
    # 0 and 1 share (the same draws copied to both); the finer grid, the shaped smooth
    # stream and the constant one each have their own.
    assert [(a.stream_ids, a.drop_below, a.schedule.period_ns) for a in apps] == [
        ((0, 1), 49_152, 250_000), ((2,), 57_344, 125_000), ((3,), 0, 1_000_000),
        ((4,), 0, 1_000_000)]
    assert [a.mean_pps for a in apps] == [1000.0, 1000.0, 1000.0, 1000.0]


def test_a_thinned_stream_that_is_not_a_grid_is_refused() -> None:
    batch = pipe_timer(29_761_904.76, 64, 1)  # 5 packets every 168 ns
    assert (batch.period_ns, batch.packets_per_batch) == (168, 5)
    with pytest.raises(ValueError, match=r"^stream 0 is thinned \(Poisson arrivals\); its step "
                       r"timer makes 1 x 5 packets per trigger, not one: time it with "
                       r"poisson.thinned_timer$"):
        plan_apps({0: 1e6}, {0: bytes(60)}, {0: 0}, steps={0: (batch,)}, thinning={0: 49_152})
    grid = thinned_timer(1000.0, 64, 4, 1)
    with pytest.raises(ValueError, match=r"^streams \[0\] are thinned but have no step timers"):
        plan_apps({0: 1000.0}, {0: bytes(60)}, {0: 0}, thinning={0: 49_152})
    with pytest.raises(ValueError, match=r"^stream 0: drop_below 65536 must be in 1..65535"):
        plan_apps({0: 1000.0}, {0: bytes(60)}, {0: 0}, steps={0: (grid.timer,)},
                  thinning={0: DRAWS})
    with pytest.raises(ValueError, match=r"^streams \[0\] are both thinned and sent in bursts"):
        plan_apps({0: 1000.0}, {0: bytes(60)}, {0: 0},
                  steps={0: (TimerSchedule(4000, 1, 4, 1e6, 0.0),)}, bursts={0: 4},
                  thinning={0: 49_152})


def test_the_fake_drops_the_packets_whose_draw_is_below_the_threshold() -> None:
    """The fake's draw model: one seeded draw per packet in order, a draw below
    drop_draws_below drops the packet uncounted, the budget counts the rest."""
    fake = _thinning_fake()
    draws = random.Random("7/2/3")
    kept_at = [n for n in range(1, 40) if draws.getrandbits(16) >= 32_768]
    # In steps of 3 us or at once: the same draws, the same count and tick.
    for clock_ns in range(3000, 40_001, 3000):
        fake.advance_to(clock_ns)
        assert fake.registers[GENERATED][3][MADE][2] == min(
            5, sum(1 for n in kept_at if n * 1000 <= clock_ns))
    assert fake.registers[GENERATED][3][LAST_TICK][2] == kept_at[4] * 1000 >> 8
    assert fake.dropped[2, 3] == 39 - len(kept_at)
    once = _thinning_fake()
    once.advance_to(39_000)
    assert once.registers[GENERATED][3] == fake.registers[GENERATED][3]
    # Another seed, other draws: the counts are the seed's, not fixed by the model.
    other = _thinning_fake(seed=8)
    other.advance_to(39_000)
    assert other.dropped != fake.dropped


def _thinning_fake(seed: int = 7) -> FakeBfrt:
    """Application 3 in pipe 2: one packet every 1000 ns from 0, half of the draws
    dropped, a budget of 5."""
    fake = FakeBfrt(seed=seed)
    fake.add_entry(GEN_APPS, {"pipe_id": 2, "app_id": 3},
                   {"mcast_group": 4, "packet_budget": 5, "drop_draws_below": 32_768},
                   action=RUN)
    fake.modify_entry(APP_CFG, {"app_id": 3}, {
        "timer_nanosec": 1000, "pkt_len": 60, "pkt_buffer_offset": 0,
        "pipe_local_source_port": 68, "increment_source_port": False, "batch_count_cfg": 0,
        "packets_per_batch_cfg": 0, "ibg": 0, "ibg_jitter": 0, "ipg": 0,
        "ipg_jitter": 0}, action="trigger_timer_periodic", pipe=2)
    fake.modify_entry(APP_CFG, {"app_id": 3}, {"app_enable": True}, pipe=2)
    return fake
