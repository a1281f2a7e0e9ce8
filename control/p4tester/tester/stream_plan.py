"""What each stream does in one trial on BMv2: its rate, its budget, and how many TX
frames one pass of its generator loop makes (issue 20: fewer passes per frame).

BMv2 paces a stream by the egress queue rate of its pacing port (whole frames per
second). A loop pass costs an ingress and an egress pass of the switch whatever it
makes; with k frames per pass (v1model/generator.p4) the loop runs at rate / k and
the TX port's queue, shaped to the streams' rates, spaces the k frames evenly. So a
stream at FRAMES_PER_PASS_FROM_PPS or more makes the profile's `trial: {frames_per_pass}`
(FRAMES_PER_PASS by default) frames per pass, its rate rounded to a multiple of it (at
most 0.2 % off there, reported as the offered rate); slower streams, whose passes cost
little, make one. With 1 everywhere the ports stay unshaped: the generator as it was
before issue 20 (the bench's "before").

Bursts (a trial of `frame_count` frames, RFC 2544 back-to-back) make one frame per
pass: they are short, at line rate, and their whole figure is how many frames went out
back to back; a shaped port that lets a stalled loop catch up only 2 % faster would
stretch a burst the DUT must see at line rate. A rate never rounds above the port's
line rate.

A stream with a bursts shape (streams.shapes, micro-bursts) makes its burst in one
pass: its frames per pass are the burst's frames, its loop runs at rate / burst, and
its TX port's queue is shaped to the port's line rate, so each burst leaves back to
back at line rate and the queue stays empty between bursts. The port's other streams
then leave their passes' frames at line rate too (still at their own rates).

A stream with a Poisson shape makes one frame per pass, and its loop runs `grid` times
faster than its rate: each pass sends with probability 1 / grid (a draw in the data
plane), its port unshaped, so its frames leave when their pass draws them. Its loop
costs the switch `grid` passes per frame: size its rate to the tester's capacity.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Final

from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.stream_rates import port_line_pps, stream_pps
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import REFERENCE_LOOP_PORT
from p4tester.dataplane.program import seeds_for_rate
from p4tester.experiments.runner import TrialSpec
from p4tester.streams.rates import BITS_PER_BYTE, IFG_BYTES, l1_frame_bits
from p4tester.tester.rate_schedule import RateSchedule, build_schedule

FRAMES_PER_PASS: Final = 4
FRAMES_PER_PASS_FROM_PPS: Final = 1000
# A TX port's queue lets the streams out this much faster than their rates together:
# a loop that fell behind (its switch not scheduled for a moment) catches up within
# the rate tolerance of the offered-load proof (tester.trial_course), never in a burst.
SHAPING_HEADROOM: Final = 0.02


@dataclass(frozen=True, slots=True)
class StreamPlan:
    """One stream in one trial: its rate (whole frames/s, a multiple of its frames per
    pass), its budget, and the TX frames each pass of its loop makes."""

    stream: StreamConfig
    rate_pps: int
    budget: int
    frames_per_pass: int = 1
    # A bursts shape's stream: its port's line rate (whole frames/s), at which its
    # passes' frames leave back to back; 0 for every other stream.
    burst_line_pps: int = 0
    # A Poisson shape's stream: loop passes per frame (each pass sends with probability
    # 1 / this); 1 for every other stream.
    passes_per_emit: int = 1

    @property
    def loop_pps(self) -> int:
        """The pacing rate of its loop: passes per second."""
        return self.rate_pps * self.passes_per_emit // self.frames_per_pass


def frames_per_pass(pps: float, configured: int = FRAMES_PER_PASS) -> int:
    """The frames per loop pass of a stream at `pps`, with the profile's setting."""
    return configured if pps >= FRAMES_PER_PASS_FROM_PPS else 1


