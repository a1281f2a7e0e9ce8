"""Shared fixtures of the controller's unit tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The package lives in control/ and is not installed into the venv: make it importable
# however pytest is started (`pythonpath = ["control"]` in pyproject.toml does the same).
_CONTROL_DIR = Path(__file__).resolve().parents[1]
if str(_CONTROL_DIR) not in sys.path:
    sys.path.insert(0, str(_CONTROL_DIR))

from p4tester.p4rt import P4InfoSchema  # noqa: E402 - needs the path set up above

MINI_P4INFO = Path(__file__).resolve().parent / "fixtures" / "mini.p4info.txt"


@pytest.fixture(scope="session")
def mini_p4info_path() -> Path:
    return MINI_P4INFO


@pytest.fixture(scope="session")
def mini_schema() -> P4InfoSchema:
    """The schema of the hand-written fixture P4Info (immutable, so shared)."""
    return P4InfoSchema.from_text_file(MINI_P4INFO)


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Any]:
    """Headless Chromium for one browser test (browser_session: skips without it)."""
    from browser_session import chromium, require_browser

    require_browser()
    with chromium(tmp_path / "chromium-profile") as browser:
        yield browser
