"""The dashboard in a real browser: Debian's chromium, headless, driven by selenium
through Debian's chromedriver (no browser download). `p4tester serve --simulate` runs
as a user starts it; the tests start a throughput search, a soak and a Y.1564 run from
the page and read the figures off it, live and after a reload: each equals the run's
own trials.jsonl (tests/dashboard_expect.py prints them as the page does).

Skips (saying why) without chromium; fails instead under CI=true or
REQUIRE_P4_TOOLCHAIN=1, as the e2e suite does. P4TESTER_SCREENSHOTS=dir also writes
screenshots at 1280 and 1920 px during each run there (docs/screenshots/ is made so).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from dashboard_expect import DASH, bound_rows, interval_rows, result_rows, service_rows, us

from p4tester.results.jsonl import ResultLog
from p4tester.results.latency import clamped_percentiles
from p4tester.results.model import TrialResult
from p4tester.server.auth import TokenRequiredError
from p4tester.server.progress import bounds_of, search_points

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TOKEN = "browser-test-token-0123456789"
START_S = 20.0
RUN_S = 40.0
WIDTHS = (1280, 1920)
SCREENSHOT_HEIGHT = 1350
CHROME_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1440,1000", "--hide-scrollbars")
KIND_PANELS = ("search-panel", "steps-card", "intervals-card", "services-card")

# Read in the page, in one step: the page redraws with every live event, so an element
# found first and read afterwards may be gone (stale) in between.
READ_TABLE = ("return Array.from(document.querySelectorAll(`#${arguments[0]} tbody tr`))"
              ".map((r) => Array.from(r.cells).map((c) => c.textContent))")
READ_PANELS = ("return Object.fromEntries(arguments[0].map((id) => "
               "[id, !document.getElementById(id).hidden]))")
READ_PROGRESS = """
    const text = (id) => {
        const e = document.getElementById(id);
        return e ? e.textContent : null;
    };
    const row = document.querySelector('#runs tbody tr');
    return {state: text('run-state'), done: text('trials-done'), plan: text('plan'),
            left: text('left'), elapsed: text('elapsed'), current: text('current-trial'),
            listed_run: row ? row.cells[0].textContent : null,
            listed_trials: row ? row.cells[2].textContent : null};"""
READ_COUNTERS = """
    const card = document.getElementById('counters').closest('.card');
    const cells = Array.from(card.querySelectorAll('#counters tbody tr:first-child td'))
        .map((td) => td.textContent);
    return {scope: card.querySelector('.scope').textContent, cells: cells,
            percentiles: document.getElementById('percentiles').textContent};"""
READ_LAYOUT = """
    const width = window.innerWidth;
    const boxes = Array.from(document.querySelectorAll('.card, figure, pre'))
        .filter((e) => e.offsetParent !== null)
        .map((e) => e.getBoundingClientRect().right);
    return {width: width, page: document.documentElement.scrollWidth,
            rightmost: Math.max(...boxes), height: document.documentElement.scrollHeight};"""


def _required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("REQUIRE_P4_TOOLCHAIN") == "1"


def _missing() -> str | None:
    absent = [p for p in (CHROMIUM, CHROMEDRIVER) if shutil.which(p) is None]
    if absent:
        return f"{', '.join(absent)} not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed (requirements.txt)"
    return None


@pytest.fixture
def browser_prerequisites() -> None:
    reason = _missing()
    if reason is None:
        return
    if _required():
        pytest.fail(f"browser test FAILED: {reason}; CI=true requires it")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _serve(tmp_path: Path, topology: str, profile: str) -> Iterator[str]:
    """`p4tester serve --simulate` on a free loopback port; stopped in finally."""
    port = _free_port()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "p4tester.server", "-t", str(REPO / "topologies" / topology),
         "-p", str(REPO / "topologies/profiles" / profile), "--simulate",
         "--sim-time-scale", "0.3", "--bind", f"127.0.0.1:{port}", "--token-file",
         str(token_file), "--results", str(tmp_path / "results")],
        cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(REPO / "control")})
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("server did not start: "
                                         + (tmp_path / "server.log").read_text()) from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        log.close()


@pytest.fixture
def server(tmp_path: Path, browser_prerequisites: None) -> Iterator[str]:
    with _serve(tmp_path, "loopback.yaml", "one-stream.yaml") as url:
        yield url


@pytest.fixture
def services_server(tmp_path: Path, browser_prerequisites: None) -> Iterator[str]:
    with _serve(tmp_path, "bmv2-services.yaml", "y1564-services.yaml") as url:
        yield url


@pytest.fixture
def driver(tmp_path: Path, browser_prerequisites: None) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_page_load_timeout(START_S)
    try:
        yield browser
    finally:
        browser.quit()


def _until(driver: Any, check: Callable[[Any], Any], timeout_s: float = RUN_S) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, timeout_s, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(check)


def _start(driver: Any, experiment: str, options: dict[str, str]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element(By.ID, "experiment")).select_by_value(experiment)
    for name, value in options.items():
        field = driver.find_element(By.NAME, name)
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.send_keys(value)
    token = driver.find_element(By.ID, "token")
    if not token.get_attribute("value"):
        token.send_keys(TOKEN)
    driver.find_element(By.ID, "start").click()
    _until(driver, lambda d: d.execute_script(READ_PROGRESS)["state"] == "running")


def _shown_panels(driver: Any) -> set[str]:
    shown = driver.execute_script(READ_PANELS, list(KIND_PANELS))
    return {panel for panel, visible in shown.items() if visible}


def _check_layout(driver: Any, name: str) -> None:
    """At each width: nothing wider than the window (a wide report scrolls inside its
    card); with P4TESTER_SCREENSHOTS=dir, a screenshot of the page there."""
    target = os.environ.get("P4TESTER_SCREENSHOTS")
    for width in WIDTHS:
        driver.set_window_size(width, SCREENSHOT_HEIGHT)
        time.sleep(0.3)  # the charts redraw on resize
        layout = driver.execute_script(READ_LAYOUT)
        assert layout["page"] <= layout["width"], (name, width, layout)
        assert layout["rightmost"] <= layout["width"], (name, width, layout)
        if target:
            assert driver.save_screenshot(str(Path(target) / f"dashboard-{name}-{width}.png"))
    driver.set_window_size(1440, 1000)


def _progress_agrees(driver: Any, run_id: str) -> dict[str, str]:
    """Progress and Past runs, read in one step, once they show the same trial count."""
    def agreed(d: Any) -> dict[str, str] | None:
        page: dict[str, str] = d.execute_script(READ_PROGRESS)
        same = page["listed_run"] == run_id and page["listed_trials"] == page["done"]
        return page if same and int(page["done"] or 0) > 0 else None
    page: dict[str, str] = _until(driver, agreed)
    assert re.fullmatch(r"\d+ s|\d+ min \d\d s", page["elapsed"]), page
    return page


def _ended(driver: Any) -> None:
    _until(driver, lambda d: d.execute_script(READ_PROGRESS)["state"] == "finished"
           and d.find_element("id", "result-card").is_displayed())


def _run_dir(results: Path, experiment: str) -> Path:
    [found] = [d for d in results.iterdir() if d.name.endswith(f"-{experiment}")]
    return found


def _trials(run: Path) -> list[TrialResult]:
    return ResultLog(run / "trials.jsonl").load()


def _check_last_trial_live(driver: Any, run: Path) -> None:
    """The Counters panel and the latency caption show the run's last trial, the
    percentiles from its histogram clamped to its min/max, in order."""
    last = _trials(run)[-1]
    [stream] = last.streams
    lat = stream.latency
    assert lat is not None
    p50, p99, p999 = clamped_percentiles(lat.histogram, lat.min_us, lat.max_us)
    expected_cells = [str(last.tx_frames), str(last.rx_frames), us(lat.min_us),
                      us(lat.avg_us), us(lat.max_us), us(p50), us(p99)]
    caption = (f"min {us(lat.min_us)} · p50 {us(p50)} · p99 {us(p99)} · p99.9 {us(p999)} · "
               f"max {us(lat.max_us)} µs")

    def shown(d: Any) -> dict[str, Any] | None:
        page: dict[str, Any] = d.execute_script(READ_COUNTERS)
        cells = page["cells"]
        figures = [cells[1], cells[2], *cells[6:11]] if len(cells) >= 11 else []
        ok = (page["scope"] == f"trial {last.trial_index} of run {run.name}"
              and figures == expected_cells and page["percentiles"] == caption)
        return page if ok else None

    page = _until(driver, shown, 10.0)
    numbers = [float(x) for x in re.findall(r"(?:^|· )\S+ (?:≥ )?(\d+\.\d)", page["percentiles"])]
    low, median, high99, high999, top = numbers
    assert low <= median <= high99 <= high999 <= top


def test_dashboard_search_then_soak_tell_one_story(server: str, tmp_path: Path,
                                                   driver: Any) -> None:
    from selenium.webdriver.common.by import By
    results = tmp_path / "results"
    driver.get(server + "/")
    _until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#options [data-option]"))
    assert _shown_panels(driver) == set()  # no run yet: no experiment's panels

    # Without the token the page says where it goes (the API's detail is for clients).
    driver.find_element(By.ID, "start").click()
    _until(driver, lambda d: d.find_element(By.ID, "message").text == TokenRequiredError.browser)
    assert "needed" in driver.find_element(By.ID, "token").get_attribute("class")

    # ---- a throughput search: its search panel only, bounds from its record ----------
    _start(driver, "throughput", {"method": "binary", "frame-sizes": "64,512",
                                  "duration": "1"})
    search = _run_dir(results, "throughput")
    page = _progress_agrees(driver, search.name)
    assert re.fullmatch(r"search: frame size (64|512) B, phase [12] of 2; \d+ trials so far",
                        page["plan"]), page
    assert _shown_panels(driver) == {"search-panel"}
    _check_layout(driver, "throughput")
    _ended(driver)
    trials = _trials(search)
    expected_bounds = bound_rows(bounds_of(search_points(trials), 0.005))
    _until(driver, lambda d: d.execute_script(READ_TABLE, "bounds") == expected_bounds)
    assert driver.execute_script(READ_TABLE, "result-table") == result_rows(trials)
    dots = driver.execute_script("return document.querySelectorAll('#chart-search circle').length")
    assert dots == len(trials) == int(driver.execute_script(READ_PROGRESS)["done"])
    assert driver.execute_script("return document.getElementById('result-text').innerText"
                                 ).splitlines()[0].split()[:3] == ["frame", "B", "NDR"]

    # ---- a soak after the lossy search: intervals only; TX - RX = 0 -----------------
    _start(driver, "soak", {"load": "30%", "total": "20", "interval": "2"})
    soak = _run_dir(results, "soak")
    page = _progress_agrees(driver, soak.name)
    done = int(page["done"])
    assert page["plan"] == f"soak: {2 * done} s of 20 s ({done} of 10 intervals)", page
    assert page["current"] in (DASH, *(f"#{i}: 64 B at 30.00 % (2232 frames/s), 2 s"
                                     for i in range(10))), page
    assert _shown_panels(driver) == {"intervals-card"}
    _check_layout(driver, "soak")
    _ended(driver)
    trials = _trials(soak)
    assert len(trials) == 10
    assert driver.execute_script(READ_TABLE, "intervals") == interval_rows(trials)
    assert driver.execute_script(READ_TABLE, "result-table") == result_rows(trials)
    _check_last_trial_live(driver, soak)
    counters = driver.execute_script(READ_COUNTERS)["cells"]
    assert int(counters[1]) - int(counters[2]) == 0

    # ---- after a reload: the same figures, from the record --------------------------
    driver.refresh()
    _until(driver, lambda d: d.find_element(By.ID, "result-card").is_displayed())
    _until(driver, lambda d: d.execute_script(READ_TABLE, "intervals") == interval_rows(trials))
    assert driver.execute_script(READ_TABLE, "result-table") == result_rows(trials)
    assert _shown_panels(driver) == {"intervals-card"}
    _check_last_trial_live(driver, soak)

    # ---- a past run clicked: its own card and panels --------------------------------
    driver.find_element(By.CSS_SELECTOR, f'a.show-run[data-run="{search.name}"]').click()
    search_trials = _trials(search)
    _until(driver, lambda d: d.execute_script(READ_TABLE, "result-table")
           == result_rows(search_trials))
    assert _shown_panels(driver) == {"search-panel"}
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
    driver.get(services_server + "/")
    _until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#options [data-option]"))
    _start(driver, "y1564", {"step-duration": "2", "performance-duration": "4"})
    run = _run_dir(results, "y1564")
    page = _progress_agrees(driver, run.name)
    assert page["plan"] == f"{page['done']} of 12 trials", page
    assert _shown_panels(driver) == {"services-card"}
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
    _ended(driver)
    trials = _trials(run)
    expected = service_rows(trials, {"gold": 0, "silver": 1})
    assert len(expected) == 13  # gold 6 steps, silver 5, the performance test for both
    _until(driver, lambda d: d.execute_script(READ_TABLE, "services") == expected)
    assert driver.execute_script(READ_TABLE, "result-table") == result_rows(trials)
    # Each step's IR is the report's (result.txt lists the steps in the same order).
    report = (run / "result.txt").read_text()
    report_ir = re.findall(r"^\w+ +(?:cir \d+%|eir|policing|performance) +\S+ Mb/s +(\S+) "
                           r"Mb/s", report, re.MULTILINE)
    assert [row[4] for row in expected] == report_ir
    driver.refresh()
    _until(driver, lambda d: d.execute_script(READ_TABLE, "services") == expected)
    assert _shown_panels(driver) == {"services-card"}