def trial_streams(profile: Profile, topology: Topology,
                  spec: TrialSpec) -> tuple[tuple[StreamConfig, float], ...]:
    """The streams a trial runs and each one's frames/s: every stream at the spec's
    load x its share, or only the spec's `stream_loads`, each at its own load. Raises
    ValueError for a stream the profile does not have, or TX ports asked for more than
    their line rate together (more than the rate of the spec's gap, for RFC 2889's
    forward pressure: TrialSpec.inter_frame_gap_bits)."""
    if not spec.stream_loads:
        return tuple((stream, stream_pps(topology, stream, spec.frame_size,
                                         spec.offered_fraction))
                     for stream in profile.streams)
    by_id = {stream.id: stream for stream in profile.streams}
    unknown = sorted(sid for sid, _ in spec.stream_loads if sid not in by_id)
    if unknown:
        raise ValueError(f"trial {spec.experiment}#{spec.trial_index} asks for streams "
                         f"{unknown}; the profile has {sorted(by_id)}")
    port_loads: dict[int, float] = defaultdict(float)
    port_most: dict[int, float] = {}
    chosen = []
    for sid, load in spec.stream_loads:
        stream = by_id[sid]
        port_loads[stream.tx_port] += load
        size = stream.size_in(spec.frame_size)
        port_most[stream.tx_port] = min(port_most.get(stream.tx_port, math.inf),
                                        spec.most_load(size))
        chosen.append((stream, load * port_line_pps(topology, stream, spec.frame_size)))
    over = {port: load for port, load in port_loads.items() if load > port_most[port] + 1e-9}
    if over:
        worst = max(over, key=lambda port: over[port] - port_most[port])
        raise ValueError(f"trial {spec.experiment}#{spec.trial_index}: TX ports "
                         f"{sorted(over)} asked for {over[worst]:.4f} of line rate "
                         f"together, above {port_most[worst]:.4f}; lower the streams' loads")
    return tuple(chosen)


def plan_streams(profile: Profile, topology: Topology, spec: TrialSpec) -> tuple[StreamPlan, ...]:
    plans = []
    shapes = dict(spec.shapes)
    for stream, pps in trial_streams(profile, topology, spec):
        configured = 1 if spec.frame_count else profile.trial.frames_per_pass
        burst = shapes[stream.id].frames_per_burst if stream.id in shapes else 1
        passes = shapes[stream.id].passes_per_emit if stream.id in shapes else 1
        # A Poisson stream's frames are single draws: one frame per pass.
        per_pass = burst if burst > 1 else 1 if passes > 1 else frames_per_pass(pps, configured)
        ceiling = stream_ceiling_pps(stream, topology, spec)
        rate = per_pass * max(1, round(pps / per_pass))
        if rate > ceiling and per_pass > 1:
            rate = per_pass * max(1, math.floor(ceiling / per_pass))
        budget = spec.frame_count or max(1, round(rate * spec.duration_s))
        line = burst_queue_pps(topology, stream, spec.frame_size) if burst > 1 else 0
        plans.append(StreamPlan(stream, rate, budget, per_pass, line, passes))
    return tuple(plans)


def burst_queue_pps(topology: Topology, stream: StreamConfig, frame_size: int,
                    gap_bytes: int = IFG_BYTES) -> int:
    """The queue rate (whole frames/s, never above line rate) at which a bursts
    stream's TX port lets its bursts out: back to back, or `gap_bytes` apart (an OTG
    burst's gap, at least the standard 12)."""
    frame_bits = l1_frame_bits(stream.size_in(frame_size))
    slot_bits = frame_bits + (gap_bytes - IFG_BYTES) * BITS_PER_BYTE
    return math.floor(port_line_pps(topology, stream, frame_size) * frame_bits / slot_bits)


def shaped_plans(plans: tuple[StreamPlan, ...], topology: Topology,
                 spec: TrialSpec) -> tuple[tuple[StreamPlan, ...], RateSchedule | None]:
    """The plans of a shaped trial (spec.shapes) and its schedule: a shaped stream keeps
    its frames per pass, starts at its first step's rate and sends its steps' frames;
    each step's rate a multiple of its frames per pass, within its share of line rate.
    Unchanged plans and None for a trial without shapes."""
    by_id = {plan.stream.id: plan for plan in plans}

    def send_rate(sid: int, pps: float, ceiling: float) -> int:
        per_pass = by_id[sid].frames_per_pass
        most = per_pass * max(1, math.floor(ceiling / per_pass))
        return min(most, per_pass * max(1, round(pps / per_pass)))

    schedule = trial_schedule(spec, topology, [(p.stream, float(p.rate_pps)) for p in plans],
                              send_rate)
    if schedule is None:
        return plans, None
    shaped = {s.key: s for s in schedule.senders}
    # send_rate made each step's rate whole: int() keeps it the plan's type.
    return tuple(replace(plan, rate_pps=int(shaped[plan.stream.id].rates_pps[0]),
                         budget=shaped[plan.stream.id].budget)
                 if plan.stream.id in shaped else plan for plan in plans), schedule


