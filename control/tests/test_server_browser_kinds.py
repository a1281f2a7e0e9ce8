"""Every kind of run the simulated switch stands in for, started from the dashboard
in a real browser (tests/browser_session.py): once it ends, every figure the page
shows equals the run's own files, in order where they are latencies, with only its
kind's panels (tests/dashboard_checks.py); the same after a reload. Throughput, soak
and Y.1564 are in test_server_browser.py; queue-sweep the simulated switch refuses
(test_server_bad_input.py). Short trials and one server per profile keep it quick.

A value the page sends that the CLI would refuse answers 400 with the CLI's words,
shown by the field it is about.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Final

import pytest
from browser_session import (
    REPO,
    chromium,
    fill_form,
    open_dashboard,
    require_browser,
    serve,
    start_and_end,
    until,
)
from dashboard_checks import check_recorded

from p4tester.runs.catalog import EXPERIMENTS

TOPOLOGY: Final = REPO / "topologies/loopback.yaml"
PROFILES: Final = REPO / "topologies/profiles"
# Each kind: the profile it needs and options that keep its run to a few seconds.
KINDS: Final[dict[str, tuple[str, dict[str, str]]]] = {
    "latency": ("one-stream.yaml", {"frame-size": "64", "load": "30%", "duration": "0.5"}),
    "frame-loss": ("one-stream.yaml", {"frame-sizes": "64", "duration": "0.5"}),
    "back-to-back": ("one-stream.yaml", {"frame-size": "64", "throughput": "50%",
                                         "repetitions": "1", "duration": "0.5"}),
    "frame-size-scan": ("one-stream.yaml", {"start": "64", "end": "512", "step": "448",
                                            "load": "60%", "duration": "0.5"}),
    "ramp": ("one-stream.yaml", {"start": "20%", "end": "60%", "step": "20%",
                                 "duration": "0.5"}),
    "shape": ("one-stream.yaml", {"shape": "sine,period=2,amplitude=0.9", "load": "40%",
                                  "step": "0.5", "duration": "2"}),
    "rfc2889": ("both-ways.yaml", {"test": "fully-meshed", "ports": "1,2",
                                   "frame-sizes": "64", "method": "binary",
                                   "duration": "0.5"}),
    "rfc2889-addresses": ("addresses-64.yaml", {"test": "address-caching", "ageing": "0.5"}),
}
# Covered in test_server_browser.py; refused by the simulated switch.
ELSEWHERE: Final = {"throughput", "soak", "y1564"}
REFUSED: Final = {"queue-sweep"}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    require_browser()
    with chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, Path]]]:
    """One server per profile, started when a test first needs it: URL, results."""
    require_browser()
    with ExitStack() as stack:
        started = {}
        for profile in dict.fromkeys(p for p, _ in KINDS.values()):
            where = tmp_path_factory.mktemp(profile.removesuffix(".yaml"))
            url = stack.enter_context(serve(where, TOPOLOGY, PROFILES / profile))
            started[profile] = (url, where / "results")
        yield started


def test_every_kind_is_covered() -> None:
    assert set(KINDS) | ELSEWHERE | REFUSED == set(EXPERIMENTS)


@pytest.mark.parametrize("experiment", list(KINDS))
def test_a_run_of_each_kind_reads_as_its_record(experiment: str, browser: Any,
                                                servers: dict[str, tuple[str, Path]]) -> None:
    profile, options = KINDS[experiment]
    url, results = servers[profile]
    open_dashboard(browser, url)
    run = start_and_end(browser, results, experiment, options)
    check_recorded(browser, run, experiment)
    browser.refresh()
    until(browser, lambda d: d.find_element("id", "result-card").is_displayed())
    check_recorded(browser, run, experiment)


# Values the CLI refuses, each with the CLI's exact words (`p4tester EXPERIMENT ...`).
BAD: Final = (
    ("latency", {"frame-size": "20", "load": "10%"}, "frame-size",
     "stream 0: frame size 20 B is outside 64..9216 B for Ethernet/IPv4/UDP/tester "
     "(headers 42 B + tester header 18 B + FCS 4 B); choose a size in that range"),
    ("soak", {"load": "30%", "total": "x"}, "total",
     "p4tester soak: argument --total: 'x': give seconds, like 2 or 0.5"),
    ("ramp", {"start": "10%", "end": "200%", "step": "10%"}, "end",
     "load 200% of line rate: rate 200% of line rate is above the port's 5 Mbit/s line "
     "rate: at most 7440 pps for 64 B frames"),
)


@pytest.mark.parametrize(("experiment", "options", "field", "message"), BAD,
                         ids=[b[2] for b in BAD])
def test_a_refused_value_is_said_by_its_field(experiment: str, options: dict[str, str],
                                             field: str, message: str, browser: Any,
                                             servers: dict[str, tuple[str, Path]]) -> None:
    url, results = servers["one-stream.yaml"]
    open_dashboard(browser, url)
    before = sorted(results.iterdir()) if results.is_dir() else []
    fill_form(browser, experiment, options)
    read = ("return Array.from(document.querySelectorAll('#options .field-error'))"
            ".map((e) => [e.dataset.errorFor, e.previousElementSibling.name, e.textContent])")
    until(browser, lambda d: d.execute_script(read) == [[field, field, message]], 10.0)
    assert browser.find_element("id", "message").text == f"400: --{field} refused, see the field"
    assert (sorted(results.iterdir()) if results.is_dir() else []) == before  # no run


def test_a_run_that_ends_between_two_live_events_shows_its_result(
        browser: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The page hears of runs every 0.5 s. On a simulated switch 50 times faster a scan
    of two trials ends within that, before the page ever sees it running (a busy CI
    host did the same at the usual speed): its panels and result still take over,
    after a run whose result card was shown."""
    where = tmp_path_factory.mktemp("fast")
    with serve(where, TOPOLOGY, PROFILES / "one-stream.yaml", scale=0.02) as url:
        open_dashboard(browser, url)
        _, options = KINDS["frame-loss"]
        start_and_end(browser, where / "results", "frame-loss", options)
        _, options = KINDS["frame-size-scan"]
        run = start_and_end(browser, where / "results", "frame-size-scan", options)
        check_recorded(browser, run, "frame-size-scan")
