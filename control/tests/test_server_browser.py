"""The dashboard in a real browser: Debian's chromium, headless, driven by selenium
through Debian's chromedriver (no browser download). `p4tester serve --simulate` runs
as a user starts it; the test starts a throughput run from the page and watches the
live chart move and the result table appear, then saves a screenshot.

Skips (saying why) without chromium; fails instead under CI=true or
REQUIRE_P4_TOOLCHAIN=1, as the e2e suite does. P4TESTER_SCREENSHOT=path also writes
the screenshot there (docs/dashboard.png is made so).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from p4tester.results.jsonl import ResultLog

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TOKEN = "browser-test-token-0123456789"
START_S = 20.0
RUN_S = 40.0
CHROME_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1440,1000")


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


@pytest.fixture
def server(tmp_path: Path, browser_prerequisites: None) -> Iterator[str]:
    """`p4tester serve --simulate` on a free loopback port; stopped in finally."""
    port = _free_port()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "p4tester.server", "-t", str(REPO / "topologies/loopback.yaml"),
         "-p", str(REPO / "topologies/profiles/one-stream.yaml"), "--simulate",
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


def test_dashboard_runs_a_simulated_throughput_search(server: str, tmp_path: Path) -> None:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(START_S)
        driver.get(server + "/")
        wait = WebDriverWait(driver, RUN_S, ignored_exceptions=(StaleElementReferenceException,))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#options [data-option]"))
        Select(driver.find_element(By.ID, "experiment")).select_by_value("throughput")
        Select(driver.find_element(By.NAME, "method")).select_by_value("binary")
        driver.find_element(By.NAME, "frame-sizes").send_keys("64")
        driver.find_element(By.NAME, "duration").send_keys("1")
        driver.find_element(By.ID, "token").send_keys(TOKEN)
        driver.find_element(By.ID, "start").click()
        # The live rate chart draws TX and RX lines once counters move.
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#chart-rate polyline")) == 2)
        # Read in the page, in one step: the chart redraws its SVG with every live event,
        # so an element found first and read afterwards may be gone (stale) in between.
        tx_points = ("return document.querySelector('#chart-rate polyline.tx')"
                     "?.getAttribute('points')")
        first = driver.execute_script(tx_points)
        wait.until(lambda d: d.execute_script(tx_points) not in (None, first))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#chart-search circle"))
        # The run ends and its result table appears.
        wait.until(lambda d: d.find_element(By.ID, "result-card").is_displayed())
        # One snapshot of the page, taken in the page: live events keep redrawing it.
        page = driver.execute_script("""
            const all = (selector) => document.querySelectorAll(selector).length;
            return {
                rows: all('#result-table tbody tr'),
                state: document.getElementById('run-state').textContent,
                trials_done: document.getElementById('trials-done').textContent,
                result_text: document.getElementById('result-text').innerText,
                dots: all('#chart-search circle'),
                histogram_bars: all('#chart-histogram rect'),
                errors: document.getElementById('message').className,
            };""")
        rows, state = page["rows"], page["state"].strip()
        trials_done = int(page["trials_done"])
        result_text, dots = page["result_text"], page["dots"]
        histogram_bars, errors = page["histogram_bars"], page["errors"]
        # The Counters panel shows the run's last trial, as its own record has it, and
        # says so (the registers' min/max beside them restart with each trial).
        [run_dir] = (tmp_path / "results").iterdir()
        last = ResultLog(run_dir / "trials.jsonl").load()[-1]
        counters_shown = ("const card = document.getElementById('counters').closest('.card');"
                          "return [card.querySelector('.scope').textContent, ...Array.from("
                          "card.querySelectorAll('#counters tbody tr:first-child td'))"
                          ".slice(1, 3).map((td) => td.textContent)];")
        expected = [f"trial {last.trial_index} of run {run_dir.name}", str(last.tx_frames),
                    str(last.rx_frames)]
        wait.until(lambda d: d.execute_script(counters_shown) == expected)
        driver.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.5)  # one more live event, so the chart shows the end of the run
        shot = tmp_path / "dashboard.png"
        assert driver.save_screenshot(str(shot))
        target = os.environ.get("P4TESTER_SCREENSHOT")
        if target:
            shutil.copyfile(shot, target)
    finally:
        driver.quit()
    assert state == "finished"
    assert rows == trials_done == dots
    assert trials_done >= 5
    assert result_text.splitlines()[0].split()[:3] == ["frame", "B", "NDR"]
    assert histogram_bars > 0  # the latency histogram has samples
    assert errors != "warn"
    assert shot.stat().st_size > 10_000
