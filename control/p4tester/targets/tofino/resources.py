"""What a bf-p4c build of the tester uses: MAU stages, memories, ALUs, hash bits, PHV.

Reads the logs bf-p4c writes with `-g --verbose 2` into OUT/pipe/logs/:
- mau.resources.log: a table per stage (one row per stage, then "Totals"), followed by
  the same table in percent of each stage's capacity;
- metrics.json: PHV containers occupied, by width.

`python -m p4tester.targets.tofino.resources --max-stages 10 tofino=build-tna/tofino ...`
prints one Markdown table row per build and exits 1 when a build uses more stages than
allowed (the stage budget of scripts/p4-build-tna.sh), 2 when its logs are missing.
With `--doc docs/tofino.md` it also exits 1 when that file does not hold each build's
row exactly as measured: the documentation states what the compiler reported.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

# Columns of mau.resources.log shown in the table, with the names the table gives them.
# "Meter ALU" is the stateful ALU (registers and meters share it).
SHOWN_COLUMNS: Final = (
    ("SRAM", "SRAM"),
    ("TCAM", "TCAM"),
    ("Map RAM", "map RAM"),
    ("Meter ALU", "stateful ALU"),
    ("Stats ALU", "stats ALU"),
    ("Hash Bit", "hash bits"),
    ("Gateway", "gateways"),
    ("VLIW Instr", "VLIW instr"),
)
STAGE_COLUMN: Final = "Stage Number"


class ResourceLogError(ValueError):
    """A bf-p4c log is missing or not in the expected shape."""


@dataclass(frozen=True, slots=True)
class MauUsage:
    """Stage count and per-resource totals, with their share of the whole pipe (%)."""

    stages_used: int  # highest stage holding anything, plus one
    stages_available: int
    totals: Mapping[str, int]
    pipe_percent: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class PhvUsage:
    """PHV containers occupied by width (bits), normal and tagalong together."""

    containers: Mapping[int, int]
    bits_occupied: int


@dataclass(frozen=True, slots=True)
class BuildResources:
    name: str
    mau: MauUsage
    phv: PhvUsage


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _tables(text: str) -> list[list[list[str]]]:
    """Each '|'-table of the log (rows up to a blank line) as rows of cells, header first."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|  Log file"):
            current.append(_cells(line))
        elif line.startswith("-"):
            continue  # a rule inside a table
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def parse_mau_resources(text: str) -> MauUsage:
    """The per-stage table (counts) and its percent twin of mau.resources.log."""
    stage_tables = [t for t in _tables(text) if t and t[0] and t[0][0] == STAGE_COLUMN]
    if len(stage_tables) < 2:
        raise ResourceLogError("mau.resources.log has no per-stage count and percent tables")
    counts, percents = stage_tables[0], stage_tables[1]
    header = counts[0]
    missing = [column for column, _ in SHOWN_COLUMNS if column not in header]
    if missing:
        raise ResourceLogError(f"mau.resources.log has no column {missing[0]!r}: {header}")
    stage_rows = [row for row in counts[1:] if row[0].isdigit()]
    total_rows = [row for row in counts[1:] if row[0] == "Totals"]
    if not stage_rows or not total_rows:
        raise ResourceLogError("mau.resources.log lacks stage rows or Totals")
    used = [int(row[0]) for row in stage_rows if any(cell not in ("0", "") for cell in row[1:])]
    totals = {column: int(total_rows[0][header.index(column)]) for column, _ in SHOWN_COLUMNS}
    percent_rows = {row[0]: row for row in percents[1:] if row[0].isdigit()}
    share = {column: _pipe_share(column, header, stage_rows, percents[0], percent_rows,
                                 totals[column])
             for column, _ in SHOWN_COLUMNS}
    return MauUsage(stages_used=max(used) + 1 if used else 0,
                    stages_available=len(stage_rows), totals=totals, pipe_percent=share)


