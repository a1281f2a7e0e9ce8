"""A stream received on several ports on the dashboard, in a real browser
(tests/browser_session.py): the per-RX-port panel shows each port's frames, loss and
share over the same trial as Counters, and equals the run's last trial in
trials.jsonl port by port, live and after a reload (tests/dashboard_checks.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_session import (
    READ_RECEIVERS,
    REPO,
    open_dashboard,
    require_browser,
    serve,
    shown_panels,
    start,
    trials_of,
    until,
)
from dashboard_checks import check_recorded

# One stream replicated to ports 2 and 3, one spread over 3 and 2 (the panel keeps
# the profile's port order); together they overload the simulated DUT from 30 %.
PROFILE = """\
name: several-ports
trial: {duration_s: 1, drain_s: 0.5, settle_s: 0.5}
frame_sizes: [64]
latency_bins_us: {log_high_us: 1000000}
streams:
  - {id: 0, tx_port: 1, rx_port: [2, 3], receive: replicate, share: 0.5}
  - {id: 1, tx_port: 1, rx_port: [3, 2], receive: spread, share: 0.5, udp_src_port: 50000}
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    require_browser()
    profile = tmp_path / "several-ports.yaml"
    profile.write_text(PROFILE)
    with serve(tmp_path, REPO / "topologies/bmv2-bridge-replicate.yaml", profile) as url:
        yield url




def test_each_rx_port_of_a_stream_reads_as_its_trial(server: str, tmp_path: Path,
                                                    driver: Any) -> None:
    open_dashboard(driver, server)
    # The profile's, before any run, from the first live reading on.
    until(driver, lambda d: shown_panels(d) == {"receivers-card"}, 10.0)
    start(driver, "ramp", {"start": "15%", "end": "45%", "step": "15%", "duration": "1"})
    [run] = (tmp_path / "results").iterdir()
    # While it runs: the panel covers the trial going on, as Counters does.
    page = until(driver, lambda d: (p := d.execute_script(READ_RECEIVERS))["scope"].endswith(
        f" of run {run.name}") and len(p["rows"]) == 4 and p)
    assert [row[:3] for row in page["rows"]] == [["0", "replicate", "2"], ["0", "replicate", "3"],
                                                 ["1", "spread", "3"], ["1", "spread", "2"]]
    until(driver, lambda d: d.find_element("id", "result-card").is_displayed())
    last = trials_of(run)[-1]
    replicated, spread = last.streams
    assert replicated.lost > 0 and [r.port for r in spread.receivers] == [3, 2]
    check_recorded(driver, run, "ramp", receivers=True)
    driver.refresh()
    until(driver, lambda d: d.find_element("id", "result-card").is_displayed())
    check_recorded(driver, run, "ramp", receivers=True)
