"""How a trial's streams are planned on BMv2 (tester.stream_plan): rates, budgets,
frames per loop pass and the TX ports' shaping (issue 20)."""

from __future__ import annotations

import pytest

from p4tester.bench.capacity import generator_passes
from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import topology_from_dict
from p4tester.experiments.runner import TrialSpec
from p4tester.streams.shapes import TrafficShape
from p4tester.tester.reference_stream import reference_stream
from p4tester.tester.stream_plan import (
    StreamPlan,
    frames_per_pass,
    plan_streams,
    port_shaping,
    seed_queue_leads,
    shaped_plans,
)

# 5 Mbit/s ports: 7440 frames/s at 64 B.
TOPOLOGY = topology_from_dict({
    "name": "t", "switch": {"grpc": "127.0.0.1:9559", "thrift_port": 9090},
    "ports": {1: {"line_rate": "5Mbps"}, 2: {"line_rate": "5Mbps"}},
    "dut": {"kind": "loopback"}}, "t.yaml")
PROFILE = profile_from_dict({"name": "p", "streams": [
    {"id": 0, "tx_port": 1, "rx_port": 2, "share": 0.5},
    {"id": 1, "tx_port": 1, "rx_port": 2, "share": 0.5},
    {"id": 2, "tx_port": 2, "rx_port": 1}]}, "p.yaml")


def test_fast_streams_make_four_frames_per_pass_slow_ones_one() -> None:
    assert [frames_per_pass(pps) for pps in (1.0, 999.4, 1000.0, 148_809_523.8)] == [1, 1, 4, 4]


def test_rates_are_whole_passes_and_budgets_exact() -> None:
    # 40.03 % of 7440: 1489.2 frames/s per half-share stream, 2978.2 for stream 2.
    plans = plan_streams(PROFILE, TOPOLOGY, TrialSpec("t", 0, 64, 0.4003, 2.0))
    assert [(p.stream.id, p.rate_pps, p.frames_per_pass, p.loop_pps, p.budget)
            for p in plans] == [(0, 1488, 4, 372, 2976), (1, 1488, 4, 372, 2976),
                                (2, 2980, 4, 745, 5960)]
    # 10 %: 372 and 744 frames/s, below the batching rate for the half shares.
    plans = plan_streams(PROFILE, TOPOLOGY, TrialSpec("t", 1, 64, 0.1, 1.0))
    assert [(p.rate_pps, p.frames_per_pass, p.budget) for p in plans] == [
        (372, 1, 372), (372, 1, 372), (744, 1, 744)]


def test_bursts_make_one_frame_per_pass_and_no_rate_rounds_above_line_rate() -> None:
    # A burst at line rate: 7440.48 frames/s for stream 2, one frame per pass, unshaped.
    plans = plan_streams(PROFILE, TOPOLOGY, TrialSpec("t", 1, 64, 1.0, 1.0, frame_count=100))
    assert [(p.rate_pps, p.frames_per_pass, p.budget) for p in plans] == [
        (3720, 1, 100), (3720, 1, 100), (7440, 1, 100)]
    assert port_shaping(plans) == {1: 0, 2: 0}  # unshaped: whatever a trial before set
    # 128 B at line rate is 4222.97 frames/s: 4 x round(1055.74) = 4224 would exceed it;
    # a half share, 2111.49: 2112 would too.
    plans = plan_streams(PROFILE, TOPOLOGY, TrialSpec("t", 2, 128, 1.0, 1.0))
    assert [(p.rate_pps, p.frames_per_pass) for p in plans] == [
        (2108, 4), (2108, 4), (4220, 4)]


def test_each_tx_port_is_shaped_to_its_streams_with_headroom() -> None:
    plans = plan_streams(PROFILE, TOPOLOGY, TrialSpec("t", 0, 64, 0.4003, 2.0))
    # Port 1: 1488 + 1488 = 2976, +2 % = 3035.52; port 2: 2980 +2 % = 3039.6.
    assert port_shaping(plans) == {1: 3036, 2: 3040}
    assert port_shaping(()) == {}
    # The reference stream's loop port carries its frames twice and sends none out.
    looped = reference_stream(PROFILE, 63)
    assert port_shaping((*plans, StreamPlan(looped, 100, 200))) == {1: 3036, 2: 3040}


