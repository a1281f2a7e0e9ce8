"""`make bench`, eBPF part: the eBPF tester's loopback loss-free rate at 64 B, next
to the host's own ceiling for the same path and to BMv2's loopback figure.

One veth pair is the loopback: the tester sends by one end (port 1) and checks
what the other end receives (port 2). Two legs on it, one after the other, each
searched for its loss-free rate with the same trials:
- tester: p4src/psa/tester.p4, k copies per template, numbered, stamped, checked;
- plain: p4src/bench/replicate.bpf.c, the same k clones and redirects with no P4
  work, counted and dropped at port 2 (the host's ceiling for this path).
A trial is loss-free when every frame sent arrived; frames the kernel dropped in
its own backlog (softnet_stat) are reported beside it. The tester leg is set up
as a session sets it up (the default profile's histogram bins included), and each
leg prints what its programs cost per run, from the kernel's accounting.

The legs alternate over --rounds rounds (a host that changes during the bench moves
both sides), and each side is printed with its spread. The targets are absolute:
the tester's loss-free rate (TARGET_FPS) and its share of the plain ceiling, taken
round by round (TARGET_SHARE); a plain ceiling that swung more than
bench.spread.MAX_SPREAD between rounds gives no share at all. BMv2's figure is
printed beside, with no target."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Final

from p4tester.bench.bpf_cost import ProgramRuns, bpf_stats, runs_of
from p4tester.bench.spread import figures, swung
from p4tester.config.profile import DEFAULT_LOG_HIGH_US
from p4tester.dataplane.constants import IP_VERSION_4
from p4tester.dataplane.headers import epoch_flags
from p4tester.experiments.calibration import load_calibration
from p4tester.results.latency import log_bin_edges
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header
from p4tester.targets.ebpf.bpf_syscall import BpfMap
from p4tester.targets.ebpf.generator_tag import tag_template
from p4tester.targets.ebpf.pipeline import EbpfPipeline
from p4tester.targets.ebpf.sender import TemplateSender
from p4tester.targets.ebpf.session import set_profile_bins
from p4tester.targets.ebpf.tc_objects import TcObjects
from p4tester.targets.ebpf.tester import EbpfTester

REPO = Path(__file__).resolve().parents[3]
TX, RX, GEN_IN, GEN_OUT = "p4blt", "p4blr", "p4blg", "p4blh"
RUN, EPOCH = 9, 1
TRIAL_S = 1.0
SEARCH_TRIALS = 9
START_FPS = 200_000


# A trial proves its rate when the frames went out at least this close to it.
OFFERED_TOLERANCE = 0.98


@dataclass(frozen=True, slots=True)
class Trial:
    asked_fps: float  # the rate the trial asked the sender for
    sent: int
    received: int
    seconds: float  # the sender's time from its first template to its last
    backlog_drops: int
    sender_lag_s: float

    @property
    def sent_fps(self) -> float:
        return self.sent / self.seconds if self.seconds > 0 else 0.0

    @property
    def passed(self) -> bool:
        """Every frame sent arrived, and they were sent at the asked rate: on veth the
        kernel forwards in the sender's own context, so an overloaded path slows the
        sender rather than dropping frames, and a trial that fell behind its rate
        proved nothing about it."""
        return (self.sent > 0 and self.received == self.sent
                and self.sent_fps >= OFFERED_TOLERANCE * self.asked_fps)


def _run(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True)


def _backlog_drops() -> int:
    """Frames the kernel dropped from its per-CPU input backlogs, all CPUs."""
    return sum(int(line.split()[1], 16) for line in
               Path("/proc/net/softnet_stat").read_text().splitlines())


@contextmanager
def links() -> Iterator[None]:
    for first, second in ((TX, RX), (GEN_IN, GEN_OUT)):
        subprocess.run(["ip", "link", "del", first], capture_output=True, check=False)
        _run("ip", "link", "add", "name", first, "type", "veth", "peer", "name", second)
    try:
        for name in (TX, RX, GEN_IN, GEN_OUT):
            Path(f"/proc/sys/net/ipv6/conf/{name}/disable_ipv6").write_text("1\n")
            _run("ip", "link", "set", name, "up")
        yield
    finally:
        for name in (TX, GEN_IN):
            subprocess.run(["ip", "link", "del", name], capture_output=True, check=False)


def template() -> bytes:
    """Stream 0's 64-B IPv4 template, as the controller builds it."""
    return build_template(FrameSpec(stream_id=0, frame_size=64, run=RUN, epoch=EPOCH))


def _wait_quiet(read: Callable[[], int]) -> int:
    """The count once it stops moving (bounded: 2 s)."""
    last, deadline = -1, time.monotonic() + 2.0
    while time.monotonic() < deadline:
        now = read()
        if now == last:
            return now
        last = now
        time.sleep(0.05)
    return last


