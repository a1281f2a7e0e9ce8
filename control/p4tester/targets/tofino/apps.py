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

A shaped trial (issue 24, item 5) gives a shaped stream one timer per step (`steps`):
its application starts at the first and the driver moves it on while it runs. Streams
share an application only if every step's timer is the same (the same shape, load and
frame), so one retune never moves a stream that is not due to move.

A bursts shape's stream (micro-bursts) is the exception to running in every pipe: its
burst is one trigger's batch of N packets back to back, made by one generator (its TX
pipe's), so it leaves its TX port as one burst at the port's line rate. Split over k
generators it would be k bursts of N / k, at timers no one keeps in phase.

A Poisson stream's application runs a grid of one packet per trigger about K times
faster than the stream (poisson.py) and ingress drops the packets whose draw is below
its drop_below: it shares an application only with streams of the same grid timers and
threshold (the same grid, load and frame), whose arrivals are then the same draws
copied to each. The generator makes every packet of the grid, dropped or not, so the
load check counts the grid's rate, not the stream's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from p4tester.streams.frame_sizes import FCS_BYTES, FrameSizeError
from p4tester.streams.rates import format_bitrate, l1_frame_bits, validate_frame_size
from p4tester.targets.tofino import names
from p4tester.targets.tofino.hardware import CORE_CLOCK_HZ, PKTGEN_PORT_BPS
from p4tester.targets.tofino.poisson import DRAWS, KEEP_ALL
from p4tester.targets.tofino.rates import DEFAULT_TOLERANCE, TimerSchedule, timer_schedule


@dataclass(frozen=True, slots=True)
class AppPlan:
    """One generator application for a trial."""

    app_id: int
    pipes: tuple[int, ...]  # whose generators run it, each at rate_pps / len(pipes)
    stream_ids: tuple[int, ...]
    template: bytes  # the frame without FCS
    rate_pps: float  # requested, per stream (a shaped one's: its first step's)
    schedule: TimerSchedule  # of each pipe's generator, now
    # A shaped application's timer (each pipe's) in each step; () at a constant rate.
    steps: tuple[TimerSchedule, ...] = ()
    # Ingress drops its packets whose 16-bit draw is below this (Poisson arrivals:
    # poisson.py); KEEP_ALL (0) for every other application.
    drop_below: int = KEEP_ALL

    @property
    def mcast_group(self) -> int:
        return names.MCAST_GROUP_BASE + self.app_id

    @property
    def frame_size(self) -> int:
        return len(self.template) + FCS_BYTES

    @property
    def achieved_pps(self) -> float:
        """Packets per second its generators make, all its pipes together: each
        stream's rate, but for a thinned application's (mean_pps)."""
        return self.schedule.achieved_pps * len(self.pipes)

    @property
    def mean_pps(self) -> float:
        """Frames per second each of its streams gets on average: what its generators
        make less what the draw drops."""
        return self.achieved_pps * (DRAWS - self.drop_below) / DRAWS


def generator_pipes(tx_pipes: Mapping[int, int], stream_ids: Iterable[int]) -> tuple[int, ...]:
    """The pipes whose generators run the applications of these streams: every TX pipe
    of any of them (an application runs in all, each making its share)."""
    return tuple(sorted({tx_pipes[s] for s in stream_ids}))


def pipe_timer(rate_pps: float, frame_size: int, pipes: int, *,
               tolerance: float = DEFAULT_TOLERANCE,
               clock_hz: int = CORE_CLOCK_HZ,
               pktgen_bps: float = PKTGEN_PORT_BPS) -> TimerSchedule:
    """Each pipe's timer for a stream (or application) at rate_pps made by `pipes`
    generators together; the stream's rate is its achieved_pps x pipes."""
    return timer_schedule(rate_pps / pipes, frame_size, tolerance=tolerance, clock_hz=clock_hz,
                          pktgen_bps=pktgen_bps)


