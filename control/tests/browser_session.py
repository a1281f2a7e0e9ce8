"""What the browser tests share: `p4tester serve --simulate` started as a user starts
it, headless Debian chromium driven by selenium, and the page read in one step
(the page redraws with every live event, so an element found first and read
afterwards may be gone in between).

Skips (saying why) without chromium; fails instead under CI=true or
REQUIRE_P4_TOOLCHAIN=1, as the e2e suite does.
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

from p4tester.results.jsonl import ResultLog
from p4tester.results.model import TrialResult

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TOKEN = "browser-test-token-0123456789"
START_S = 20.0
RUN_S = 40.0
CHROME_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1440,1000", "--hide-scrollbars")
# The panels of one kind of experiment, and the live one of streams on several ports.
KIND_PANELS = ("search-panel", "steps-card", "intervals-card", "services-card",
               "receivers-card")

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
    const run = document.querySelector('#progress a');
    return {state: text('run-state'), done: text('trials-done'), plan: text('plan'),
            left: text('left'), elapsed: text('elapsed'), current: text('current-trial'),
            run: run ? run.textContent : null,
            listed_run: row ? row.cells[0].textContent : null,
            listed_trials: row ? row.cells[2].textContent : null};"""
READ_COUNTERS = """
    const card = document.getElementById('counters').closest('.card');
    const rows = Array.from(card.querySelectorAll('#counters tbody tr'))
        .map((r) => Array.from(r.cells).map((td) => td.textContent));
    return {scope: card.querySelector('.scope').textContent, rows: rows,
            percentiles: document.getElementById('percentiles').textContent};"""
READ_RECEIVERS = """
    const card = document.getElementById('receivers-card');
    return {hidden: card.hidden, scope: card.querySelector('.scope').textContent,
            rows: Array.from(card.querySelectorAll('#receivers tbody tr'))
                .map((r) => Array.from(r.cells).map((td) => td.textContent)),
            notes: document.getElementById('receivers-notes').textContent};"""
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


def require_browser() -> None:
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
def serve(where: Path, topology: Path, profile: Path, scale: float = 0.3,
          simulate: bool = True) -> Iterator[str]:
    """`p4tester serve --simulate` (or, `simulate` False, on the topology's switch) on a
    free loopback port, its runs under where/results; stopped in finally."""
    port = _free_port()
    simulated = ["--simulate", "--sim-time-scale", str(scale)] if simulate else []
    token_file = where / "token"
    token_file.write_text(TOKEN + "\n")
    log = (where / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "p4tester.server", "-t", str(topology), "-p", str(profile),
         *simulated, "--bind", f"127.0.0.1:{port}",
         "--token-file", str(token_file), "--results", str(where / "results")],
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
                                         + (where / "server.log").read_text()) from None
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


@contextmanager
def chromium(profile_dir: Path) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_page_load_timeout(START_S)
    try:
        yield browser
    finally:
        browser.quit()


def until(driver: Any, check: Callable[[Any], Any], timeout_s: float = RUN_S) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, timeout_s, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(check)


def open_dashboard(driver: Any, url: str) -> None:
    from selenium.webdriver.common.by import By
    driver.get(url + "/")
    until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#options [data-option]"))


def fill_form(driver: Any, experiment: str, options: dict[str, str]) -> None:
    """The experiment and its options typed into the form, the token too, and Start."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element(By.ID, "experiment")).select_by_value(experiment)
    for name, value in options.items():
        field = driver.find_element(By.NAME, name)
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    token = driver.find_element(By.ID, "token")
    if not token.get_attribute("value"):
        token.send_keys(TOKEN)
    driver.find_element(By.ID, "start").click()


def start(driver: Any, experiment: str, options: dict[str, str]) -> None:
    """Started from the page; returns once the page shows it running."""
    fill_form(driver, experiment, options)
    until(driver, lambda d: d.execute_script(READ_PROGRESS)["state"] == "running")


def start_and_end(driver: Any, results: Path, experiment: str,
                  options: dict[str, str], timeout_s: float = RUN_S) -> Path:
    """Started from the page; returns its run directory once the page shows it ended
    (a short run may end before the page first shows it running)."""
    before = set(results.iterdir()) if results.is_dir() else set()
    fill_form(driver, experiment, options)
    [run] = until(driver, lambda _d: [d for d in results.iterdir() if d not in before]
                  if results.is_dir() else [])
    until(driver, lambda d: d.execute_script(READ_PROGRESS)["run"] == run.name, timeout_s)
    ended(driver, timeout_s)
    return Path(run)


def shown_panels(driver: Any) -> set[str]:
    shown = driver.execute_script(READ_PANELS, list(KIND_PANELS))
    return {panel for panel, visible in shown.items() if visible}


def check_layout(driver: Any, name: str, widths: tuple[int, ...], height: int) -> None:
    """At each width: nothing wider than the window (a wide report scrolls inside its
    card); with P4TESTER_SCREENSHOTS=dir, a screenshot of the page there."""
    target = os.environ.get("P4TESTER_SCREENSHOTS")
    for width in widths:
        driver.set_window_size(width, height)
        time.sleep(0.3)  # the charts redraw on resize
        layout = driver.execute_script(READ_LAYOUT)
        assert layout["page"] <= layout["width"], (name, width, layout)
        assert layout["rightmost"] <= layout["width"], (name, width, layout)
        if target:
            assert driver.save_screenshot(str(Path(target) / f"dashboard-{name}-{width}.png"))
    driver.set_window_size(1440, 1000)


def progress_agrees(driver: Any, run_id: str) -> dict[str, str]:
    """Progress and Past runs, read in one step, once they show the same trial count."""
    def agreed(d: Any) -> dict[str, str] | None:
        page: dict[str, str] = d.execute_script(READ_PROGRESS)
        same = page["listed_run"] == run_id and page["listed_trials"] == page["done"]
        return page if same and int(page["done"] or 0) > 0 else None
    page: dict[str, str] = until(driver, agreed)
    assert re.fullmatch(r"\d+ s|\d+ min \d\d s", page["elapsed"]), page
    return page


def ended(driver: Any, timeout_s: float = RUN_S) -> None:
    until(driver, lambda d: d.execute_script(READ_PROGRESS)["state"] == "finished"
          and d.find_element("id", "result-card").is_displayed(), timeout_s)


def run_dir(results: Path, experiment: str) -> Path:
    [found] = [d for d in results.iterdir() if d.name.endswith(f"-{experiment}")]
    return found


def trials_of(run: Path) -> list[TrialResult]:
    return ResultLog(run / "trials.jsonl").load()
