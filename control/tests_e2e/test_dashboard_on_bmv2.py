"""Issue 43: the dashboard on a real switch. `p4tester serve` on the BMv2 loopback lab,
one latency run started from the page in headless Chromium: once it ends, and again
after a reload, every figure the page shows equals the run's own files (trials.jsonl,
summary.json, result.txt), the live figures are its last trial's, and every latency
figure is in order (the checks the simulated switch's browser tests make:
tests/dashboard_checks.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

import pytest

# The browser tests' helpers live beside them in control/tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from browser_session import (
    REPO,
    chromium,
    open_dashboard,
    require_browser,
    serve,
    start_and_end,
    until,
)
from dashboard_checks import check_recorded

PROFILE: Final = REPO / "topologies/profiles/one-stream.yaml"
# Two 1-s trials, each with its drain and the wait for a drained DUT; a busy host may
# repeat one (bounded) before the tester vouches for it.
RUN_S: Final = 120.0


@pytest.mark.topology("loopback.yaml")
def test_a_latency_run_on_the_switch_reads_as_its_record(lab: Path, tmp_path: Path) -> None:
    require_browser()
    with (serve(tmp_path, lab, PROFILE, simulate=False) as url,
          chromium(tmp_path / "chromium") as driver):
        open_dashboard(driver, url)
        run = start_and_end(driver, tmp_path / "results", "latency",
                            {"frame-size": "64", "load": "30%", "trials": "2",
                             "duration": "1"}, RUN_S)
        check_recorded(driver, run, "latency")
        driver.refresh()
        until(driver, lambda d: d.find_element("id", "result-card").is_displayed())
        check_recorded(driver, run, "latency")