def _pipe_share(column: str, header: list[str], stage_rows: list[list[str]],
                percent_header: list[str], percent_rows: Mapping[str, list[str]],
                total: int) -> float:
    """Total of a column in percent of all stages' capacity. The log gives each stage's
    use in percent of that stage: a stage using some tells the capacity per stage."""
    for row in stage_rows:
        count = int(row[header.index(column)])
        percent = float(percent_rows[row[0]][percent_header.index(column)].rstrip("%"))
        if count and percent:
            capacity = round(count * 100 / percent)
            return 100 * total / (capacity * len(stage_rows))
    return 0.0


def parse_phv(metrics: Mapping[str, object]) -> PhvUsage:
    """PHV containers occupied, from metrics.json's phv section."""
    phv = metrics.get("phv")
    if not isinstance(phv, dict):
        raise ResourceLogError("metrics.json has no phv section")
    containers: dict[int, int] = {}
    bits = 0
    for kind in ("normal", "tagalong"):
        for entry in phv.get(kind, []):
            width = int(entry["bit_width"])
            containers[width] = containers.get(width, 0) + int(entry["containers_occupied"])
            bits += int(entry["bits_occupied"])
    return PhvUsage(containers=dict(sorted(containers.items())), bits_occupied=bits)


def load_build(name: str, out_dir: Path) -> BuildResources:
    logs = out_dir / "pipe" / "logs"
    try:
        mau_text = (logs / "mau.resources.log").read_text()
        metrics = json.loads((logs / "metrics.json").read_text())
    except OSError as exc:
        raise ResourceLogError(f"{name}: {exc.strerror}: {exc.filename} (compile with "
                               "-g --verbose 2)") from exc
    return BuildResources(name, parse_mau_resources(mau_text), parse_phv(metrics))


def markdown_table(builds: Sequence[BuildResources]) -> str:
    """One row per build: stages, then each resource as total (share of the pipe)."""
    head = ["target", "stages"] + [label for _, label in SHOWN_COLUMNS] + ["PHV containers "
                                                                           "8/16/32 b", "PHV bits"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for build in builds:
        mau = build.mau
        cells = [build.name, f"{mau.stages_used} of {mau.stages_available}"]
        cells += [f"{mau.totals[column]} ({mau.pipe_percent[column]:.1f} %)"
                  for column, _ in SHOWN_COLUMNS]
        containers = build.phv.containers
        cells += ["/".join(str(containers.get(width, 0)) for width in (8, 16, 32)),
                  str(build.phv.bits_occupied)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def over_budget(build: BuildResources, max_stages: int | None) -> bool:
    return max_stages is not None and build.mau.stages_used > max_stages


def stale_rows(builds: Sequence[BuildResources], doc_text: str) -> list[str]:
    """The builds' table rows that `doc_text` does not hold line for line."""
    lines = set(doc_text.splitlines())
    return [row for row in markdown_table(builds).splitlines()[2:] if row not in lines]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", metavar="NAME=OUT_DIR",
                        help="a bf-p4c output directory and the name to show it under")
    parser.add_argument("--max-stages", action="append", default=[],
                        metavar="NAME=N", help="stage budget of a build (repeatable)")
    parser.add_argument("--doc", type=Path, default=None, metavar="FILE",
                        help="a Markdown file that must hold each build's row as measured")
    args = parser.parse_args(argv)
    budgets: dict[str, int] = {}
    for item in args.max_stages:
        name, _, limit = str(item).partition("=")
        budgets[name] = int(limit)
    builds = []
    for item in args.builds:
        name, _, directory = str(item).partition("=")
        try:
            builds.append(load_build(name, Path(directory)))
        except ResourceLogError as exc:
            print(f"resources: {exc}", file=sys.stderr)
            return 2
    print(markdown_table(builds))
    status = 0
    for build in builds:
        if over_budget(build, budgets.get(build.name)):
            print(f"resources: {build.name} uses {build.mau.stages_used} MAU stages, above its "
                  f"budget of {budgets[build.name]}")
            status = 1
    if args.doc is not None:
        for row in stale_rows(builds, args.doc.read_text()):
            print(f"resources: {args.doc} does not state what was measured: {row}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