def plan_apps(
    rates_pps: Mapping[int, float],
    templates: Mapping[int, bytes],
    tx_pipes: Mapping[int, int],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    clock_hz: int = CORE_CLOCK_HZ,
    steps: Mapping[int, Sequence[TimerSchedule]] | None = None,
    bursts: Mapping[int, int] | None = None,
    thinning: Mapping[int, int] | None = None,
    apps_per_pipe: int = names.PKTGEN_APPS,
    pktgen_bps: float = PKTGEN_PORT_BPS,
    chip_label: str = "Tofino 1",
) -> tuple[AppPlan, ...]:
    """Group streams (id -> rate) into applications; tx_pipes: stream -> its TX pipe.
    `steps`: each shaped stream's timer (each pipe's, as pipe_timer gave it for the
    pipes generator_pipes names) in every step; it starts at the first, and its rate
    in rates_pps is ignored. `bursts`: the frames per burst of each bursts shape's
    stream (shaped, so in `steps`), whose timers are one generator's
    (rates.burst_schedule): its application runs in one pipe. `thinning`: the
    drop_below of each Poisson stream (shaped, so in `steps`, its timers one packet
    per trigger: poisson.thinned_timer)."""
    courses = {s: tuple(timers) for s, timers in (steps or {}).items()}
    burst_of = dict(bursts or {})
    drop_of = dict(thinning or {})
    _check_bursts(burst_of, courses)
    _check_thinning(drop_of, burst_of, courses)
    stray = sorted(set(courses) - set(rates_pps))
    if stray:
        raise ValueError(f"streams {stray} have step timers but no rate: give every shaped "
                         "stream a rate too (the trial's streams are those with one)")
    lengths = {len(timers) for timers in courses.values()}
    if 0 in lengths or len(lengths) > 1:
        raise ValueError("shaped streams step together: give each the same number of step "
                         "timers, at least one")
    groups: dict[tuple[bytes, float | tuple[TimerSchedule, ...], int, int], list[int]] = {}
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
        course = courses.get(stream, float(rates_pps[stream]))
        groups.setdefault((templates[stream], course, burst_of.get(stream, 1),
                           drop_of.get(stream, KEEP_ALL)), []).append(stream)
    if len(groups) > apps_per_pipe:
        raise ValueError(
            f"these streams need {len(groups)} generator applications (one per distinct rate "
            "and template; a shaped stream shares one only with streams of the same shape, "
            "load and frame, a Poisson one only with streams of the same grid, load and "
            f"frame) and {chip_label} has {apps_per_pipe}: give streams the same "
            "rate (shape) and frame, shape fewer streams, or run fewer streams per trial")
    pipes = generator_pipes(tx_pipes, rates_pps)
    plans = []
    for app_id, ((template, course, burst, drop_below), streams) in enumerate(groups.items()):
        if isinstance(course, tuple):
            # A burst is one generator's batch: the first TX pipe of its streams'.
            runs_in = (min(tx_pipes[s] for s in streams),) if burst > 1 else pipes
            plans.append(AppPlan(app_id, runs_in, tuple(streams), template,
                                 course[0].achieved_pps * len(runs_in), course[0], course,
                                 drop_below))
            continue
        schedule = pipe_timer(course, len(template) + FCS_BYTES, len(pipes),
                              tolerance=tolerance, clock_hz=clock_hz, pktgen_bps=pktgen_bps)
        plans.append(AppPlan(app_id, pipes, tuple(streams), template, course, schedule))
    longest = max((len(p.steps) for p in plans), default=0)
    for step in range(max(longest, 1)):
        # Every step's timers together: a shaped application's peak may be what overloads.
        try:
            check_generator_load([replace(p, schedule=p.steps[step]) if p.steps else p
                                  for p in plans], pktgen_bps)
        except ValueError as overloaded:
            if not longest:
                raise
            raise ValueError(f"step {step} of the shaped trial: {overloaded}") from None
    return tuple(plans)


def _check_bursts(bursts: Mapping[int, int],
                  courses: Mapping[int, tuple[TimerSchedule, ...]]) -> None:
    """A bursts stream comes with its step timers, each its whole burst in one batch."""
    untimed = sorted(set(bursts) - set(courses))
    if untimed:
        raise ValueError(f"streams {untimed} send bursts but have no step timers: a bursts "
                         "stream's timers come with its shape (steps=..., from "
                         "rates.burst_schedule)")
    for stream, frames in sorted(bursts.items()):
        for timer in courses[stream]:
            if (timer.batches, timer.packets_per_batch) != (1, frames):
                raise ValueError(
                    f"stream {stream} sends bursts of {frames} frames, each one batch; its "
                    f"step timer makes {timer.batches} x {timer.packets_per_batch} packets: "
                    "time it with rates.burst_schedule")


