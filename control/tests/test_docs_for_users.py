"""The README and docs/ are written for users: no issue numbers, no seed file names and
no citations of test files, and a README short enough to read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README_MAX_LINES = 400

# What belongs in the project's history or its test suites, not in user documentation.
FORBIDDEN = {
    "an issue number": re.compile(r"\bissues? #?\d+", re.IGNORECASE),
    "a seed's name": re.compile(r"\bseeds?/\d+|\bseed[ -]\d{3}\b", re.IGNORECASE),
    "a test file": re.compile(r"\btest_\w+\.py\b|\b\w+_test\.py\b|\btofino_fake\.py\b"),
    "a path into a test suite": re.compile(r"(?:control/tests\w*|ptf-tests)/\S"),
}


def user_documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", user_documents(), ids=lambda path: path.name)
def test_user_documents_cite_no_issues_seeds_or_tests(path: Path) -> None:
    found = [f"{path.name}:{number}: {what}: {match.group(0)!r}"
             for number, line in enumerate(path.read_text().splitlines(), 1)
             for what, pattern in FORBIDDEN.items()
             for match in pattern.finditer(line)]
    assert found == []


def test_the_readme_stays_short() -> None:
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) < README_MAX_LINES


def test_the_patterns_find_what_they_are_for() -> None:
    samples = {"an issue number": "before issue 20 it spent",
               "a seed's name": "Queue length vs latency (seed 004)",
               "a test file": "checks it (`test_y1564.py`)",
               "a path into a test suite": "see control/tests_e2e/test_dut_drain.py"}
    for what, sample in samples.items():
        assert FORBIDDEN[what].search(sample), what
    assert not any(pattern.search("ptf-tests/       PTF suite run on BMv2")
                   for pattern in FORBIDDEN.values())
