"""`make bench`, capacity part (issue 20): the tester's own loss-free rate on this host with
each BMv2 build and lab set-up, side by side in one run, next to plain forwarding's
loss-free rate with the same build.

Legs, each on a fresh lab:
- tester loopback loss-free rate (`p4tester calibrate` on topologies/bench-loopback.yaml,
  whose 100-Mbit/s ports leave the tester, not the port, as the bound): "before"
  (logging build, links with their offloads on: BMv2's capture rings of 31 frames,
  one frame per generator loop pass: as the labs ran until issue 20) at 64 B, the
  ratios' size; "measurement" (the build the labs run now, rings sized by the MTU,
  the generator as now) at 64/512/1518 B; with `--set-ups`, "logging" (the logging
  build, the rings and generator as now) at 64 B;
- plain forwarding's loss-free rate with the measurement build (bench.dataplane), on
  topologies/bench.yaml: the baseline the loopback rate is set against, measured the
  same way.
Then the ratios the issue sets targets for. A ratio's sides get `--repetitions` each
(5 by default), a figure no ratio uses TABLE_REPETITIONS: the "before" set-up's
capture rings drop a few frames at every load from its edge up, so a repetition's
bisection ends anywhere along a broad edge, and the median of five moves less between
runs than that of three. Every figure is
measured in this run; the host is shared and noisy, so compare ratios, and repeat.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Final

from p4tester.bench.dataplane import (
    SEARCH_HIGH_PPS,
    TRIAL_S,
    Setup,
    checker_frames,
    write_pcap,
)
from p4tester.bench.dataplane import forwarding_loss_free as forwarding_rate
from p4tester.bench.spread import figures, swung
from p4tester.experiments.calibration import load_calibration
from p4tester.lab.processes import BUILD_ENV, LOGGING, MEASUREMENT
from p4tester.p4rt import P4RuntimeClient
from p4tester.streams.rates import line_rate_pps
from p4tester.tester.stream_plan import FRAMES_PER_PASS, FRAMES_PER_PASS_FROM_PPS

LOOPBACK_TOPOLOGY: Final = Path("topologies/bench-loopback.yaml")
FORWARDING_TOPOLOGY: Final = Path("topologies/bench.yaml")
FORWARDING_GRPC: Final = "127.0.0.1:59561"
FORWARDING_THRIFT: Final = 59091
FRAME_SIZES: Final = (64, 512, 1518)


def generator_passes(frames_per_pass: int) -> str:
    """Pipeline passes the BMv2 generator spends per TX frame (p4src/v1model/generator.p4):
    each loop pass is a recirculated pass through ingress, which replicates, and an egress
    pass of the pacing copy that goes round again, shared by its `frames_per_pass` TX
    frames; each TX frame has its own egress pass. Structural, not measured."""
    shared = f"{1 / frames_per_pass:.2f}".rstrip("0").rstrip(".")
    return (f"{shared} ingress + {shared} + 1 egress ({frames_per_pass} frame"
            f"{'s' if frames_per_pass > 1 else ''} per loop pass)")
TARGET_VS_BEFORE: Final = 2.5
TARGET_VS_FORWARDING: Final = 0.5
RATIO_SIZE: Final = 64  # the frame size both ratios are taken at
# A set-up whose figures are no ratio's side is measured this many times (the table).
TABLE_REPETITIONS: Final = 3


@dataclass(frozen=True, slots=True)
class LabSetUp:
    """One way of running the lab: which BMv2 build, and whether the links keep their
    offloads (libpcap then sizes BMv2's capture slots for 64 KiB frames)."""

    name: str
    build: str
    keep_offloads: bool
    frames_per_pass: int = FRAMES_PER_PASS  # the generator's (tester.stream_plan)
    frame_sizes: tuple[int, ...] = (RATIO_SIZE,)
    ratio_side: bool = True  # its 64-B figure is a side of a ratio
    leg: str = ""  # its calibration's directory, when the set-up has two legs

    @property
    def directory(self) -> str:
        return f"calibrate-{self.leg or self.name}"


SET_UPS: Final = (
    LabSetUp("before", LOGGING, keep_offloads=True, frames_per_pass=1),
    LabSetUp("logging", LOGGING, keep_offloads=False, ratio_side=False),
    LabSetUp("measurement", MEASUREMENT, keep_offloads=False),
    # The other sizes are no ratio's side: TABLE_REPETITIONS, not a ratio's 5.
    LabSetUp("measurement", MEASUREMENT, keep_offloads=False, frame_sizes=FRAME_SIZES[1:],
             ratio_side=False, leg="measurement-sizes"),
)
# `make bench`'s: the logging set-up is no ratio's side, and costs 6 min of a run.
DEFAULT_SET_UPS: Final = ("before", "measurement")
# The calibrated stream: topologies/profiles/one-stream.yaml's, with the set-up's generator.
_PROFILE: Final = ("name: bench-{name}\n"
                   "trial: {{duration_s: 2, drain_s: 0.5, frames_per_pass: {per_pass}}}\n"
                   "frame_sizes: [64, 512, 1518]\n"
                   "streams: [{{id: 0, tx_port: 1, rx_port: 2}}]\n")


@contextmanager
def lab(topology: Path, rundir: Path, build: str, *, keep_offloads: bool = False,
        ) -> Iterator[None]:
    """A lab brought up with `build`, always taken down again."""
    python = sys.executable
    env = {**os.environ, BUILD_ENV: build}
    up = [python, "-m", "p4tester.lab", "--rundir", str(rundir), "up", str(topology)]
    subprocess.run(up + (["--keep-offloads"] if keep_offloads else []), env=env, check=True,
                   stdout=subprocess.DEVNULL)
    try:
        yield
    finally:
        subprocess.run([python, "-m", "p4tester.lab", "--rundir", str(rundir), "down"],
                       check=False, stdout=subprocess.DEVNULL)


def loopback_loss_free(set_up: LabSetUp, rundir: Path, repetitions: int,
                       ) -> Mapping[int, tuple[float, ...]]:
    """frame size -> the tester's loopback loss-free rate in each repetition."""
    out = rundir / set_up.directory
    profile = rundir / f"profile-{set_up.name}.yaml"
    rundir.mkdir(parents=True, exist_ok=True)
    profile.write_text(_PROFILE.format(name=set_up.name, per_pass=set_up.frames_per_pass))
    with lab(LOOPBACK_TOPOLOGY, rundir / "lab", set_up.build,
             keep_offloads=set_up.keep_offloads):
        subprocess.run([sys.executable, "-m", "p4tester", "calibrate",
                        "-t", str(LOOPBACK_TOPOLOGY), "-p", str(profile), "-o", str(out),
                        "--store", str(out / "stored.json"),
                        "--frame-sizes", ",".join(str(s) for s in set_up.frame_sizes),
                        "--repetitions", str(repetitions)], check=True,
                       stdout=subprocess.DEVNULL)
    calibration = load_calibration(out / "stored.json")
    if calibration is None:
        raise RuntimeError(f"calibrate wrote no readable {out / 'stored.json'}")
    return {size.frame_size: tuple(fraction * line_rate_pps(size.line_rate_bps, size.frame_size)
                                   for fraction in size.fractions)
            for size in calibration.sizes}


def forwarding_loss_free(build: str, rundir: Path, repetitions: int) -> tuple[float, ...]:
    """Plain forwarding's loss-free rate with `build`, each repetition
    (bench.dataplane.forwarding_loss_free: its egress queue as deep as a capture ring,
    why there): the baseline the tester's loopback loss-free rate
    is set against, measured the same way (the highest rate that lost nothing, at the
    rate asked)."""
    iface_in, iface_out = "p4lh1", "p4lh2"
    with lab(FORWARDING_TOPOLOGY, rundir / "lab", build), \
            tempfile.TemporaryDirectory() as scratch, \
            P4RuntimeClient(FORWARDING_GRPC, timeout_s=10.0) as client:
        setup = Setup(FORWARDING_GRPC, FORWARDING_THRIFT, Path("p4src/build"), iface_in,
                      iface_out)
        pcap = write_pcap(Path(scratch) / "frames.pcap", checker_frames(SEARCH_HIGH_PPS * TRIAL_S))
        return tuple(float(forwarding_rate(client, setup, pcap)) for _ in range(repetitions))


def render(loopback: Mapping[str, Mapping[int, tuple[float, ...]]],
           forwarding: Sequence[float]) -> str:
    """The loopback table (medians; "-" where a set-up was not measured at a size),
    the generator's passes, and the ratios with both sides' repetitions."""
    lines = ["tester loopback loss-free rate, frames/s (p4tester calibrate, median of its "
             "repetitions)",
             f"  {'set-up':<12}" + "".join(f"{size:>10} B" for size in FRAME_SIZES)]
    for name, sizes in loopback.items():
        lines.append(f"  {name:<12}" + "".join(
            f"{median(sizes[size]):>12.0f}" if size in sizes else f"{'-':>12}"
            for size in FRAME_SIZES))
    lines.append(f"generator passes per TX frame: {generator_passes(1)} below "
                 f"{FRAMES_PER_PASS_FROM_PPS} frames/s, {generator_passes(FRAMES_PER_PASS)} "
                 "from there (tester.stream_plan; before issue 20: 1 ingress + 2 egress at "
                 "every rate)")
    if {"before", MEASUREMENT} <= loopback.keys():
        lines.append(_ratio_line("64 B loopback loss-free rate, measurement / before",
                                 loopback[MEASUREMENT][RATIO_SIZE], "the measurement build's",
                                 loopback["before"][RATIO_SIZE], "the 'before' set-up's",
                                 TARGET_VS_BEFORE))
    if MEASUREMENT in loopback and forwarding:
        lines.append(_ratio_line(
            "64 B loopback loss-free rate / plain forwarding loss-free rate, measurement "
            "build", loopback[MEASUREMENT][RATIO_SIZE], "the tester's loopback rate",
            forwarding, "plain forwarding's loss-free rate", TARGET_VS_FORWARDING))
    return "\n".join(lines)


def _ratio_line(what: str, part: Sequence[float], part_name: str, whole: Sequence[float],
                whole_name: str, target: float) -> str:
    """The ratio of two sides' medians, each side with its repetitions and spread; not
    measured when either side swung (bench.spread)."""
    if not part or not whole:
        return f"ratio, {what}: not measured (a side has no repetition)"
    sides = f"{figures(part)} / {figures(whole)}"
    unsteady = swung(part_name, part) or swung(whole_name, whole)
    if unsteady:
        return f"ratio, {what}: not measured ({unsteady}); {sides}"
    return (f"ratio, {what}: {median(part) / median(whole):.2f} (target >= {target}); "
            f"{sides}")


def run(rundir: Path, repetitions: int, set_ups: Sequence[LabSetUp]) -> str:
    loopback: dict[str, dict[int, tuple[float, ...]]] = {}
    for set_up in set_ups:
        loopback.setdefault(set_up.name, {}).update(loopback_loss_free(
            set_up, rundir, repetitions if set_up.ratio_side else TABLE_REPETITIONS))
    forwarding = (forwarding_loss_free(MEASUREMENT, rundir, repetitions)
                  if any(s.build == MEASUREMENT for s in set_ups) else ())
    return render(loopback, forwarding)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rundir", type=Path, default=Path("run/bench-capacity"))
    parser.add_argument("--repetitions", type=int, default=5,
                        help="of each side of a ratio (the logging set-up, no ratio's "
                        f"side, gets {TABLE_REPETITIONS})")
    parser.add_argument("--set-ups", default=",".join(DEFAULT_SET_UPS),
                        help="which of before, logging, measurement to run")
    args = parser.parse_args(argv)
    chosen = [s for s in SET_UPS if s.name in str(args.set_ups).split(",")]
    if not chosen:
        parser.error(f"--set-ups: none of {args.set_ups!r}; use some of "
                     f"{', '.join(dict.fromkeys(s.name for s in SET_UPS))}")
    print(run(args.rundir, args.repetitions, chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