def test_one_frame_per_pass_by_the_profile_is_the_generator_of_before() -> None:
    assert frames_per_pass(148_809_523.8, configured=1) == 1
    one = profile_from_dict({"name": "p", "trial": {"frames_per_pass": 1}, "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2}]}, "p.yaml")
    plans = plan_streams(one, TOPOLOGY, TrialSpec("t", 0, 64, 0.4003, 2.0))
    # round(0.4003 x 7440.48) = 2978: not a multiple of 4, one frame per pass, unshaped.
    assert [(p.rate_pps, p.frames_per_pass, p.loop_pps) for p in plans] == [(2978, 1, 2978)]
    assert port_shaping(plans) == {1: 0}


def test_the_bench_says_the_passes_per_tx_frame() -> None:
    assert generator_passes(1) == "1 ingress + 1 + 1 egress (1 frame per loop pass)"
    assert generator_passes(4) == "0.25 ingress + 0.25 + 1 egress (4 frames per loop pass)"


def test_streams_with_loads_of_their_own_run_alone_at_them() -> None:
    # Stream 1 alone at 25 % of port 1 (its share 0.5 does not apply): 1860.1 frames/s,
    # four per pass: 1860; stream 2 at 10 %: 744.05, one per pass.
    spec = TrialSpec("y1564", 0, 64, 0.25, 2.0, stream_loads=((1, 0.25), (2, 0.1)))
    plans = plan_streams(PROFILE, TOPOLOGY, spec)
    assert [(p.stream.id, p.rate_pps, p.frames_per_pass, p.budget) for p in plans] == [
        (1, 1860, 4, 3720), (2, 744, 1, 1488)]


def test_stream_loads_name_known_streams_within_line_rate() -> None:
    with pytest.raises(ValueError, match=r"asks for streams \[7\]; the profile has \[0, 1, 2\]"):
        plan_streams(PROFILE, TOPOLOGY, TrialSpec("y1564", 3, 64, 0.5, 1.0,
                                                  stream_loads=((7, 0.5),)))
    with pytest.raises(ValueError, match=r"TX ports \[1\] asked for 1.2000 of line rate"):
        plan_streams(PROFILE, TOPOLOGY, TrialSpec("y1564", 4, 64, 0.6, 1.0,
                                                  stream_loads=((0, 0.6), (1, 0.6))))
    with pytest.raises(ValueError, match=r"stream loads name a stream twice"):
        TrialSpec("y1564", 5, 64, 0.5, 1.0, stream_loads=((0, 0.2), (0, 0.3)))
    with pytest.raises(ValueError, match=r"stream 0's load 1.5000 of line rate must be in"):
        TrialSpec("y1564", 6, 64, 0.5, 1.0, stream_loads=((0, 1.5),))


def _shaped(pps: float, shape: str, step_s: float) -> tuple[tuple[StreamPlan, ...], object]:
    spec = TrialSpec("shape", 0, 64, pps / (5e6 / (84 * 8)), 4.0,
                     shapes=((2, TrafficShape.parse(shape)),), shape_step_s=step_s)
    return shaped_plans(plan_streams(PROFILE, TOPOLOGY, spec), TOPOLOGY, spec)


def test_a_shaped_stream_steps_in_whole_passes_and_keeps_its_frames() -> None:
    plans, schedule = _shaped(2000, "square,period=4,amplitude=0.6", 1.0)
    assert schedule is not None
    (sender,) = schedule.senders
    assert sender.rates_pps == (3200, 3200, 800, 800)
    assert sender.frames == (3200, 3200, 800, 800)
    shaped = plans[2]
    # It starts at its first step's rate, sends its steps' frames, 4 per pass.
    assert (shaped.rate_pps, shaped.budget, shaped.frames_per_pass) == (3200, 8000, 4)
    assert [p.rate_pps for p in plans[:2]] == [1000, 1000]  # the others: unshaped


def test_a_faster_step_is_applied_ahead_by_its_seeds_leaving_time() -> None:
    plans, schedule = _shaped(2000, "square,period=2,amplitude=0.6", 1.0)
    assert schedule is not None
    # 20 seeds (25 ms at the peak's 800 passes/s) queued at 200 passes/s: 0.1 s.
    assert seed_queue_leads(schedule, plans) == (0.0, 0.0, 0.1, 0.0)
    plans, schedule = _shaped(1000, "square,period=2,amplitude=0.9", 0.5)
    assert schedule is not None
    # 12 seeds at 25 passes/s would take 0.48 s: at most half the 0.5-s step before.
    assert schedule.senders[0].rates_pps == (1900, 1900, 100, 100, 1900, 1900, 100, 100)
    assert seed_queue_leads(schedule, plans) == (0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0)


def test_a_shape_above_the_streams_line_rate_is_refused() -> None:
    with pytest.raises(ValueError, match=r"stream 2: the shape square,period=4,amplitude=0.6 "
                                         r"peaks at 1.6 x its load of 6000 frames/s = 9600 "
                                         r"frames/s, above its 7440 frames/s of line rate; "
                                         r"lower the load to at most 4650 frames/s"):
        _shaped(6000, "square,period=4,amplitude=0.6", 1.0)


def test_only_a_shorter_gap_lets_a_port_above_line_rate_by_exactly_that_gap() -> None:
    # RFC 2889 forward pressure: 88-bit gaps on 5 Mbit/s at 64 B are 5e6 / 664 =
    # 7530.12 frames/s, 84/83 of line rate; 4 x round(1882.53) = 7532 would exceed it.
    over = 84 / 83
    spec = TrialSpec("fp", 0, 64, over, 2.0, stream_loads=((2, over),), inter_frame_gap_bits=88)
    (plan,) = plan_streams(PROFILE, TOPOLOGY, spec)
    assert (plan.rate_pps, plan.frames_per_pass, plan.budget) == (7528, 4, 15056)
    with pytest.raises(ValueError, match=r"offered load 1.0120 of line rate must be in \(0, 1\]"):
        TrialSpec("fp", 1, 64, over, 2.0, stream_loads=((2, over),))
    with pytest.raises(ValueError, match=r"in \(0, 1.01205\] with 88-bit gaps at 64 B"):
        TrialSpec("fp", 2, 64, 1.02, 2.0, stream_loads=((2, 1.02),), inter_frame_gap_bits=88)
    with pytest.raises(ValueError, match=r"inter-frame gap 80 bit times: the tester sends with 96"):
        TrialSpec("fp", 3, 64, 1.0, 2.0, inter_frame_gap_bits=80)
    # Two streams of port 1 may not share more than the gap's load either.
    with pytest.raises(ValueError, match=r"asked for 1.0200 of line rate together, above 1.0120"):
        plan_streams(PROFILE, TOPOLOGY, TrialSpec("fp", 4, 64, 0.51, 2.0,
                                                  stream_loads=((0, 0.51), (1, 0.51)),
                                                  inter_frame_gap_bits=88))