def tester_trial(tester: EbpfTester, sender: TemplateSender, tagged: bytes, copies: int,
                 rate_fps: float) -> Trial:
    templates = max(1, int(rate_fps * TRIAL_S / copies))
    tester.clear_stream(0)
    tester.start_stream(0, frames=templates * copies, initial_seq=0, run=RUN,
                        epoch_flags=epoch_flags(EPOCH))
    drops = _backlog_drops()
    report = sender.send([tagged], templates, rate_fps / copies, TRIAL_S * 3)
    received = _wait_quiet(lambda: tester.stream_counter("rx_stream", 0).packets)
    sent = tester.stream_counter("tx_stream", 0).packets
    return Trial(rate_fps, sent, received, report.seconds, _backlog_drops() - drops,
                 report.worst_lag_s)


@dataclass
class PlainReplicator:
    config: BpfMap
    received: BpfMap
    frame: bytes

    def trial(self, sender: TemplateSender, copies: int, rate_fps: float) -> Trial:
        templates = max(1, int(rate_fps * TRIAL_S / copies))
        self.config.update((1).to_bytes(4, "little"), copies.to_bytes(4, "little"))
        self.received.update(bytes(4), bytes(8))
        drops = _backlog_drops()
        report = sender.send([self.frame], templates, rate_fps / copies, TRIAL_S * 3)
        received = _wait_quiet(
            lambda: int.from_bytes(self.received.lookup(bytes(4)) or bytes(8), "little"))
        return Trial(rate_fps, report.templates * copies, received, report.seconds,
                     _backlog_drops() - drops, report.worst_lag_s)


def search(trial: Callable[[float], Trial], start_fps: float) -> tuple[float, list[Trial]]:
    """The highest rate that passed: doubling from start_fps up to the first failure,
    then halving the interval (SEARCH_TRIALS trials in all)."""
    trials: list[Trial] = []
    low, high, rate = 0.0, 0.0, start_fps
    for _ in range(SEARCH_TRIALS):
        result = trial(rate)
        trials.append(result)
        if result.passed:
            low = rate
            rate = rate * 2 if high == 0 else (low + high) / 2
        else:
            high = rate
            rate = (low + high) / 2 if low else rate / 2
    return low, trials


@dataclass(frozen=True, slots=True)
class Leg:
    loss_free_fps: float
    trials: list[Trial]
    # What each of the leg's programs cost per run, in one more trial at the
    # loss-free rate (the kernel's accounting costs time: not during the search).
    costs: dict[str, ProgramRuns]


def _searched(trial: Callable[[float], Trial], programs: dict[str, int]) -> Leg:
    loss_free, trials = search(trial, START_FPS)
    with bpf_stats():
        before = runs_of(programs)
        trial(loss_free or START_FPS)
        after = runs_of(programs)
    return Leg(loss_free, trials, {name: after[name].since(before[name]) for name in programs})


def run_tester_leg(build: Path, pins: Path, copies: int) -> Leg:
    pipeline = EbpfPipeline(build / "tester.o", build / "tester.c", pins)
    sender = TemplateSender(GEN_OUT)
    try:
        pipeline.mount()
        for name in (TX, RX, GEN_IN):
            pipeline.attach(name)
        pipeline.initialize()
        tester = EbpfTester(pipeline.maps)
        tester.set_tester_port(pipeline.ifindex(TX), 1)
        tester.set_tester_port(pipeline.ifindex(RX), 2)
        tester.set_generator_port(pipeline.ifindex(GEN_IN))
        tester.expect_stream(0, run=RUN, epoch_flags=epoch_flags(EPOCH), rx_port=2,
                             ip_version=IP_VERSION_4)
        tester.set_replication(0, pipeline.ifindex(TX), copies)
        # As a session sets them: every checked frame is binned.
        set_profile_bins(tester, log_bin_edges(DEFAULT_LOG_HIGH_US))
        tagged = tag_template(template(), 0, offset_of_tester_header(Encapsulation()),
                              tx_port=1)
        programs = {"generator ingress, per template": pipeline.program_id(GEN_IN, "ingress"),
                    "stamping egress, per frame": pipeline.program_id(TX, "egress"),
                    "checker ingress, per frame": pipeline.program_id(RX, "ingress")}
        return _searched(lambda rate: tester_trial(tester, sender, tagged, copies, rate),
                         programs)
    finally:
        sender.close()
        pipeline.close()


def run_plain_leg(build: Path, pins: Path, copies: int) -> Leg:
    objects = TcObjects(pins)
    sender = TemplateSender(GEN_OUT)
    try:
        objects.mount()
        objects.attach(GEN_IN, "ingress", build / "replicate.o", "classifier/replicate", 1)
        objects.attach(RX, "ingress", build / "replicate.o", "classifier/count", 1)
        config = objects.pinned_map("replicate_config")
        received = objects.pinned_map("replicate_received")
        config.update(bytes(4), EbpfPipeline.ifindex(TX).to_bytes(4, "little"))
        plain = PlainReplicator(config, received, template())
        programs = {"replicate ingress, per template": objects.program_id(GEN_IN, "ingress", 1),
                    "count ingress, per frame": objects.program_id(RX, "ingress", 1)}
        try:
            return _searched(lambda rate: plain.trial(sender, copies, rate), programs)
        finally:
            config.close()
            received.close()
    finally:
        sender.close()
        objects.close()


