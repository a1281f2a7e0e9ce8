"""The dashboard in a real browser (tests/browser_session.py): `p4tester serve
--simulate` runs as a user starts it; the tests start a throughput search, a soak and a
Y.1564 run from the page and read the figures off it, live and after a reload: each
equals the run's own files (tests/dashboard_checks.py). The other kinds of run are in
test_server_browser_kinds.py, streams on several ports in
test_server_browser_receivers.py.

P4TESTER_SCREENSHOTS=dir also writes screenshots at 1280 and 1920 px during each run
there (docs/screenshots/ is made so).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_session import (
    READ_COUNTERS,
    READ_LAYOUT,
    READ_PROGRESS,
    READ_TABLE,
    REPO,
    ended,
    open_dashboard,
    progress_agrees,
    require_browser,
    run_dir,
    serve,
    shown_panels,
    start,
    trials_of,
    until,
)
from browser_session import (
    check_layout as _layout,
)
from dashboard_checks import SERVICES, check_recorded
from dashboard_expect import DASH, result_rows, service_rows

from p4tester.server.auth import TokenRequiredError

WIDTHS = (1280, 1920)
SCREENSHOT_HEIGHT = 1350


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    require_browser()
    with serve(tmp_path, REPO / "topologies/loopback.yaml",
               REPO / "topologies/profiles/one-stream.yaml") as url:
        yield url


@pytest.fixture
def services_server(tmp_path: Path) -> Iterator[str]:
    require_browser()
    with serve(tmp_path, REPO / "topologies/bmv2-services.yaml",
               REPO / "topologies/profiles/y1564-services.yaml") as url:
        yield url




def _check_layout(driver: Any, name: str) -> None:
    _layout(driver, name, WIDTHS, SCREENSHOT_HEIGHT)


def test_dashboard_search_then_soak_tell_one_story(server: str, tmp_path: Path,
                                                   driver: Any) -> None:
    from selenium.webdriver.common.by import By
    results = tmp_path / "results"
    open_dashboard(driver, server)
    assert shown_panels(driver) == set()  # no run yet: no experiment's panels

    # Without the token the page says where it goes (the API's detail is for clients).
    driver.find_element(By.ID, "start").click()
    until(driver, lambda d: d.find_element(By.ID, "message").text == TokenRequiredError.browser)
    assert "needed" in driver.find_element(By.ID, "token").get_attribute("class")

    # ---- a throughput search: its search panel only, bounds from its record ----------
    start(driver, "throughput", {"method": "binary", "frame-sizes": "64,512",
                                  "duration": "1"})
    search = run_dir(results, "throughput")
    page = progress_agrees(driver, search.name)
    assert re.fullmatch(r"search: frame size (64|512) B, phase [12] of 2; \d+ trials so far",
                        page["plan"]), page
    assert shown_panels(driver) == {"search-panel"}
    _check_layout(driver, "throughput")
    ended(driver)
    trials = trials_of(search)
    check_recorded(driver, search, "throughput")
    dots = driver.execute_script("return document.querySelectorAll('#chart-search circle').length")
    assert dots == len(trials) == int(driver.execute_script(READ_PROGRESS)["done"])
    assert driver.execute_script("return document.getElementById('result-text').innerText"
                                 ).splitlines()[0].split()[:3] == ["frame", "B", "NDR"]

    # ---- a soak after the lossy search: intervals only; TX - RX = 0 -----------------
    start(driver, "soak", {"load": "30%", "total": "20", "interval": "2"})
    soak = run_dir(results, "soak")
    page = progress_agrees(driver, soak.name)
    done = int(page["done"])
    assert page["plan"] == f"soak: {2 * done} s of 20 s ({done} of 10 intervals)", page
    assert page["current"] in (DASH, *(f"#{i}: 64 B at 30.00 % (2232 frames/s), 2 s"
                                     for i in range(10))), page
    assert shown_panels(driver) == {"intervals-card"}
    _check_layout(driver, "soak")
    ended(driver)
    assert len(trials_of(soak)) == 10
    check_recorded(driver, soak, "soak")
    [counters] = driver.execute_script(READ_COUNTERS)["rows"]
    assert int(counters[1]) - int(counters[2]) == 0

    # ---- after a reload: the same figures, from the record --------------------------
    driver.refresh()
    until(driver, lambda d: d.find_element(By.ID, "result-card").is_displayed())
    check_recorded(driver, soak, "soak")

    # ---- a past run clicked: its own card and panels --------------------------------
    driver.find_element(By.CSS_SELECTOR, f'a.show-run[data-run="{search.name}"]').click()
    search_trials = trials_of(search)
    until(driver, lambda d: d.execute_script(READ_TABLE, "result-table")
           == result_rows(search_trials))
    assert shown_panels(driver) == {"search-panel"}
    assert driver.find_element(By.ID, "result-run").text == search.name

    # ---- the run page: its trials to their precision, within the window -------------
    driver.set_window_size(WIDTHS[0], 1000)
    driver.get(f"{server}/runs/{soak.name}")
    cells = driver.execute_script("return Array.from(document.querySelectorAll('td'))"
                                  ".map((c) => c.textContent)")
    assert [c for c in cells if re.fullmatch(r"-?\d+\.\d{3,}", c)] == []
    layout = driver.execute_script(READ_LAYOUT)
    assert layout["page"] <= layout["width"], layout


def test_dashboard_y1564_shows_each_services_steps(services_server: str, tmp_path: Path,
                                                   driver: Any) -> None:
    from selenium.webdriver.common.by import By
    results = tmp_path / "results"
    open_dashboard(driver, services_server)
    start(driver, "y1564", {"step-duration": "2", "performance-duration": "4"})
    run = run_dir(results, "y1564")
    page = progress_agrees(driver, run.name)
    assert page["plan"] == f"{page['done']} of 12 trials", page
    assert shown_panels(driver) == {"services-card"}
    # Nothing lost: the loss chart's axis reads 0..1, not a scale from a tiny floor
    # (1.10e-9); RX is dashed, so an equal TX under it still shows.
    ticks = driver.execute_script("return Array.from(document.querySelectorAll("
                                  "'#chart-loss .tick')).map((t) => t.textContent)")
    assert ticks[:5] == ["0", "0.250", "0.500", "0.750", "1"], ticks
    dashes = driver.execute_script("const line = document.querySelector('#chart-rate "
                                   "polyline.rx'); return getComputedStyle(line)"
                                   ".strokeDasharray")
    assert dashes not in ("", "none"), dashes
    _check_layout(driver, "y1564")
    ended(driver)
    trials = trials_of(run)
    expected = service_rows(trials, SERVICES)
    assert len(expected) == 13  # gold 6 steps, silver 5, the performance test for both
    check_recorded(driver, run, "y1564")
    # Each step's IR is the report's (result.txt lists the steps in the same order).
    report = (run / "result.txt").read_text()
    report_ir = re.findall(r"^\w+ +(?:cir \d+%|eir|policing|performance) +\S+ Mb/s +(\S+) "
                           r"Mb/s", report, re.MULTILINE)
    assert [row[4] for row in expected] == report_ir
    driver.refresh()
    until(driver, lambda d: d.find_element(By.ID, "result-card").is_displayed())
    check_recorded(driver, run, "y1564")
