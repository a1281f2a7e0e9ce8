"""Which packet-generator application makes which streams (pure planning).

The data plane tells streams apart by the multicast replica (rid = stream id), not by
the template: streams with the same rate and the same template share one application,
whose packets are copied to each stream's TX port. Tofino 1 has 8 applications per
pipe, and the program numbers them globally (multicast group MCAST_GROUP_BASE + app).

An application runs in the generators of all the trial's TX pipes at once, each making
1/k of its rate (k pipes), and each copy of a generated packet may leave through any
pipe: so a pipe's ingress carries its received traffic plus only a k-th of the
generator packets (limits.py has the arithmetic). Egress numbers each stream's copies
as they leave, so copies made in different pipes share one sequence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p4tester.streams.frame_sizes import FCS_BYTES, FrameSizeError
from p4tester.streams.rates import format_bitrate, l1_frame_bits, validate_frame_size
from p4tester.targets.tofino import names
from p4tester.targets.tofino.hardware import CORE_CLOCK_HZ, PKTGEN_PORT_BPS
from p4tester.targets.tofino.rates import DEFAULT_TOLERANCE, TimerSchedule, timer_schedule


@dataclass(frozen=True, slots=True)
class AppPlan:
    """One generator application for a trial."""

    app_id: int
    pipes: tuple[int, ...]  # whose generators run it, each at rate_pps / len(pipes)
    stream_ids: tuple[int, ...]
    template: bytes  # the frame without FCS
    rate_pps: float  # requested, per stream
    schedule: TimerSchedule  # of each pipe's generator

    @property
    def mcast_group(self) -> int:
        return names.MCAST_GROUP_BASE + self.app_id

    @property
    def frame_size(self) -> int:
        return len(self.template) + FCS_BYTES

    @property
    def achieved_pps(self) -> float:
        """Packets per second of all its pipes together: each stream's rate."""
        return self.schedule.achieved_pps * len(self.pipes)


def plan_apps(
    rates_pps: Mapping[int, float],
    templates: Mapping[int, bytes],
    tx_pipes: Mapping[int, int],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    clock_hz: int = CORE_CLOCK_HZ,
) -> tuple[AppPlan, ...]:
    """Group streams (id -> rate) into applications; tx_pipes: stream -> its TX pipe."""
    groups: dict[tuple[float, bytes], list[int]] = {}
    for stream in sorted(rates_pps):
        if stream not in templates:
            raise ValueError(f"stream {stream} has a rate but no template: set_templates() "
                             "first, with the frame each stream sends")
        if stream not in tx_pipes:
            raise ValueError(f"stream {stream} is not one of the target's streams")
        try:
            validate_frame_size(len(templates[stream]) + FCS_BYTES)
        except FrameSizeError as exc:
            raise ValueError(f"stream {stream}: template of {len(templates[stream])} B (no "
                             f"FCS): {exc}") from exc
        groups.setdefault((float(rates_pps[stream]), templates[stream]), []).append(stream)
    if len(groups) > names.PKTGEN_APPS:
        raise ValueError(
            f"these streams need {len(groups)} generator applications (one per distinct rate "
            f"and template) and Tofino 1 has {names.PKTGEN_APPS}: give streams the same rate "
            "and frame, or run fewer streams per trial")
    pipes = tuple(sorted({tx_pipes[s] for s in rates_pps}))
    plans = []
    for app_id, ((rate, template), streams) in enumerate(groups.items()):
        schedule = timer_schedule(rate / len(pipes), len(template) + FCS_BYTES,
                                  tolerance=tolerance, clock_hz=clock_hz)
        plans.append(AppPlan(app_id, pipes, tuple(streams), template, rate, schedule))
    check_generator_load(plans)
    return tuple(plans)


def check_generator_load(plans: list[AppPlan]) -> None:
    """Each pipe's generator makes its share of all applications through one port."""
    load: dict[int, float] = {}
    for plan in plans:
        bits = plan.schedule.achieved_pps * l1_frame_bits(plan.frame_size)
        for pipe in plan.pipes:
            load[pipe] = load.get(pipe, 0.0) + bits
    for pipe, bps in sorted(load.items()):
        if bps > PKTGEN_PORT_BPS * (1 + 1e-9):
            raise ValueError(
                f"pipe {pipe}'s packet generator would make {format_bitrate(bps)} (L1) for its "
                f"applications, above its {format_bitrate(PKTGEN_PORT_BPS)}: lower the rates "
                "or use TX ports in more pipes")


def pipe_budgets(app: AppPlan, budget: int) -> dict[int, int]:
    """An application's packet budget split over its pipes (pipe -> packets): equal
    shares, the first pipes taking one more each until the remainder is used."""
    share, extra = divmod(budget, len(app.pipes))
    return {pipe: share + (1 if index < extra else 0) for index, pipe in enumerate(app.pipes)}


def app_budget(app: AppPlan, budgets: Mapping[int, int]) -> int:
    """The packet budget of an application: its streams share it, so they must agree."""
    wanted = {budgets.get(s) for s in app.stream_ids}
    budget = wanted.pop() if len(wanted) == 1 else None
    if budget is None:
        raise ValueError(f"streams {list(app.stream_ids)} share generator application "
                         f"{app.app_id} and so one packet budget; give each the same budget")
    if not 0 < budget < 1 << 32:
        raise ValueError(f"packet budget {budget} must be in 1..{(1 << 32) - 1}")
    return budget