# Absolute targets for the eBPF tester on a 2-core host (issue 41; README, section
# Capacity): its loss-free rate, and its share of the host's plain ceiling for the path.
TARGET_FPS: Final = 500_000
TARGET_SHARE: Final = 0.5
@dataclass(frozen=True, slots=True)
class Round:
    """One tester leg and one plain leg, run one right after the other."""

    tester: Leg
    plain: Leg

    @property
    def share(self) -> float | None:
        plain = self.plain.loss_free_fps
        return self.tester.loss_free_fps / plain if plain else None


def render(copies: int, rounds: Sequence[Round], bmv2_fps: float | None) -> str:
    lines = [f"eBPF loopback, 64 B, {copies} frames per template, {TRIAL_S:.0f}-s trials, "
             f"{len(rounds)} rounds of tester then plain:"]
    for number, one in enumerate(rounds, 1):
        for name, leg in (("tester", one.tester), ("plain", one.plain)):
            lines.append(f"  round {number} {name} trials (asked fps: sent fps, received/sent, "
                         "kernel backlog drops, sender lag ms, passed):")
            lines += [f"    {t.asked_fps:>10.0f}: {t.sent_fps:>10.0f}, {t.received}/{t.sent}, "
                      f"{t.backlog_drops}, {t.sender_lag_s * 1000:.1f}, {t.passed}"
                      for t in leg.trials]
    last = rounds[-1]
    for name, leg in (("tester", last.tester), ("plain", last.plain)):
        lines.append(f"  {name} programs (kernel run time, one trial at the loss-free rate, "
                     "last round):")
        lines += [f"    {program}: {runs.ns_per_run:.0f} ns ({runs.runs} runs)"
                  for program, runs in leg.costs.items()]
    tester = [r.tester.loss_free_fps for r in rounds]
    plain = [r.plain.loss_free_fps for r in rounds]
    lines.append(f"  tester loss-free frames/s: {figures(tester)}; target >= {TARGET_FPS}: "
                 f"{'met' if median(tester) >= TARGET_FPS else 'NOT met'}")
    lines.append(f"  plain replicate+redirect loss-free frames/s: {figures(plain)}")
    shares = [share for r in rounds if (share := r.share) is not None]
    unsteady = swung("the plain ceiling", plain)
    if unsteady or len(shares) < len(rounds):
        lines.append(f"  share of the plain ceiling: not measured ({unsteady})")
    else:
        lines.append(f"  share of the plain ceiling, round by round: median "
                     f"{median(shares):.2f} ({', '.join(f'{v:.2f}' for v in shares)}); "
                     f"target >= {TARGET_SHARE}: "
                     f"{'met' if median(shares) >= TARGET_SHARE else 'NOT met'}")
    if bmv2_fps:
        lines.append(f"  BMv2 tester loopback (this run's calibrate, measurement build) "
                     f"{bmv2_fps:.0f} frames/s: the eBPF tester carries "
                     f"{median(tester) / bmv2_fps:.0f}x as much")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="p4tester.bench.ebpf_loopback")
    parser.add_argument("--build", type=Path, default=REPO / "build" / "ebpf-bench")
    parser.add_argument("--rundir", type=Path, default=REPO / "run" / "bench-ebpf")
    parser.add_argument("--copies", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3,
                        help="tester and plain legs, alternated (default 3)")
    parser.add_argument("--bmv2-calibration", type=Path,
                        help="stored.json of this run's BMv2 calibrate (64 B figure)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("bench (eBPF): needs root (veth pairs, tc, a BPF file system)", file=sys.stderr)
        return 1
    subprocess.run(["bash", str(REPO / "scripts" / "p4-build-ebpf.sh"), str(args.build)],
                   check=True, capture_output=True)
    bmv2_fps = None
    if args.bmv2_calibration is not None:
        calibration = load_calibration(args.bmv2_calibration)
        if calibration is not None:
            bmv2_fps = next((s.pps for s in calibration.sizes if s.frame_size == 64), None)
    rounds = []
    for _ in range(args.rounds):
        # Alternated, so that a host that changes over the bench moves both sides.
        with links():
            tester = run_tester_leg(args.build, args.rundir / "pins-tester", args.copies)
        with links():
            plain = run_plain_leg(args.build, args.rundir / "pins-plain", args.copies)
        rounds.append(Round(tester, plain))
    print(render(args.copies, rounds, bmv2_fps))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