def _check_thinning(drop_of: Mapping[int, int], burst_of: Mapping[int, int],
                    courses: Mapping[int, tuple[TimerSchedule, ...]]) -> None:
    """A Poisson stream comes with its step timers, each a grid of one packet per
    trigger (a batch would clump what the draw keeps), and is not a bursts stream."""
    untimed = sorted(set(drop_of) - set(courses))
    if untimed:
        raise ValueError(f"streams {untimed} are thinned but have no step timers: a Poisson "
                         "stream's timers come with its shape (steps=..., from "
                         "poisson.thinned_timer)")
    both = sorted(set(drop_of) & set(burst_of))
    if both:
        raise ValueError(f"streams {both} are both thinned and sent in bursts: a stream has "
                         "one shape; give each of them Poisson arrivals or bursts")
    for stream, drop_below in sorted(drop_of.items()):
        if not KEEP_ALL < drop_below < DRAWS:
            raise ValueError(f"stream {stream}: drop_below {drop_below} must be in "
                             f"1..{DRAWS - 1} (a share of the 16-bit draws dropped)")
        for timer in courses[stream]:
            if timer.packets_per_period != 1:
                raise ValueError(
                    f"stream {stream} is thinned (Poisson arrivals); its step timer makes "
                    f"{timer.batches} x {timer.packets_per_batch} packets per trigger, not "
                    "one: time it with poisson.thinned_timer")


def retimed_apps(apps: Sequence[AppPlan], timers: Mapping[int, TimerSchedule],
                 ) -> tuple[AppPlan, ...]:
    """The applications a shaped trial's step moves, at their new timers: each shaped
    stream's timer (stream -> one of its steps'), the streams of one application all
    to one. Applications whose timer stays are left out: nothing to write."""
    unknown = sorted(set(timers) - {s for a in apps for s in a.stream_ids})
    if unknown:
        raise ValueError(f"streams {unknown} are not generated in this trial: "
                         "set their rates first")
    moved = []
    for app in apps:
        given = {s: timers[s] for s in app.stream_ids if s in timers}
        if not given:
            continue
        if len(given) != len(app.stream_ids) or len(set(given.values())) > 1:
            raise ValueError(
                f"streams {list(app.stream_ids)} share generator application {app.app_id}: "
                "give all of them one timer (only streams shaped alike share an "
                "application)")
        timer = next(iter(given.values()))
        if timer not in app.steps:
            raise ValueError(
                f"application {app.app_id} (streams {list(app.stream_ids)}) has no step "
                f"timed {timer.period_ns} ns x {timer.packets_per_batch} packets: a shaped "
                "stream's step timers are planned with its rates (plan_apps steps=...)")
        if timer != app.schedule:
            moved.append(replace(app, schedule=timer))
    return tuple(moved)


def check_generator_load(plans: list[AppPlan], pktgen_bps: float = PKTGEN_PORT_BPS) -> None:
    """Each pipe's generator makes its share of all applications through one port: a
    thinned application's whole grid, the packets its draw drops too."""
    load: dict[int, float] = {}
    thinned: set[int] = set()
    for plan in plans:
        bits = plan.schedule.achieved_pps * l1_frame_bits(plan.frame_size)
        for pipe in plan.pipes:
            load[pipe] = load.get(pipe, 0.0) + bits
            if plan.drop_below != KEEP_ALL:
                thinned.add(pipe)
    for pipe, bps in sorted(load.items()):
        if bps > pktgen_bps * (1 + 1e-9):
            grids = (" (a Poisson stream's whole grid: the generator makes the packets its "
                     "draw drops too; a smaller grid costs less)") if pipe in thinned else ""
            raise ValueError(
                f"pipe {pipe}'s packet generator would make {format_bitrate(bps)} (L1) for its "
                f"applications{grids}, above its {format_bitrate(pktgen_bps)}: lower the "
                "rates or use TX ports in more pipes")


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
