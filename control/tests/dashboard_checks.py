"""The dashboard against a finished run's own files, figure by figure (issue 43): what
each panel shows equals trials.jsonl, summary.json and result.txt, as
tests/dashboard_expect.py prints them; every latency figure on the page in order
(min <= p50 <= p99 <= p99.9 <= max); and only the panels of the run's kind shown."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

from browser_session import (
    READ_COUNTERS,
    READ_RECEIVERS,
    READ_TABLE,
    shown_panels,
    trials_of,
    until,
)
from dashboard_expect import (
    DASH,
    bound_rows,
    interval_rows,
    ramp_rows,
    receiver_rows,
    result_rows,
    service_rows,
    shape_rows,
    us,
)

from p4tester.results.latency import clamped_percentiles
from p4tester.results.model import LatencyStats, StreamStats, TrialResult
from p4tester.server.progress import bounds_of, search_points

# The panels each kind of run shows (besides the live ones every run has).
PANELS: Final = {"throughput": {"search-panel"}, "rfc2889": {"search-panel"},
                 "ramp": {"steps-card"}, "shape": {"steps-card"}, "soak": {"intervals-card"},
                 "y1564": {"services-card"}}
# Y.1564's services of the test profile (y1564-services.yaml): name -> stream.
SERVICES: Final = {"gold": 0, "silver": 1}
# A percentile on the page: its figure, "≥ " first when only its lower bound is known.
_FIGURE: Final = re.compile(r"(?:≥ )?(-?\d+\.\d)")


def _figure(text: str) -> float:
    found = _FIGURE.fullmatch(text)
    assert found, text
    return float(found.group(1))


def _percentile(latency: LatencyStats, value: float | None, quantile_field: str) -> str:
    return ("≥ " if quantile_field in latency.lower_bounds else "") + us(value)


def _expected_cells(stream: StreamStats, port: int) -> list[str]:
    """TX, RX, latency min/avg/max, p50, p99 of one (stream, RX port) row of Counters."""
    receiver = next((r for r in stream.receivers if r.port == port), None)
    rx = receiver.rx_frames if receiver is not None else stream.rx_frames
    lat = receiver.latency if receiver is not None else stream.latency
    if lat is None:
        return [str(stream.tx_frames), str(rx), *([DASH] * 5)]
    p50, p99, _ = clamped_percentiles(lat.histogram, lat.min_us, lat.max_us)
    return [str(stream.tx_frames), str(rx), us(lat.min_us), us(lat.avg_us), us(lat.max_us),
            _percentile(lat, p50, "p50_us"), _percentile(lat, p99, "p99_us")]


def _caption(stream: StreamStats, port: int) -> str:
    receiver = next((r for r in stream.receivers if r.port == port), None)
    lat = receiver.latency if receiver is not None else stream.latency
    if lat is None:
        return f"min {DASH} · p50 {DASH} · p99 {DASH} · p99.9 {DASH} · max {DASH} µs"
    p50, p99, p999 = clamped_percentiles(lat.histogram, lat.min_us, lat.max_us)
    beyond = (f" ({lat.beyond_histogram} samples at or above the last bin edge)"
              if lat.lower_bounds else "")
    return (f"min {us(lat.min_us)} · p50 {_percentile(lat, p50, 'p50_us')} · p99 "
            f"{_percentile(lat, p99, 'p99_us')} · p99.9 {_percentile(lat, p999, 'p999_us')} "
            f"· max {us(lat.max_us)} µs{beyond}")


def _row_key(label: str) -> tuple[int, int]:
    found = re.fullmatch(r"(\d+) \((\d+)→(\d+)\)", label)
    assert found, label
    return int(found.group(1)), int(found.group(3))


def check_last_trial_live(driver: Any, run: Path) -> None:
    """Counters (every stream and RX port of the last trial) and the latency caption
    show the run's last trial, percentiles from its histograms clamped to its min and
    max; every latency figure there in order."""
    last = trials_of(run)[-1]
    streams = {s.stream_id: s for s in last.streams}

    def shown(d: Any) -> dict[str, Any] | None:
        page: dict[str, Any] = d.execute_script(READ_COUNTERS)
        if page["scope"] != f"trial {last.trial_index} of run {run.name}" or not page["rows"]:
            return None
        rows = [(_row_key(r[0]), r) for r in page["rows"]]
        for (stream_id, port), cells in rows:
            if stream_id in streams and \
                    [cells[1], cells[2], *cells[6:11]] != _expected_cells(
                        streams[stream_id], port):
                return None
        first_stream, first_port = rows[0][0]
        if first_stream in streams and page["percentiles"] != _caption(
                streams[first_stream], first_port):
            return None
        return page

    page = until(driver, shown, 10.0)
    for cells in page["rows"]:
        if cells[6] != DASH:
            low, p50, p99, high = (_figure(cells[i]) for i in (6, 9, 10, 8))
            assert low <= p50 <= p99 <= high, cells
    numbers = [_figure(x) for x in re.findall(r"(?:min|p50|p99|p99\.9|max) ((?:≥ )?\d+\.\d)",
                                              page["percentiles"])]
    if numbers:
        low, median, high99, high999, top = numbers
        assert low <= median <= high99 <= high999 <= top, page["percentiles"]


def _kind_table(experiment: str, trials: list[TrialResult]) -> tuple[str, list[list[str]]]:
    if experiment in ("throughput", "rfc2889"):
        return "bounds", bound_rows(bounds_of(search_points(trials), 0.005))
    if experiment in ("ramp", "shape"):
        return "steps", ramp_rows(trials) if experiment == "ramp" else shape_rows(trials)
    if experiment == "soak":
        return "intervals", interval_rows(trials)
    if experiment == "y1564":
        return "services", service_rows(trials, SERVICES)
    return "", []


def check_recorded(driver: Any, run: Path, experiment: str, *, receivers: bool = False) -> None:
    """A finished run on the page: its kind's panels only, its kind's table, the
    result card (state, confidence and trial count from summary.json, the report from
    result.txt, the trials from trials.jsonl), the live figures of its last trial
    and, with `receivers`, the per-RX-port panel."""
    trials = trials_of(run)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["trials"] == len(trials)
    table, rows = _kind_table(experiment, trials)
    if table:
        until(driver, lambda d: d.execute_script(READ_TABLE, table) == rows, 10.0)
    until(driver, lambda d: d.execute_script(READ_TABLE, "result-table")
          == result_rows(trials), 10.0)
    assert shown_panels(driver) == PANELS.get(experiment, set()) | (
        {"receivers-card"} if receivers else set())
    card = driver.execute_script(
        "return ['result-run', 'result-state', 'result-text'].map("
        "(id) => document.getElementById(id).textContent)")
    confidence = summary["confidence"]["text"]
    assert card == [run.name, f"{experiment}, finished, {len(trials)} trials"
                    + (f"; {confidence}" if confidence else ""),
                    (run / "result.txt").read_text()]
    for row in driver.execute_script(READ_TABLE, "result-table"):
        if row[7] != DASH:
            assert _figure(row[7]) <= _figure(row[8]) <= _figure(row[9]), row
    check_last_trial_live(driver, run)
    if receivers:
        check_receivers(driver, run)


def check_receivers(driver: Any, run: Path) -> None:
    """The per-RX-port panel shows the run's last trial, port by port."""
    last = trials_of(run)[-1]
    rows, notes = receiver_rows(last)
    assert rows, "the last trial has no stream received on several ports"
    expected = {"hidden": False, "scope": f"trial {last.trial_index} of run {run.name}",
                "rows": rows, "notes": notes}
    until(driver, lambda d: d.execute_script(READ_RECEIVERS) == expected, 10.0)
