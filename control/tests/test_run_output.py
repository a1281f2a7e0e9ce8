"""summary.json (and --json) carry the lines the run printed for a person, so a verdict
such as "could not measure ... on this host" is not lost to a machine reader."""

from __future__ import annotations

import json
from pathlib import Path

from p4tester.runs.outputs import write_outputs


def test_the_report_lines_are_in_the_summary(tmp_path: Path) -> None:
    text = "64 B: avg latency = 1 us/% x buffer\n64 B: could not measure max latency vs buffer"
    document = write_outputs(tmp_path, {"by_size": []}, (), text)
    expected = ["64 B: avg latency = 1 us/% x buffer",
                "64 B: could not measure max latency vs buffer"]
    assert document["report"] == expected
    assert json.loads((tmp_path / "summary.json").read_text())["report"] == expected


def test_no_report_is_an_empty_list(tmp_path: Path) -> None:
    assert write_outputs(tmp_path, {"replotted_trials": 0}, ())["report"] == []
