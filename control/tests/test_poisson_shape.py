"""Poisson arrivals (issue 24, item 5): the poisson shape (streams.shapes), what BMv2's
generator is told (a loop `grid` times faster, each pass drawn with probability
1/grid), how a trial allows its random count, and the targets that refuse it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import topology_from_dict
from p4tester.dataplane import names
from p4tester.dataplane.program import TesterDataplane, emit_threshold
from p4tester.experiments.runner import TrialSpec
from p4tester.p4rt import P4InfoSchema
from p4tester.results.model import RateStep
from p4tester.streams.shapes import ShapeError, ShapeKind, TrafficShape
from p4tester.tester.rate_course import course_not_offered
from p4tester.tester.stream_plan import plan_streams, port_shaping, shaped_plans

REPO = Path(__file__).resolve().parents[2]
TOPOLOGY = topology_from_dict({
    "name": "t", "switch": {"grpc": "127.0.0.1:9559", "thrift_port": 9090},
    "ports": {1: {"line_rate": "5Mbps"}, 2: {"line_rate": "5Mbps"}},
    "dut": {"kind": "loopback"}}, "t.yaml")
PROFILE = profile_from_dict({"name": "p", "streams": [
    {"id": 0, "tx_port": 1, "rx_port": 2}, {"id": 1, "tx_port": 2, "rx_port": 1}]}, "p.yaml")
POISSON = TrafficShape.parse("poisson")


def test_the_poisson_shape_reads_writes_and_says_its_variance() -> None:
    assert TrafficShape(ShapeKind.POISSON, poisson_grid=4) == POISSON
    assert POISSON.describe() == "poisson,grid=4"
    assert TrafficShape.parse("poisson,grid=16").passes_per_emit == 16
    # The count of n thinned passes is binomial: variance n (1 - 1/grid).
    assert POISSON.count_variance == 0.75
    assert TrafficShape().count_variance == 0.0
    assert TrafficShape().passes_per_emit == 1
    assert POISSON.highest == 1.0 and POISSON.frames_per_burst == 1


@pytest.mark.parametrize("text", ["poisson,grid=1", "poisson,grid=65", "poisson,grid=2.5"])
def test_a_grid_is_2_to_64_whole_passes(text: str) -> None:
    with pytest.raises(ShapeError, match=r"must be a whole number from 2 to 64 \(loop passes "
                                         r"per frame: the larger, the closer to exponential "
                                         r"gaps, and the more the generator works\)"):
        TrafficShape.parse(text)


def test_bmv2_runs_a_poisson_loop_grid_times_faster_one_frame_a_pass() -> None:
    # 20 % of 7440.48 frames/s: 1488 (4 x 372) for both; stream 0 drawn at random.
    spec = TrialSpec("t", 0, 64, 0.2, 2.0, shapes=((0, POISSON),), shape_step_s=1.0)
    plans, schedule = shaped_plans(plan_streams(PROFILE, TOPOLOGY, spec), TOPOLOGY, spec)
    assert [(p.rate_pps, p.frames_per_pass, p.passes_per_emit, p.loop_pps, p.budget)
            for p in plans] == [(1488, 1, 4, 5952, 2976), (1488, 4, 1, 372, 2976)]
    assert schedule is not None
    assert [(s.key, s.frames, s.count_variance) for s in schedule.senders] == [
        (0, (1488, 1488), 0.75)]
    # Its frames leave when their pass draws them: the port is not shaped for it.
    assert port_shaping(plans, headroom=0.0) == {1: 0, 2: 1488}


def test_the_generator_is_told_the_draws_threshold() -> None:
    assert [emit_threshold(k) for k in (1, 2, 4, 64)] == [0, 32768, 16384, 1024]

    class Recorder:
        def __init__(self) -> None:
            self.written: list[Any] = []

        def insert(self, entity: Any) -> None:
            self.written.append(entity)

    client = Recorder()
    schema = P4InfoSchema.from_text_file(REPO / "p4src/build/tester.p4info.txt")
    tester = TesterDataplane(client, schema)  # type: ignore[arg-type]
    tester.start_stream(3, 1000, passes_per_emit=4)
    tester.start_stream(4, 1000)
    action = schema.action(names.GEN_RUN)
    param = next(p.id for p in action.params if p.name == "emit_threshold")

    def threshold(entry: Any) -> int:
        value = next(p.value for p in entry.action.action.params if p.param_id == param)
        return int.from_bytes(value, "big")

    assert [threshold(entry) for entry in client.written] == [16384, 0]
    with pytest.raises(ValueError, match=r"passes per emitted frame 65 must be in 1\.\.64"):
        tester.start_stream(3, 1000, passes_per_emit=65)


def test_a_random_count_is_allowed_its_chance() -> None:
    # 1000 frames/s over 0.9 s: 900 due; a Poisson count's sd is sqrt(900 x 0.75) = 26,
    # so 4 sd = 104 frames more than the constant 2 % (18).
    short = RateStep(0.0, 1.0, 1000.0, sent_pps=(900 - 100) / 0.9, received_pps=0.0,
                     measured_s=0.9)
    assert course_not_offered(0, [short], 0.1, count_variance=0.75) == ""
    assert course_not_offered(0, [short], 0.1).startswith("stream 0 offered 889 frames/s")
    too_short = RateStep(0.0, 1.0, 1000.0, sent_pps=(900 - 130) / 0.9, received_pps=0.0,
                         measured_s=0.9)
    assert course_not_offered(0, [too_short], 0.1, count_variance=0.75).startswith(
        "stream 0 offered 856 frames/s")
    # In a 0.1-s read: 100 due, sd 8.7; 16 + 4 sd = 50 frames beyond the rate allowed.
    lumpy = RateStep(0.0, 1.0, 1000.0, 1000.0, 1000.0, 0.9, max_burst_frames=45)
    assert course_not_offered(0, [lumpy], 0.1, count_variance=0.75) == ""
    assert "45 frames beyond" in course_not_offered(0, [lumpy], 0.1)


def test_the_ebpf_tester_cannot_draw_per_frame_and_refuses_it_with_the_fix() -> None:
    """Tofino draws them (test_targets_tofino_poisson.py); the eBPF sender cannot."""
    from p4tester.targets.ebpf.trials import EbpfTrials

    spec = TrialSpec("t", 0, 64, 0.2, 2.0, shapes=((0, POISSON),))
    ebpf = EbpfTrials.__new__(EbpfTrials)
    ebpf.session = _Session()  # type: ignore[assignment]
    ebpf.whole = TOPOLOGY
    with pytest.raises(ConfigError, match=r"^streams \[0\]: Poisson arrivals are drawn frame "
                                          r"by frame in the generator, and the eBPF sender "
                                          r"paces templates in 1-ms slots; run them on BMv2, "
                                          r"or send the load smoothly or in bursts here$"):
        ebpf.arm(spec)


class _Session:
    profile = PROFILE
    topology = TOPOLOGY
