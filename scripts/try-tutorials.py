"""Brings up each exercise of a p4lang/tutorials checkout as a Mininet lab, from the
exercise's own files, with the tester in place of its hosts, and prints one line per
exercise: up, or why not (docs/mininet.md, "p4lang/tutorials exercises").

    sudo .venv/bin/python scripts/try-tutorials.py TUTORIALS_CHECKOUT WORKDIR [EXERCISE...]

Each exercise is copied to WORKDIR, its solution's P4 files over the exercise's own (as
the tutorials' READMEs say), compiled as its Makefile does (p4c-bm2-ss --p4v 16 with
P4Runtime files in build/), and its topology (the Makefile's TOPO, else topology.json)
brought up twice: with tester port N in place of the Nth host, then with the last host
kept as a Mininet host of its own (its commands run), and taken down each time. One lab
at a time: run it under the lab lock where other labs may run."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

LAB_TIMEOUT_S = 300
COMPILE_TIMEOUT_S = 300


def exercise_topology(exercise: Path) -> Path:
    makefile = (exercise / "Makefile").read_text()
    match = re.search(r"^\s*TOPO\s*=\s*(\S+)", makefile, re.MULTILINE)
    return exercise / (match.group(1) if match else "topology.json")


def prepare(checkout: Path, name: str, workdir: Path) -> Path:
    """The exercise copied with its solution's P4 files, compiled as its Makefile does."""
    exercise = workdir / "exercises" / name
    shutil.rmtree(exercise, ignore_errors=True)
    shutil.copytree(checkout / "exercises" / name, exercise)
    for solved in sorted((exercise / "solution").glob("*.p4")):
        shutil.copy(solved, exercise / solved.name)
    (exercise / "build").mkdir(exist_ok=True)
    for source in sorted(exercise.glob("*.p4")):
        stem = source.stem
        subprocess.run(["p4c-bm2-ss", "--p4v", "16", "--p4runtime-files",
                        f"build/{stem}.p4.p4info.txtpb", "-o", f"build/{stem}.json",
                        source.name], cwd=exercise, check=True, capture_output=True,
                       text=True, timeout=COMPILE_TIMEOUT_S)
    return exercise


def lab_topology(name: str, topology: Path, out: Path, keep_last: bool) -> Path:
    hosts = sorted(json.loads(topology.read_text()).get("hosts", {}))
    hosts = hosts[:-1] if keep_last else hosts
    ports = "\n".join(f"  {index}: {{line_rate: 5Mbps, peer: {host}}}"
                      for index, host in enumerate(hosts, start=1))
    out.write_text(f"name: tutorials-{name}\nlab: mininet\n"
                   "switch: {grpc: 127.0.0.1:9559, thrift_port: 9090, target: bmv2}\n"
                   f"ports:\n{ports}\ndut: {{kind: external}}\n"
                   f"network:\n  tutorials: {topology}\n")
    return out


def try_exercise(checkout: Path, name: str, workdir: Path) -> str:
    try:
        exercise = prepare(checkout, name, workdir)
    except subprocess.CalledProcessError as exc:
        return f"does not compile: {(exc.stderr or exc.stdout).strip().splitlines()[-1]}"
    topology = exercise_topology(exercise)
    if not topology.exists():
        return f"no topology ({topology.relative_to(exercise)})"
    return "; ".join(f"{how}: {bring_up(name, topology, workdir, keep_last)}"
                     for how, keep_last in (("tester for every host", False),
                                            ("last host kept", True)))


def bring_up(name: str, topology: Path, workdir: Path, keep_last: bool) -> str:
    config = lab_topology(name, topology, workdir / f"tutorials-{name}.yaml", keep_last)
    rundir = workdir / "run" / name
    lab = [sys.executable, "-m", "p4tester.lab", "--rundir", str(rundir)]
    try:
        up = subprocess.run([*lab, "up", str(config)], capture_output=True, text=True,
                            timeout=LAB_TIMEOUT_S)
    finally:
        subprocess.run([*lab, "down"], capture_output=True, text=True, timeout=LAB_TIMEOUT_S)
    if up.returncode != 0:
        return "does not come up: " + " ".join(up.stderr.split())[-600:]
    notes = [line.removeprefix("p4tester.lab: note: ") for line in up.stderr.splitlines()
             if line.startswith("p4tester.lab: note: ")]
    return "up" + (f" ({len(notes)} host command(s) failed: {'; '.join(notes)})"
                   if notes else "")


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        sys.stderr.write(__doc__ or "")
        return 2
    checkout, workdir = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    names = argv[2:] or sorted(p.name for p in (checkout / "exercises").iterdir()
                               if (p / "Makefile").exists())
    workdir.mkdir(parents=True, exist_ok=True)
    for name in names:
        print(f"{name}: {try_exercise(checkout, name, workdir)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
