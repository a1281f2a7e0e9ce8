"""What a first-contact check returns, and the report the checks make together.

A finding names the assumption by its number in docs/tofino.md ("Assumed and
unverified"), so the report, the doc and the test that walks both cannot drift. A
refuted finding may carry a measured rate (`measured`) that the limits use in place of
the assumed one (limits.measured_chip).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Final

REPORT_FORMAT: Final = "p4tester-tofino-check/1"


class Verdict(StrEnum):
    VERIFIED = "verified"
    REFUTED = "refuted"
    NOT_CHECKED = "not checked"


@dataclass(frozen=True, slots=True)
class Finding:
    """One assumption's verdict. `figure`: what was measured, as the line prints it;
    `changes`: what a refutation changes (or, not checked: what the user must do);
    `measured`: rates the limits take instead of the assumed ones, by name
    (pipe_pps, replication_pps, pktgen_bps)."""

    assumption: int
    name: str
    verdict: Verdict
    figure: str
    changes: str = ""
    measured: Mapping[str, float] = field(default_factory=dict)

    def line(self) -> str:
        head = f"{self.assumption:>2}. {self.name}: {self.verdict.value}"
        tail = f" ({self.changes})" if self.changes else ""
        return f"{head}: {self.figure}{tail}"


def verified(assumption: int, name: str, figure: str) -> Finding:
    return Finding(assumption, name, Verdict.VERIFIED, figure)


def refuted(assumption: int, name: str, figure: str, changes: str,
            measured: Mapping[str, float] | None = None) -> Finding:
    return Finding(assumption, name, Verdict.REFUTED, figure, changes, dict(measured or {}))


def not_checked(assumption: int, name: str, reason: str, todo: str) -> Finding:
    return Finding(assumption, name, Verdict.NOT_CHECKED, reason, todo)


@dataclass(frozen=True, slots=True)
class Report:
    """Every finding of one run, in assumption order, and what it ran on."""

    chip: str
    topology: str
    findings: tuple[Finding, ...]

    @property
    def refuted(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.verdict is Verdict.REFUTED)

    def measured(self) -> dict[str, float]:
        """The rates refuted findings measured (the limits' inputs)."""
        rates: dict[str, float] = {}
        for finding in self.refuted:
            rates.update(finding.measured)
        return rates

    def lines(self) -> list[str]:
        return [f.line() for f in self.findings]

    def to_json(self) -> dict[str, object]:
        return {"format": REPORT_FORMAT, "chip": self.chip, "topology": self.topology,
                "findings": [{"assumption": f.assumption, "name": f.name,
                              "verdict": f.verdict.value, "figure": f.figure,
                              "changes": f.changes, "measured": dict(f.measured)}
                             for f in self.findings]}


def sorted_report(chip: str, topology: str, findings: Sequence[Finding]) -> Report:
    return Report(chip, topology, tuple(sorted(findings, key=lambda f: f.assumption)))


def save_report(report: Report, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.to_json(), indent=2) + "\n")


def load_report(path: Path) -> Report:
    """A report save_report wrote (a user may attach it to an issue)."""
    document = json.loads(path.read_text())
    if not isinstance(document, dict) or document.get("format") != REPORT_FORMAT:
        raise ValueError(f"{path}: not a tofino-check report ({REPORT_FORMAT})")
    findings = tuple(
        Finding(int(f["assumption"]), str(f["name"]), Verdict(f["verdict"]), str(f["figure"]),
                str(f["changes"]), {str(k): float(v) for k, v in f["measured"].items()})
        for f in document["findings"])
    return Report(str(document["chip"]), str(document["topology"]), findings)