def trial_schedule(spec: TrialSpec, topology: Topology,
                   chosen: Iterable[tuple[StreamConfig, float]],
                   send_rate: Callable[[int, float, float], float]) -> RateSchedule | None:
    """A shaped trial's schedule (tester.rate_schedule), None without shapes: the
    spec's shapes around the trial's streams' rates (`chosen`, stream and frames/s),
    within each one's share of line rate. `send_rate(id, pps, ceiling)`: the rate the
    target sends for pps. Raises ValueError for a shaped stream the trial does not run."""
    if not spec.shapes:
        return None
    rates = {stream.id: (stream, pps) for stream, pps in chosen}
    shapes = dict(spec.shapes)
    unknown = sorted(set(shapes) - set(rates))
    if unknown:
        raise ValueError(f"trial {spec.experiment}#{spec.trial_index} shapes streams {unknown}; "
                         f"it runs {sorted(rates)}")
    ceilings = {sid: stream_ceiling_pps(rates[sid][0], topology, spec) for sid in shapes}
    return build_schedule(shapes, {sid: rates[sid][1] for sid in shapes}, ceilings,
                          spec.duration_s, spec.shape_step_s,
                          lambda sid, pps: send_rate(sid, pps, ceilings[sid]))


def seed_queue_leads(schedule: RateSchedule, plans: Iterable[StreamPlan]) -> tuple[float, ...]:
    """How far ahead of its start each step of a shaped trial is applied on BMv2
    (RateSchedule.leads_s). BMv2 gives a frame in an egress queue its departure time
    when it enters: a loop's seeds, queued at a slow step's spacing, leave at that
    spacing after the rate went up. A faster step is applied ahead by the time they
    take to leave, at most half the step before it (which is still applied and
    measured). Measured without: 2800-3000 of 3200 frames/s in the step after one of
    800, with 20 seeds."""
    per_pass = {plan.stream.id: plan.frames_per_pass for plan in plans}
    leads = [0.0]
    for step in range(1, len(schedule.steps)):
        lead = max((seeds_for_rate(s.peak_pps // per_pass[s.key])
                    / max(1, s.rates_pps[step - 1] // per_pass[s.key])
                    for s in schedule.senders if s.rates_pps[step] > s.rates_pps[step - 1]),
                   default=0.0)
        leads.append(min(lead, schedule.steps[step - 1].duration_s / 2))
    return tuple(leads)


def stream_ceiling_pps(stream: StreamConfig, topology: Topology, spec: TrialSpec) -> float:
    """A stream's highest rate: its share of its port's line rate, or, with a load of
    its own, the port's (with the spec's gap: above line rate for RFC 2889's forward
    pressure, TrialSpec.inter_frame_gap_bits)."""
    return (port_line_pps(topology, stream, spec.frame_size, spec.inter_frame_gap_bits)
            if spec.stream_loads else stream_pps(topology, stream, spec.frame_size))


def port_shaping(plans: Iterable[StreamPlan], headroom: float = SHAPING_HEADROOM) -> dict[int, int]:
    """Each TX port's queue rate: where a stream makes several frames per pass, its
    streams' rates together with the headroom; elsewhere 0, unshaped (the port sends as
    fast as its streams' loops, a burst at line rate). A port with a bursts stream: its
    line rate, so the bursts leave back to back. Not the reference stream's loop
    port: its frames pass its queue twice, and leave none. A shaped trial gives no
    headroom: frames a faster step left in the queue would leave above the next
    step's rate (measured: 816 frames/s in a step of 800 after one of 3200)."""
    rates: dict[int, int] = defaultdict(int)
    batched: set[int] = set()
    line_rate: dict[int, int] = {}
    for plan in plans:
        port = plan.stream.tx_port
        if port != REFERENCE_LOOP_PORT:
            rates[port] += plan.rate_pps
            if plan.frames_per_pass > 1:
                batched.add(port)
            if plan.burst_line_pps:
                line_rate[port] = plan.burst_line_pps
    return {port: line_rate.get(port) or (math.ceil(rate * (1 + headroom)) if port in batched
                                          else 0)
            for port, rate in rates.items()}
