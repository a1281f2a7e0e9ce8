"""Traffic shapes on Tofino (issue 24, item 5), against the fake switch: the timers a
shaped trial writes at each step, the rates the schedule records, the exact budget,
and what is refused. No Tofino hardware or model here: what the generator does while
its timer changes is not tested (targets.tofino.pktgen says what is known of it)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from test_targets_tofino_runner import GEN_APPS, PROFILE, TOPOLOGY, Switch
from tofino_fake import GENERATED, LAST_TICK, MADE, FakeBfrt

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import topology_from_dict
from p4tester.experiments.runner import TrialSpec
from p4tester.p4rt import CounterValue
from p4tester.streams.rates import RateError
from p4tester.streams.shapes import TrafficShape
from p4tester.targets.tofino.apps import AppPlan, pipe_timer, plan_apps, retimed_apps
from p4tester.targets.tofino.bfrt import BfrtError, Data, Key
from p4tester.targets.tofino.driver import TofinoTarget
from p4tester.targets.tofino.hardware import pipe_of
from p4tester.targets.tofino.rates import TimerSchedule, burst_schedule
from p4tester.targets.tofino.runner import TofinoTrialRunner, target_from_config
from p4tester.targets.tofino.shaping import plan_shaped

APP_CFG = "tf1.pktgen.app_cfg"
RX_STREAM = "pipe.TesterIngress.checker.rx_stream"
LATENCY_SUM = "pipe.TesterIngress.checker.latency_sum.cells"
LATENCY_SUM_LO = "TesterIngress.checker.latency_sum.cells.lo"
LATENCY_SUM_HI = "TesterIngress.checker.latency_sum.cells.hi"
LATENCY_NS = 1500
SQUARE = TrafficShape.parse("square,period=2,amplitude=0.5")
# 2 s at 0.2 of 100G line rate (29,761,904.76 frames/s of 64 B), steps of 0.5 s: the
# square wave is 1.5 x the load for 1 s, then 0.5 x.
SPEC = TrialSpec("shape", 0, 64, 0.2, 2.0, shapes=((0, SQUARE),), shape_step_s=0.5)
HIGH_PPS = 5 / 112e-9  # 1.5 x the load: 5 packets every 112 ns (140 cycles)
LOW_PPS = 5 / 336e-9  # 0.5 x: 5 packets every 336 ns
# The shaped stream's frames per step, cumulatively rounded from those rates.
STEP_FRAMES = (22_321_429, 22_321_428, 7_440_476, 7_440_477)


class ClockedSwitch(Switch):
    """The generators make their budgets only when the trial's 2 s are over, so the
    trial loop steps through the schedule; each app_cfg write is logged with the time."""

    def __init__(self, topology: dict[str, Any] = TOPOLOGY,
                 profile: dict[str, Any] = PROFILE) -> None:
        super().__init__()
        self.topology, self.profile = topology, profile
        self.app_writes: list[tuple[float, int | None, Data, str | None]] = []
        self.target: TofinoTarget | None = None
        modify = self.fake.modify_entry

        def logged(table: str, key: Key, data: Data, *, action: str | None = None,
                   pipe: int | None = None) -> None:
            modify(table, key, data, action=action, pipe=pipe)
            if table == APP_CFG and key["app_id"] == 0:
                self.app_writes.append((round(self.now, 9), pipe, dict(data), action))

        self.fake.modify_entry = logged  # type: ignore[method-assign]

    def sleep(self, seconds: float) -> None:
        """The generators run (the fake's timer model) and the DUT hands every frame
        back at once, each after LATENCY_NS: a stream's RX is its application's packets."""
        self.now += seconds
        self.slept.append(seconds)
        self.fake.advance_to(round(self.now * 1e9))
        if self.target is None:
            return
        made = self.fake.registers[GENERATED]
        rx_ports = {s["id"]: s["rx_port"] for s in self.profile["streams"]}
        for app in self.target.apps:
            frames = sum(made.get(app.app_id, {}).get(MADE, [0]))
            for stream in app.stream_ids:
                pipe = pipe_of(self.target.dev_ports[rx_ports[stream]])
                cells = self.fake.counters[RX_STREAM].setdefault(stream,
                                                                 [CounterValue(0, 0)] * 4)
                cells[pipe] = CounterValue(frames, 0)
                for name, value in ((LATENCY_SUM_LO, frames * LATENCY_NS % (1 << 32)),
                                    (LATENCY_SUM_HI, frames * LATENCY_NS >> 32)):
                    self.fake.set_register(LATENCY_SUM, stream, name,
                                           [value if p == pipe else 0 for p in range(4)])

    def runner(self) -> TofinoTrialRunner:
        topology = topology_from_dict(self.topology, "t.yaml")
        profile = profile_from_dict(self.profile, "p.yaml")
        self.target = target_from_config(self.fake, topology, profile)
        runner = TofinoTrialRunner(self.target, topology, profile, sleep=self.sleep,
                                   clock=lambda: self.now, run_value=0xC4)
        runner.open()
        return runner


def _timers(writes: list[tuple[float, int | None, Data, str | None]],
            ) -> list[tuple[float, int | None, object, object]]:
    """(time, pipe, timer_nanosec, packets_per_batch_cfg) of the configuring writes."""
    return [(at, pipe, data["timer_nanosec"], data["packets_per_batch_cfg"])
            for at, pipe, data, action in writes if action is not None]


def test_a_shaped_stream_moves_its_application_to_each_steps_timer() -> None:
    switch = ClockedSwitch()
    result = switch.runner().run_trial(SPEC)
    # Stream 0 (shaped) and stream 1 (constant) have different courses: applications 0
    # and 1. Application 0 starts at 5 packets / 112 ns and moves to 5 / 336 ns when
    # step 2 falls due at 1.0 s; steps 1 and 3 keep their step's timer: no write.
    assert _timers(switch.app_writes) == [(0.0, 0, 112, 4), (1.0, 0, 336, 4)]
    retime = [data for _, _, data, action in switch.app_writes if action is not None][1]
    # The whole configuration again (a modify with the action zeroes what it leaves
    # out), neither the enable bit nor the counters: the application keeps running.
    assert retime == {"timer_nanosec": 336, "pkt_len": 60, "pkt_buffer_offset": 0,
                      "pipe_local_source_port": 68, "increment_source_port": False,
                      "batch_count_cfg": 0, "packets_per_batch_cfg": 4, "ibg": 0,
                      "ibg_jitter": 0, "ipg": 0, "ipg_jitter": 0}
    app = switch.fake.entries(APP_CFG, pipe=0)[0].data
    assert (app["pkt_len"], app["timer_nanosec"], app["app_enable"]) == (60, 336, False)
    constant = switch.fake.entries(APP_CFG, pipe=0)[1].data
    assert (constant["timer_nanosec"], constant["packets_per_batch_cfg"]) == (168, 4)
    # The schedule's intended rates are what the timers make.
    shaped, steady = result.streams
    assert [s.intended_pps for s in shaped.rate_course] == [HIGH_PPS, HIGH_PPS, LOW_PPS,
                                                            LOW_PPS]
    assert [s.start_s for s in shaped.rate_course] == [0.0, 0.5, 1.0, 1.5]
    # Measured on the switch's clock: each poll's count and the tick of its last packet.
    # Step 0: the polls at 0.2 and 0.4 s, 1,785,714 and 3,571,428 triggers of 5 packets,
    # the last at 199,999,968 and 399,999,936 ns: 199,999 and 399,999 us (ticks of 256
    # ns, truncated), 8,928,570 frames in 0.2 s. Step 1 (polls at 0.7 and 0.9 s):
    # 700,000 us and 899,999 us, the same frames in 0.199999 s, 43 frames ahead of the
    # rate (the clock's microsecond). Step 2: the retime at 1.0 s keeps the trigger due
    # at 1,000,000,064 ns, then every 336 ns: the polls at 1.2 and 1.4 s see 595,238 and
    # 1,190,477 triggers since, the last at 1,199,999,696 and 1,400,000,000 ns: 2,976,195
    # frames in 0.200001 s; step 3 (1.7, 1.9 s): 2,976,190 in 0.2 s. The DUT hands
    # every frame back: received = sent.
    assert [(s.sent_pps, s.received_pps, s.measured_s, s.max_burst_frames)
            for s in shaped.rate_course] == [
        (44_642_850.0, 44_642_850.0, 0.2, 0),
        (8_928_570 / 0.199999, 8_928_570 / 0.199999, 0.199999, 43),
        (2_976_195 / 0.200001, 2_976_195 / 0.200001, 0.200001, 0),
        (14_880_950.0, 14_880_950.0, 0.2, 0)]
    # The trial proves its load on the switch's clock, as on BMv2 and eBPF.
    assert result.max_burst_frames == 43
    assert result.late_frames == 0
    assert result.offered_pps_measured is not None
    assert steady.rate_course == ()
    # Budgets: the shaped stream's frames are its steps' frames, to the frame.
    armed = {w.key["app_id"]: w.data["packet_budget"] for w in switch.fake.writes_to(GEN_APPS)
             if w.action == "TesterIngress.generator.run"}
    assert armed == {0: sum(STEP_FRAMES), 1: 59_523_810}
    assert sum(STEP_FRAMES) == 59_523_810
    # Offered: the shaped stream's mean (its budget over 2 s) and the constant one's rate.
    assert result.offered_pps == pytest.approx(59_523_810 / 2 + 5 / 168e-9, rel=1e-12)
    assert (result.valid, result.error) == (True, None)


TWO_PIPES: dict[str, Any] = {
    **TOPOLOGY, "ports": {n: {"line_rate": "100Gbps", "front_panel": f"{n}/0"} for n in (1, 9)}}
ALIKE: dict[str, Any] = {
    **PROFILE, "streams": [{"id": 0, "tx_port": 1, "rx_port": 9},
                           {"id": 1, "tx_port": 9, "rx_port": 1}]}


def test_streams_shaped_alike_share_an_application_that_moves_in_every_pipe() -> None:
    """TX ports in pipes 0 and 1 (1/0 and 9/0): the application runs in both, each
    making half of every step's rate, and each pipe's copy is moved."""
    switch = ClockedSwitch(TWO_PIPES, ALIKE)
    spec = TrialSpec("shape", 0, 64, 0.2, 2.0, shapes=((0, SQUARE), (1, SQUARE)),
                     shape_step_s=0.5)
    result = switch.runner().run_trial(spec)
    # Half of 1.5 x the load per pipe: 5 packets every 224 ns; of 0.5 x: every 672 ns.
    assert _timers(switch.app_writes) == [(0.0, 0, 224, 4), (0.0, 1, 224, 4),
                                          (1.0, 0, 672, 4), (1.0, 1, 672, 4)]
    assert [s.intended_pps for s in result.streams[0].rate_course] == [
        2 * 5 / 224e-9, 2 * 5 / 224e-9, 2 * 5 / 672e-9, 2 * 5 / 672e-9]
    assert result.streams[1].rate_course == result.streams[0].rate_course
    # One application, one budget split over its pipes.
    armed = [(w.key, w.data) for w in switch.fake.writes_to(GEN_APPS)
             if w.action == "TesterIngress.generator.run"]
    # Nothing thinned: drop_draws_below 0 keeps every packet.
    assert armed == [({"pipe_id": pipe, "app_id": 0}, {"mcast_group": 1,
                                                       "packet_budget": 29_761_905,
                                                       "drop_draws_below": 0})
                     for pipe in (0, 1)]
    # Both streams' rates, all pipes together (each stream is the application's packets).
    assert result.offered_pps == pytest.approx(2 * 59_523_810 / 2, rel=1e-12)


def test_a_constant_trial_over_two_pipes_offers_every_pipes_share() -> None:
    """The offered load is each stream's whole rate (both generators), not one pipe's."""
    switch = Switch()
    topology = topology_from_dict(TWO_PIPES, "t.yaml")
    profile = profile_from_dict(ALIKE, "p.yaml")
    runner = TofinoTrialRunner(target_from_config(switch.fake, topology, profile), topology,
                               profile, sleep=switch.sleep, clock=lambda: switch.now)
    runner.open()
    result = runner.run_trial(TrialSpec("throughput", 0, 64, 0.5, 1.0))
    # Half of 74.4 Mpps per pipe: 25 packets every 672 ns in each of 2 pipes, 2 streams.
    assert result.offered_pps == pytest.approx(2 * 2 * 25 / 672e-9, rel=1e-12)


def test_a_step_that_overloads_the_generator_is_refused_before_the_trial() -> None:
    """Stream 0's sawtooth starts at 0.625 x its load and ends at 1.375 x: its first
    step fits pipe 0's generator beside stream 1, its last (1.069 x line rate) does not."""
    switch = ClockedSwitch()
    spec = TrialSpec("shape", 0, 64, 0.45, 2.0,
                     shapes=((0, TrafficShape.parse("sawtooth,period=2,amplitude=0.5")),),
                     shape_step_s=0.5)
    with pytest.raises(ValueError, match=r"^step 3 of the shaped trial: pipe 0's packet "
                       r"generator would make 106.875 Gbit/s "
                       r"\(L1\) for its applications, above its 100 Gbit/s: lower the rates "
                       r"or use TX ports in more pipes$"):
        switch.runner().run_trial(spec)
    assert _timers(switch.app_writes) == []  # nothing was configured


def test_a_trough_of_no_traffic_is_sent_at_one_frame_per_second() -> None:
    """A square wave of amplitude 1 asks for nothing in its second half: as on BMv2
    and eBPF the step runs at 1 frame/s, one packet a second from the one pipe."""
    topology = topology_from_dict(TOPOLOGY, "t.yaml")
    profile = profile_from_dict(PROFILE, "p.yaml")
    stream = profile.streams[0]
    spec = TrialSpec("shape", 0, 64, 0.2, 2.0,
                     shapes=((0, TrafficShape.parse("square,period=2,amplitude=1")),),
                     shape_step_s=1.0)
    shaped = plan_shaped(spec, topology, [(stream, 29_761_904.76)], {0: 64}, 1,
                         lambda pps, size, pipes: pipe_timer(pps, size, pipes),
                         lambda pps, size, frames, ceiling: burst_schedule(pps, size, frames))
    assert shaped is not None
    low = TimerSchedule(1_000_000_000, 1, 1, 1.0, 0.0)
    assert shaped.steps[0][1] == low
    assert shaped.schedule.senders[0].rates_pps[1] == 1.0
    assert shaped.timers_at({0: 1.0}) == {0: low}
    with pytest.raises(ValueError, match=r"^stream 0: 2 frames/s is none of its steps' rates "
                       r"in this trial's schedule$"):
        shaped.timers_at({0: 2.0})


def _timer(period_ns: int) -> TimerSchedule:
    return TimerSchedule(period_ns, 1, 1, 1e9 / period_ns, 0.0)


def _plan(steps: dict[int, tuple[TimerSchedule, ...]], streams: int = 2) -> tuple[AppPlan, ...]:
    template = bytes(60)
    return plan_apps({s: 1000.0 for s in range(streams)}, {s: template for s in range(streams)},
                     {s: 0 for s in range(streams)}, steps=steps)


def test_streams_share_an_application_only_with_the_same_step_timers() -> None:
    course = (_timer(1_000_000), _timer(500_000))
    apps = _plan({0: course, 1: course}, streams=3)
    # Streams 0 and 1 step alike; stream 2 (constant at the same first rate) does not.
    assert [(a.stream_ids, a.steps, a.schedule) for a in apps] == [
        ((0, 1), course, course[0]), ((2,), (), _timer(1_000_000))]
    assert apps[0].rate_pps == 1000.0


def test_more_distinct_courses_than_applications_are_refused_with_the_fix() -> None:
    steps = {s: (_timer(1_000_000), _timer(400_000 + 4 * s)) for s in range(9)}
    with pytest.raises(ValueError, match=r"^these streams need 9 generator applications \(one "
                       r"per distinct rate and template; a shaped stream shares one only with "
                       r"streams of the same shape, load and frame, a Poisson one only with "
                       r"streams of the same grid, load and frame\) and Tofino 1 has 8: give "
                       r"streams the same rate \(shape\) and frame, shape fewer streams, or run "
                       r"fewer streams per trial$"):
        _plan(steps, streams=9)


def test_a_step_moves_every_stream_of_an_application_to_one_of_its_timers() -> None:
    course = (_timer(1_000_000), _timer(500_000))
    apps = _plan({0: course, 1: course})
    assert retimed_apps(apps, {0: course[0], 1: course[0]}) == ()  # the timer it has
    moved = retimed_apps(apps, {0: course[1], 1: course[1]})
    assert [(a.app_id, a.schedule) for a in moved] == [(0, course[1])]
    with pytest.raises(ValueError, match=r"^streams \[0, 1\] share generator application 0: "
                       r"give all of them one timer \(only streams shaped alike share an "
                       r"application\)$"):
        retimed_apps(apps, {0: course[1]})
    with pytest.raises(ValueError, match=r"^application 0 \(streams \[0, 1\]\) has no step "
                       r"timed 4000 ns x 1 packets: a shaped stream's step timers are "
                       r"planned with its rates \(plan_apps steps=...\)$"):
        retimed_apps(apps, {0: _timer(4000), 1: _timer(4000)})
    with pytest.raises(ValueError, match=r"^streams \[7\] are not generated in this trial"):
        retimed_apps(apps, {7: course[1]})


def test_the_fake_zeroes_what_a_configuring_modify_leaves_out_as_the_sde_does() -> None:
    """What makes the timer tests above mean something: a retime that wrote only the
    timer would zero the packet length, and pipe_mgr refuses that."""
    fake = FakeBfrt()
    with pytest.raises(BfrtError, match=r"packet length 0 is too small, must be at least 11"):
        fake.modify_entry(APP_CFG, {"app_id": 0}, {"timer_nanosec": 336},
                          action="trigger_timer_periodic", pipe=0)


def test_a_generator_slower_than_its_timer_is_caught_on_the_switchs_clock() -> None:
    """The offered-load proof runs on Tofino: a constant trial whose application
    really fires half as often as planned (its timer doubled behind the driver's
    back) offers half its rate, measured from the generator's ticks: tester-limited."""
    switch = ClockedSwitch()
    runner = switch.runner()
    original = switch.fake.advance_to

    def doubled(clock_ns: int) -> None:
        for (pipe, app), _ in list(switch.fake.next_trigger.items()):
            rows = switch.fake.tables[(APP_CFG, pipe)]
            for key, entry in rows.items():
                if entry.key["app_id"] == app and entry.data["timer_nanosec"] == 168:
                    rows[key] = replace(entry, data={**entry.data, "timer_nanosec": 336})
        original(clock_ns)

    switch.fake.advance_to = doubled  # type: ignore[method-assign]
    result = runner.run_trial(TrialSpec("throughput", 0, 64, 0.2, 1.0))
    assert result.valid is False
    # 5 packets every 336 ns instead of 168: about 14,880,952 frames/s over the polls
    # that saw the budget short (0.2 to 1.8 s; the clock's microseconds truncated).
    assert result.error == (
        "tester-limited: stream 0 offered 14880953 frames/s, not its 2.97619e+07 (measured "
        "on the switch's clock over 1.60 s); stream 1 offered 14880953 frames/s, not its "
        "2.97619e+07 (measured on the switch's clock over 1.60 s)")


BURSTS_32 = TrafficShape.parse("bursts,frames=32")
# 0.2 of 100G at 64 B is 29,761,904.76 frames/s: bursts of 32 every 1075.2 ns; the
# timer takes whole cycles (4 ns): 1076 ns, 29,739,776.95 frames/s (1072 would be
# 29,850,746.27, further off).
BURST_PPS = 32e9 / 1076


def test_a_bursts_stream_is_one_generators_batch_of_n_packets_back_to_back() -> None:
    """Stream 0 (TX 1/0, pipe 0) sends bursts of 32; stream 1 (TX 9/0, pipe 1) is smooth.
    The burst is one trigger's one batch of 32 packets, no gap, from pipe 0's generator
    only; the smooth stream's application runs in both pipes as before."""
    switch = ClockedSwitch(TWO_PIPES, ALIKE)
    spec = TrialSpec("shape", 0, 64, 0.2, 2.0, shapes=((0, BURSTS_32),), shape_step_s=0.5)
    result = switch.runner().run_trial(spec)
    configured = [(pipe, data) for _, pipe, data, action in switch.app_writes if action]
    assert configured == [(0, {
        "timer_nanosec": 1076, "pkt_len": 60, "pkt_buffer_offset": 0,
        "pipe_local_source_port": 68, "increment_source_port": False,
        "batch_count_cfg": 0, "packets_per_batch_cfg": 31, "ibg": 0, "ibg_jitter": 0,
        "ipg": 0, "ipg_jitter": 0, "app_enable": False, "batch_counter": 0,
        "pkt_counter": 0, "trigger_counter": 0})]
    # Enabled in pipe 0 only, and never retimed: the bursts' rate is the same each step.
    assert [(at, pipe, data) for at, pipe, data, action in switch.app_writes
            if not action and pipe is not None] == [(0.0, 0, {"app_enable": True}),
                                                    (2.1, 0, {"app_enable": False})]
    # The budget: the steps' frames at the timer's rate, cumulatively rounded, all in
    # pipe 0: round(2 s x 32e9 / 1076) = 59,479,554 = 1,858,736 bursts and 2 frames (a
    # short last burst, as on BMv2 and eBPF: ingress counts the budget per frame).
    armed = [(w.key, w.data) for w in switch.fake.writes_to(GEN_APPS)
             if w.action == "TesterIngress.generator.run"]
    assert armed == [
        ({"pipe_id": 0, "app_id": 0},
         {"mcast_group": 1, "packet_budget": 59_479_554, "drop_draws_below": 0}),
        ({"pipe_id": 0, "app_id": 1},
         {"mcast_group": 2, "packet_budget": 29_761_905, "drop_draws_below": 0}),
        ({"pipe_id": 1, "app_id": 1},
         {"mcast_group": 2, "packet_budget": 29_761_905, "drop_draws_below": 0})]
    made = switch.fake.registers[GENERATED][0][MADE]
    assert made == [59_479_554, 0, 0, 0]
    # Each step measured on the switch's clock: the polls at 0.2 and 0.4 s (and so on)
    # see 185,873 and 371,747 bursts, the last at 199,999,348 and 399,999,772 ns
    # (199,999 and 399,999 us): 185,874 x 32 = 5,947,968 frames in 0.2 s, 12 frames
    # ahead of the rate at a read (a read falls after a whole burst).
    bursty = result.streams[0]
    assert [(s.intended_pps, s.sent_pps, s.received_pps, s.measured_s, s.max_burst_frames)
            for s in bursty.rate_course] == [(BURST_PPS, 29_739_840.0, 29_739_840.0, 0.2, 12)] * 4
    assert (result.valid, result.error, result.max_burst_frames) == (True, None, 12)


def test_the_fake_makes_each_trigger_one_batch_at_its_gap() -> None:
    """The fake's generator model: triggers every timer_nanosec from enabling, batches
    of packets at ipg / ibg, the count capped by the budget, the tick of the last."""
    fake = FakeBfrt()
    fake.add_entry(GEN_APPS, {"pipe_id": 0, "app_id": 2}, {"mcast_group": 3,
                                                           "packet_budget": 10},
                   action="TesterIngress.generator.run")
    fake.modify_entry(APP_CFG, {"app_id": 2}, {
        "timer_nanosec": 10_000, "pkt_len": 60, "pkt_buffer_offset": 0,
        "pipe_local_source_port": 68, "increment_source_port": False, "batch_count_cfg": 1,
        "packets_per_batch_cfg": 2, "ibg": 1024, "ibg_jitter": 0, "ipg": 256,
        "ipg_jitter": 0}, action="trigger_timer_periodic", pipe=0)
    fake.modify_entry(APP_CFG, {"app_id": 2}, {"app_enable": True}, pipe=0)
    fake.advance_to(9_999)
    assert fake.registers[GENERATED].get(2, {}).get(MADE) is None  # no trigger yet
    # The first trigger at 10,000 ns: 2 batches of 3, the last at 10,000 + 1024 + 512.
    fake.advance_to(10_000)
    assert fake.registers[GENERATED][2][MADE] == [6, 0, 0, 0]
    assert fake.registers[GENERATED][2][LAST_TICK] == [11_536 >> 8, 0, 0, 0]
    # The second trigger's first 4 fit the budget of 10: the 4th, batch 1's first, at
    # 20,000 + 1024 ns.
    fake.advance_to(35_000)
    assert fake.registers[GENERATED][2][MADE] == [10, 0, 0, 0]
    assert fake.registers[GENERATED][2][LAST_TICK] == [21_024 >> 8, 0, 0, 0]


def test_bursts_faster_than_the_shortest_timer_are_refused_with_the_fix() -> None:
    with pytest.raises(RateError, match=r"^bursts of 2 frames at 29761904.76 frames/s come "
                       r"every 67.2 ns, more often than the generator's shortest timer period "
                       r"\(100 ns\): use bursts of at least 3 frames, or at most 20000000 "
                       r"frames/s$"):
        burst_schedule(29_761_904.76, 64, 2)


def test_bursts_slower_than_the_slowest_timer_are_refused_with_the_fix() -> None:
    with pytest.raises(RateError, match=r"^bursts of 63 frames at 10 frames/s come one every "
                       r"6.300 s, slower than the generator's slowest timer \(4.295 s\): "
                       r"raise the load to at least 14.6684 frames/s or use smaller bursts$"):
        burst_schedule(10.0, 64, 63)


def test_a_burst_timer_never_exceeds_the_streams_share_of_line_rate() -> None:
    """At line rate (148,809,523.8 frames/s of 64 B) bursts of 63 come every 423.36 ns:
    424 ns is the whole-cycle period that does not go above it (420 would)."""
    line = 100e9 / (84 * 8)
    timer = burst_schedule(line, 64, 63, ceiling_pps=line)
    assert (timer.period_ns, timer.batches, timer.packets_per_batch) == (424, 1, 63)
    assert timer.achieved_pps == 63e9 / 424


def test_bursts_on_a_port_faster_than_a_generator_are_refused_with_the_fix() -> None:
    topology = topology_from_dict({**TOPOLOGY, "ports": {
        1: {"line_rate": "400Gbps", "front_panel": "1/0"},
        2: {"line_rate": "100Gbps", "front_panel": "2/0"}}}, "t.yaml")
    stream = profile_from_dict(PROFILE, "p.yaml").streams[0]
    spec = TrialSpec("shape", 0, 64, 0.2, 2.0, shapes=((0, BURSTS_32),), shape_step_s=0.5)
    with pytest.raises(ConfigError, match=r"^stream 0: bursts on TX port 1 \(595238095 "
                       r"frames/s of 64 B at line rate\) would leave at one packet generator's "
                       r"148809524 frames/s, not back to back: send the bursts from a port "
                       r"of 100 Gbit/s or less, or send this stream smoothly$"):
        plan_shaped(spec, topology, [(stream, 119_047_619.0)], {0: 64}, 1,
                    lambda pps, size, pipes: pipe_timer(pps, size, pipes),
                    lambda pps, size, frames, ceiling: burst_schedule(pps, size, frames))


def test_a_bursts_streams_timers_must_make_its_burst_in_one_batch() -> None:
    smooth = pipe_timer(1000.0, 64, 1)
    with pytest.raises(ValueError, match=r"^stream 0 sends bursts of 32 frames, each one "
                       r"batch; its step timer makes 1 x 1 packets: time it with "
                       r"rates.burst_schedule$"):
        plan_apps({0: 1000.0}, {0: bytes(60)}, {0: 0}, steps={0: (smooth,)}, bursts={0: 32})
    with pytest.raises(ValueError, match=r"^streams \[0\] send bursts but have no step "
                       r"timers"):
        plan_apps({0: 1000.0}, {0: bytes(60)}, {0: 0}, bursts={0: 32})


def test_a_bursts_stream_shares_no_application_with_a_smooth_one_of_the_same_timer() -> None:
    """The same timer (a burst of 32 every 1076 ns) smooth over two pipes and as bursts
    from one generator are two applications: only the bursts' runs in one pipe."""
    timer = burst_schedule(BURST_PPS, 64, 32)
    apps = plan_apps({0: BURST_PPS, 1: BURST_PPS}, {0: bytes(60), 1: bytes(60)},
                     {0: 1, 1: 0}, steps={0: (timer,), 1: (timer,)}, bursts={0: 32})
    assert [(a.stream_ids, a.pipes, a.achieved_pps) for a in apps] == [
        ((0,), (1,), BURST_PPS), ((1,), (0, 1), 2 * BURST_PPS)]
