"""`make bench`, flows part (issue 45): what varying a stream's fields costs the BMv2
tester. Its generator looks up the tx_steps gate for every TX frame, and a varying
stream's fields each take a register access, a hash or a table (p4src/v1model/
field_steps.p4). Measured as the tester's loopback loss-free rate at 64 B (`p4tester
calibrate` on topologies/bench-loopback.yaml, the measurement build), for a stream that
varies nothing and for one that varies its source address over 65 536 values and draws
its destination port, alternated in one lab, each repeated; printed with the spread of
each side and their ratio.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path
from statistics import median
from typing import Final

from p4tester.bench.capacity import LOOPBACK_TOPOLOGY, lab
from p4tester.bench.spread import figures, swung
from p4tester.experiments.calibration import load_calibration
from p4tester.lab.processes import MEASUREMENT
from p4tester.streams.rates import line_rate_pps

FRAME_SIZE: Final = 64
_STREAM: Final = "{id: 0, tx_port: 1, rx_port: 2}"
_VARYING: Final = ("{id: 0, tx_port: 1, rx_port: 2, vary: {"
                   "src_ip: {start: 10.64.0.0, count: 65536}, "
                   "dst_port: {random: [1024, 65535], seed: 7}}}")
PROFILES: Final = {"fixed": _STREAM, "varying": _VARYING}


def _profile(name: str, stream: str) -> str:
    return (f"name: bench-flows-{name}\n"
            "trial: {duration_s: 2, drain_s: 0.5}\n"
            f"frame_sizes: [{FRAME_SIZE}]\n"
            f"streams: [{stream}]\n")


def loss_free_pps(rundir: Path, name: str, round_index: int) -> float:
    """One calibration of the named profile's stream at 64 B: its loss-free rate."""
    out = rundir / f"calibrate-{name}-{round_index}"
    profile = rundir / f"profile-{name}.yaml"
    profile.write_text(_profile(name, PROFILES[name]))
    subprocess.run([sys.executable, "-m", "p4tester", "calibrate", "-t", str(LOOPBACK_TOPOLOGY),
                    "-p", str(profile), "-o", str(out), "--store", str(out / "stored.json"),
                    "--frame-sizes", str(FRAME_SIZE), "--repetitions", "1"], check=True,
                   stdout=subprocess.DEVNULL)
    calibration = load_calibration(out / "stored.json")
    if calibration is None:
        raise RuntimeError(f"calibrate wrote no readable {out / 'stored.json'}")
    (size,) = calibration.sizes
    return size.fractions[0] * line_rate_pps(size.line_rate_bps, size.frame_size)


def run(rundir: Path, rounds: int) -> str:
    rundir.mkdir(parents=True, exist_ok=True)
    for earlier in rundir.glob("calibrate-*"):  # a run's own: calibrate resumes none
        shutil.rmtree(earlier)
    rates: dict[str, list[float]] = {name: [] for name in PROFILES}
    with lab(LOOPBACK_TOPOLOGY, rundir / "lab", MEASUREMENT):
        for round_index in range(rounds):
            for name in PROFILES:  # alternated: a host that slows down slows both
                rates[name].append(loss_free_pps(rundir, name, round_index))
    lines = ["tester loopback loss-free rate at 64 B, frames/s, a fixed stream and one "
             "varying 65 536 source addresses and a drawn port (alternated)"]
    for name, values in rates.items():
        lines.append(f"  {name:<8} {figures(values)}")
    unsteady = swung("fixed", rates["fixed"]) or swung("varying", rates["varying"])
    if unsteady:
        lines.append(f"ratio, varying / fixed: not measured ({unsteady})")
    else:
        lines.append(f"ratio, varying / fixed: "
                     f"{median(rates['varying']) / median(rates['fixed']):.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rundir", type=Path, default=Path("run/bench-flows"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(run(args.rundir, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
