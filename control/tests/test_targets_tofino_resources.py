"""The bf-p4c resource report: per-stage tables of mau.resources.log, PHV from
metrics.json, the Markdown row, the stage budget and the schema freshness compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p4tester.targets.tofino import resources, schema
from p4tester.targets.tofino.resources import (
    BuildResources,
    MauUsage,
    PhvUsage,
    ResourceLogError,
    markdown_table,
    parse_mau_resources,
    parse_phv,
)

COLUMNS = ["Stage Number", "Hash Bit", "Gateway", "SRAM", "Map RAM", "TCAM", "VLIW Instr",
           "Meter ALU", "Stats ALU"]


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


# Three stages, the last empty: counts, then percent of each stage's capacity (a stage
# has 416 hash bits, 16 gateways, 80 SRAMs, 48 map RAMs, 24 TCAMs, 32 VLIW, 4 + 4 ALUs).
LOG = "\n".join([
    "+----------------------+", "|  Log file: mau.resources.log  |", "+----------------------+",
    "", "----------", _row(*COLUMNS), "----------",
    _row("0", "52", "4", "8", "6", "2", "4", "1", "2"),
    _row("1", "104", "2", "40", "12", "0", "8", "4", "0"),
    _row("2", "0", "0", "0", "0", "0", "0", "0", "0"),
    _row("", "", "", "", "", "", "", "", ""),
    _row("Totals", "156", "6", "48", "18", "2", "12", "5", "2"),
    "----------", "", "----------", _row(*COLUMNS), "----------",
    _row("0", "12.50%", "25.00%", "10.00%", "12.50%", "8.33%", "12.50%", "25.00%", "50.00%"),
    _row("1", "25.00%", "12.50%", "50.00%", "25.00%", "0.00%", "25.00%", "100.00%", "0.00%"),
    _row("2", "0.00%", "0.00%", "0.00%", "0.00%", "0.00%", "0.00%", "0.00%", "0.00%"),
    _row("Average", "18.75%", "18.75%", "30.00%", "18.75%", "4.17%", "18.75%", "62.50%",
         "25.00%"),
    "----------", "",
])
METRICS = {"phv": {
    "normal": [{"bit_width": 8, "containers_occupied": 3, "bits_occupied": 20},
               {"bit_width": 32, "containers_occupied": 2, "bits_occupied": 64}],
    "tagalong": [{"bit_width": 16, "containers_occupied": 4, "bits_occupied": 60}],
}}


def test_stage_count_and_totals_with_their_share_of_the_pipe() -> None:
    mau = parse_mau_resources(LOG)
    assert (mau.stages_used, mau.stages_available) == (2, 3)
    assert mau.totals == {"SRAM": 48, "TCAM": 2, "Map RAM": 18, "Meter ALU": 5, "Stats ALU": 2,
                          "Hash Bit": 156, "Gateway": 6, "VLIW Instr": 12}
    # Share of all 3 stages: 48 of 3 x 80 SRAMs, 5 of 3 x 4 stateful ALUs, ...
    assert mau.pipe_percent["SRAM"] == 100 * 48 / 240
    assert mau.pipe_percent["Meter ALU"] == 100 * 5 / 12
    assert mau.pipe_percent["TCAM"] == 100 * 2 / 72
    assert mau.pipe_percent["Hash Bit"] == 100 * 156 / 1248


def test_phv_containers_by_width() -> None:
    assert parse_phv(METRICS) == PhvUsage({8: 3, 16: 4, 32: 2}, 144)
    with pytest.raises(ResourceLogError, match=r"metrics.json has no phv section"):
        parse_phv({})


def test_logs_not_in_shape() -> None:
    with pytest.raises(ResourceLogError, match=r"no per-stage count and percent tables"):
        parse_mau_resources("nothing here\n")
    renamed = LOG.replace("Meter ALU", "Stateful ALU")
    with pytest.raises(ResourceLogError, match=r"no column 'Meter ALU'"):
        parse_mau_resources(renamed)


def test_markdown_row_and_budget(tmp_path: Path) -> None:
    logs = tmp_path / "pipe" / "logs"
    logs.mkdir(parents=True)
    (logs / "mau.resources.log").write_text(LOG)
    (logs / "metrics.json").write_text(json.dumps(METRICS))
    build = resources.load_build("tofino", tmp_path)
    assert markdown_table([build]).splitlines()[2] == (
        "| tofino | 2 of 3 | 48 (20.0 %) | 2 (2.8 %) | 18 (12.5 %) | 5 (41.7 %) | 2 (16.7 %) "
        "| 156 (12.5 %) | 6 (12.5 %) | 12 (12.5 %) | 3/4/2 | 144 |")
    assert not resources.over_budget(build, 2)
    assert resources.over_budget(build, 1)
    assert not resources.over_budget(build, None)


def test_main_fails_over_budget_and_without_logs(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "pipe" / "logs"
    logs.mkdir(parents=True)
    (logs / "mau.resources.log").write_text(LOG)
    (logs / "metrics.json").write_text(json.dumps(METRICS))
    assert resources.main(["--max-stages", "t=2", f"t={tmp_path}"]) == 0
    assert resources.main(["--max-stages", "t=1", f"t={tmp_path}"]) == 1
    assert "resources: t uses 2 MAU stages, above its budget of 1" in capsys.readouterr().out
    assert resources.main([f"t={tmp_path / 'missing'}"]) == 2
    assert "compile with -g --verbose 2" in capsys.readouterr().err


def test_main_fails_when_the_documentation_states_other_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "pipe" / "logs"
    logs.mkdir(parents=True)
    (logs / "mau.resources.log").write_text(LOG)
    (logs / "metrics.json").write_text(json.dumps(METRICS))
    row = ("| t | 2 of 3 | 48 (20.0 %) | 2 (2.8 %) | 18 (12.5 %) | 5 (41.7 %) | 2 (16.7 %) "
           "| 156 (12.5 %) | 6 (12.5 %) | 12 (12.5 %) | 3/4/2 | 144 |")
    doc = tmp_path / "doc.md"
    doc.write_text(f"measured:\n\n{row}\n")
    assert resources.main(["--doc", str(doc), f"t={tmp_path}"]) == 0
    doc.write_text(f"measured:\n\n{row.replace('2 of 3', '1 of 3')}\n")
    capsys.readouterr()
    assert resources.main(["--doc", str(doc), f"t={tmp_path}"]) == 1
    assert f"resources: {doc} does not state what was measured: {row}" in (
        capsys.readouterr().out)


def test_schema_compare_ignores_snapshot_tables_and_build_fields(tmp_path: Path) -> None:
    table = {"name": "pipe.A.t", "table_type": "Register", "size": 4}

    def write(name: str, **extra: object) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps({"schema_version": "1.0.0", **extra}))
        return path

    base = write("a.json", tables=[table, {"name": "pipe.snapshot.cfg",
                                           "table_type": "SnapshotCfg", "id": 1}])
    renumbered = write("b.json", build_date="today", tables=[
        table, {"name": "pipe.snapshot.cfg", "table_type": "SnapshotCfg", "id": 2}])
    resized = write("c.json", tables=[{**table, "size": 8}])
    assert schema.same_schema(base, renumbered)
    assert not schema.same_schema(base, resized)
    assert not schema.same_schema(base, tmp_path / "absent.json")
    assert schema.main(["same", str(base), str(renumbered)]) == 0
    assert schema.main(["same", str(base), str(resized)]) == 1
    assert schema.main(["same"]) == 2


def test_build_resources_is_plain_data() -> None:
    mau = MauUsage(8, 12, {"SRAM": 1}, {"SRAM": 0.1})
    build = BuildResources("tofino", mau, PhvUsage({}, 0))
    assert build.mau.stages_used == 8
