"""`p4tester tofino-check` (first contact) against the fake switch with a data path
(tofino_loopback_fake.py): on an unbroken switch of either chip every assumption of
docs/tofino.md's "Assumed and unverified" is reported, verified or not checked with a
reason; on a switch that breaks one assumption, that one is refuted with its figure."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from tofino_loopback_fake import (
    FakeBench,
    LoopbackFake,
    SaturatingAluFake,
    SkewedRandomFake,
    SkewedReadFake,
    SlowPipeFake,
    StuckTimerFake,
)

from p4tester.cli import exit_codes
from p4tester.cli.tofino_check_cmd import tofino_check_command
from p4tester.config.errors import ConfigError
from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.runs.search_capacity import SearchCapacity, search_capacity
from p4tester.runs.tofino_check import tofino_check
from p4tester.targets.tofino import limits
from p4tester.targets.tofino.first_contact.findings import Report, Verdict, load_report
from p4tester.targets.tofino.measured_caps import TOFINO_CHECK_FILE

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "tofino.md"
TOPOLOGIES = {"tofino1": REPO / "topologies" / "tofino-32x100g.yaml",
              "tofino2": REPO / "topologies" / "tofino2-32x400g.yaml"}


def check(fake: LoopbackFake) -> Report:
    return tofino_check(load_topology(TOPOLOGIES[fake.chip.name]), FakeBench(fake))


def doc_section(title: str) -> str:
    text = DOC.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def documented_assumptions() -> list[int]:
    return [int(n) for n in re.findall(r"^(\d+)\. \*\*", doc_section("Assumed and unverified"),
                                       re.MULTILINE)]


def test_the_doc_lists_twenty_assumptions() -> None:
    assert documented_assumptions() == list(range(1, 21))


@pytest.mark.parametrize("chip", ["tofino1", "tofino2"])
def test_every_assumption_is_reported_and_none_refuted(chip: str) -> None:
    report = check(LoopbackFake(chip))
    assert [f.assumption for f in report.findings] == documented_assumptions()
    assert report.refuted == ()
    not_checked = {f.assumption for f in report.findings if f.verdict is Verdict.NOT_CHECKED}
    # Those a MAC loopback cannot show, the SDE's Python (no SDE here), and on Tofino 1
    # the Tofino 2 item; each says what the user must do instead.
    assert not_checked == ({6, 7, 13, 14} | ({19} if chip == "tofino1" else set()))
    for finding in report.findings:
        if finding.verdict is Verdict.NOT_CHECKED:
            assert finding.figure and finding.changes


@pytest.mark.parametrize("chip, line", [
    ("tofino1", " 2. per-pipe packet rate: verified: pipe 0 took 1227.6 Mpps in ingress at "
     "64 B (all of it, loss-free; assumed 1250.0 Mpps)"),
    ("tofino2", " 2. per-pipe packet rate: verified: pipe 0 took 1500.0 Mpps in ingress at "
     "64 B (the assumed budget; assumed 1500.0 Mpps)"),
])
def test_the_pipe_rate_line_says_what_the_run_showed(chip: str, line: str) -> None:
    assert check(LoopbackFake(chip)).lines()[1] == line


SATURATED = (
    " 1. checker and stamping logic: refuted: 7 PTF cases (in order, gaps, reordering, "
    "duplicates, wrap, stale, latency bins) through port 1/0's loopback: reordering: 0 "
    "reordered, 0 lost, expected 8 reordered, 0 lost; duplicates: 0 duplicate, 8 received, "
    "expected 1 duplicate, 8 received; wrap: 0 gap of 0 lost across 2^32, expected 1 gap of "
    "3 lost across 2^32 (the compiled checker's figures are wrong in these cases: do not "
    "trust them; report with this file)")
RETIME = (
    "17. retiming a running application: refuted: retimed from 1000 to 500 ns while running, "
    "it made 1.00 Mpps, not 2.00 (a running application keeps its period: shaped trials "
    "(ramps, square waves) do not step on this switch)")
RANDOM = (
    "16. Poisson thinning: refuted: at a threshold of 16384 of 65536 the draw dropped 50.0 % "
    "of 65536 packets, not 25.0 % (+- 0.8 %) (the random unit is not uniform: Poisson "
    "trials' rates and gaps are wrong on this switch; use constant-rate shapes)")


def skewed(packets: int) -> str:
    return ("15. switch clock across pipes: refuted: one read's last ticks of 4 pipes spread "
            "30.0 us, more than a period (1.0 us) (the pipes are not read at one moment: a "
            f"generator sample may count up to {packets} packets per line-rate port after "
            "its tick, so offered-load samples are that far off)")


@pytest.mark.parametrize("fake, line", [
    (SlowPipeFake("tofino1"), " 2. per-pipe packet rate: refuted: pipe 0 took 1000.0 Mpps in "
     "ingress at 64 B, assumed 1250.0 Mpps (line rate on every port from 128 B, assumed "
     "from 64 B)"),
    (SlowPipeFake("tofino2"), " 2. per-pipe packet rate: refuted: pipe 0 took 1000.0 Mpps in "
     "ingress at 64 B, assumed 1500.0 Mpps (line rate on every port from 512 B, assumed "
     "from 256 B)"),
    (StuckTimerFake("tofino1"), RETIME),
    (StuckTimerFake("tofino2"), RETIME),
    (SkewedReadFake("tofino1"), skewed(4457)),
    (SkewedReadFake("tofino2"), skewed(17829)),
    (SkewedRandomFake("tofino1"), RANDOM),
    (SkewedRandomFake("tofino2"), RANDOM),
    (SaturatingAluFake("tofino1"), SATURATED),
    (SaturatingAluFake("tofino2"), SATURATED),
], ids=lambda v: type(v).__name__ + "-" + v.chip.name if isinstance(v, LoopbackFake) else "")
def test_a_broken_assumption_is_refuted_with_its_figure(fake: LoopbackFake, line: str) -> None:
    report = check(fake)
    assert [f.line() for f in report.refuted] == [line]


def test_a_refuted_pipe_rate_lowers_the_limits(tmp_path: Path) -> None:
    args = argparse.Namespace(topology=TOPOLOGIES["tofino1"], output=tmp_path / "r.json",
                              json=False)
    assert tofino_check_command(args, FakeBench(SlowPipeFake())) == exit_codes.INVALID_TRIALS
    report = load_report(tmp_path / "r.json")
    assert report.measured() == {"pipe_pps": 1e9}
    chip = limits.measured_chip(limits.TOFINO1_32X100G, report.measured())
    rows = {row.frame_size: row for row in limits.limits_table(chip)}
    assert chip.pipe_pps == 1e9 and chip.replication_pps == limits.TOFINO1_32X100G.pipe_pps
    assert not rows[64].fits and rows[128].fits
    assert round(100 * rows[64].max_line_rate_fraction, 1) == 81.5  # 1000 / 1227.7
    assumed = {row.frame_size: row for row in limits.limits_table(limits.TOFINO1_32X100G)}
    assert assumed[64].fits


def test_measured_chip_refuses_a_rate_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="'queue_pps'"):
        limits.measured_chip(limits.TOFINO1_32X100G, {"queue_pps": 1.0})


def test_the_command_prints_a_line_each_and_writes_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "report.json"
    args = argparse.Namespace(topology=TOPOLOGIES["tofino2"], output=output, json=False)
    assert tofino_check_command(args, FakeBench(LoopbackFake("tofino2"))) == exit_codes.OK
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 21 and printed[-1] == f"report: {output}"
    document = json.loads(output.read_text())
    assert document["chip"] == "tofino2" and document["topology"] == "tofino2-32x400g"
    assert [f["assumption"] for f in document["findings"]] == list(range(1, 21))
    assert load_report(output) == check(LoopbackFake("tofino2"))


def test_a_topology_of_another_target_is_refused() -> None:
    with pytest.raises(ConfigError, match="tofino-check needs a Tofino topology"):
        tofino_check(load_topology(REPO / "topologies" / "loopback.yaml"),
                     FakeBench(LoopbackFake()))


def test_the_docs_sample_is_what_the_fake_prints() -> None:
    """docs/tofino.md's sample output is the unbroken Tofino 1 fake's, line for line."""
    section = doc_section("First contact: p4tester tofino-check")
    sample = section.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    assert sample == check(LoopbackFake("tofino1")).lines()


def test_a_search_on_the_switch_offers_at_most_what_its_measured_pipes_carry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report where the command writes it by default caps a throughput search on
    that chip (runs.search_capacity), as a host calibration caps a BMv2 search."""
    monkeypatch.chdir(tmp_path)
    topology = load_topology(TOPOLOGIES["tofino1"])
    profile = load_profile(REPO / "topologies" / "profiles" / "tofino-32x100g.yaml", topology)
    assert search_capacity((64, 128), topology, profile) == SearchCapacity((), ())
    args = argparse.Namespace(topology=TOPOLOGIES["tofino1"], output=TOFINO_CHECK_FILE,
                              json=False)
    assert tofino_check_command(args, FakeBench(SlowPipeFake())) == exit_codes.INVALID_TRIALS
    capacity = search_capacity((64, 128), topology, profile)
    ((size, fraction),) = capacity.max_fractions
    assert (size, round(fraction, 4)) == (64, 0.8145)  # 1000 Mpps / 1227.7 of 8 x 100G
    assert capacity.notes == (
        "64 B: the search offers at most 81.45% of line rate: what 8 ports of one pipe "
        "carry at the rates results/tofino-check.json measured (pipe_pps 1000.0 M; "
        "`p4tester tofino-check` refuted the assumed ones)",)
    # Another chip's report caps nothing here.
    tofino2 = load_topology(TOPOLOGIES["tofino2"])
    assert search_capacity((64,), tofino2, profile) == SearchCapacity((), ())
