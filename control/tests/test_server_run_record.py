"""What the dashboard shows of a run comes from its record through the API (issue 43):
the search bounds and points from trials.jsonl, the run page's trials to their
precision, the services of a Y.1564 profile, a 401 that says where the token goes, and
a page whose panels say they are fed by the simulated switch and what its DUT does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_server_api import AUTH, REPO, THROUGHPUT, TOKEN, make_client, wait_idle

from p4tester.config.profile import load_profile
from p4tester.config.serving import Bind
from p4tester.config.topology import load_topology
from p4tester.results.jsonl import ResultLog
from p4tester.runs.outputs import to_jsonable
from p4tester.server import pages
from p4tester.server.app import create_app
from p4tester.server.precision import format_cell
from p4tester.server.progress import bounds_of, search_points
from p4tester.server.settings import ServerSettings
from p4tester.server.simulated import SimulatedBackend, describe_dut

LOOPBACK = load_topology(REPO / "topologies" / "loopback.yaml")
ONE_STREAM = load_profile(REPO / "topologies" / "profiles" / "one-stream.yaml", LOOPBACK)
RAMP = {"experiment": "ramp",
        "options": {"start": "10%", "end": "50%", "step": "10%", "duration": 1}}
# Every panel the simulated switch feeds: five live charts, the search, the counters,
# the per-RX-port figures, steps, intervals, services and the result card.
SIMULATED_PANELS = 12


def _run(client: TestClient, body: dict[str, object]) -> str:
    started = client.post("/api/runs", json=body, headers=AUTH)
    assert started.status_code == 201, started.text
    assert wait_idle(client)["state"] == "finished"
    return str(started.json()["progress"]["run_id"])


def test_search_points_and_bounds_come_from_the_record(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        run_id = _run(client, THROUGHPUT)
        search = client.get(f"/api/runs/{run_id}/search").json()
        live = client.get("/api/current").json()["progress"]
    trials = ResultLog(tmp_path / run_id / "trials.jsonl").load()
    points = search_points(trials)
    assert search == {"points": to_jsonable(points),
                      "bounds": to_jsonable(bounds_of(points, ONE_STREAM.search.pdr_loss_ratio))}
    # The same trials the live progress saw, so the same bounds.
    assert search["bounds"] == live["bounds"]
    [bounds] = search["bounds"]
    # The simulated DUT forwards 55 % of line rate at 64 B.
    assert bounds["ndr_lower"] <= 0.55 < bounds["ndr_upper"]


@pytest.mark.parametrize(("column", "text", "shown"), [
    ("latency_min_us", "107.39999999999999", "107.4"),
    ("latency_max_us", "1009.9118010992408", "1009.9"),
    ("offered_pps", "3348.214285714286", "3348"),
    ("offered_l1_bps", "2500000.0000001", "2500000"),
    ("offered_pps_measured", "744.51", "745"),
    ("loss_pct", "0.123456", "0.12"),
    ("offered_line_rate_pct", "55.00000000001", "55.00"),
    ("latency_p99_us", "", ""),
    ("trial_index", "3", "3"),
    ("started_at_unix_s", "1795861387.679", "1795861387.679"),
    ("valid", "True", "True"),
    ("latency_avg_us", "n/a", "n/a"),
])
def test_run_page_cells_are_shown_to_their_precision(column: str, text: str,
                                                     shown: str) -> None:
    assert format_cell(column, text) == shown


def test_run_page_prints_no_raw_floats(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        run_id = _run(client, RAMP)
        page = client.get(f"/runs/{run_id}").text
    table = page[page.index("<h2>Trials</h2>"):page.index("<h2>Files</h2>")]
    cells = re.findall(r"<td>([^<]*)</td>", table)
    # 5 steps; offered_pps 744.0476190476192 at 10 % of 64 B on 5 Mbit/s.
    assert "744" in cells and "744.0476190476192" not in page
    assert "107.4" in cells  # latency_min_us 107.39999999999999
    long_fractions = [c for c in cells if re.fullmatch(r"-?\d+\.\d{3,}", c)]
    assert long_fractions == []


def test_a_401_says_where_the_token_goes(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        answer = client.post("/api/runs", json=THROUGHPUT)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert answer.json() == {
        "detail": "this request changes state: send 'Authorization: Bearer <token>' (the "
                  "token `p4tester serve` printed or read from --token-file)",
        "browser": "401: this needs the server's token: paste the token `p4tester serve` "
                   "printed (or the contents of its --token-file) into the token field of "
                   "'Run an experiment', then try again"}


def test_info_lists_the_profiles_services(tmp_path: Path) -> None:
    topology = load_topology(REPO / "topologies" / "bmv2-services.yaml")
    profile = load_profile(REPO / "topologies" / "profiles" / "y1564-services.yaml", topology)
    settings = ServerSettings.checked(Bind("127.0.0.1", 8080), TOKEN, tmp_path, simulate=True,
                                      sim_time_scale=0.0)
    with TestClient(create_app(settings, topology, profile,
                               SimulatedBackend(topology, profile, 0.0))) as client:
        services = client.get("/api/info").json()["services"]
    assert services == [
        {"name": "gold", "stream": 0, "cir_bps": 600_000.0, "eir_bps": 300_000.0},
        {"name": "silver", "stream": 1, "cir_bps": 600_000.0, "eir_bps": 0.0}]


def test_the_simulated_dut_is_described_exactly() -> None:
    # 97152 B / 64 B = 1518 frames; each takes (64 + 20) x 8 bit / (0.55 x 5 Mbit/s)
    # = 244.36 us to drain: 370.9 ms for a full buffer.
    assert describe_dut(LOOPBACK, ONE_STREAM) == (
        "Simulated DUT: it forwards at most 55 % of line rate at 64 B, rising linearly to "
        "100 % from 512 B, and drops the excess. Its egress queue: a 97152-B buffer (1518 "
        "frames of 64 B) fed by 1 stream(s); below capacity it peaks at u²/(1 - u) frames "
        "(u: offered load / capacity), at or above capacity it stays full, which adds "
        "370.9 ms at 64 B on 5 Mbit/s. Latency: 5 µs fixed + the frame's serialization + "
        "the queue ahead of it, the maximum raised by up to 3 µs per trial.")


def test_every_simulated_panel_says_so_and_the_dut_is_described(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        page = client.get("/").text
    assert page.count('<span class="sim-tag">simulated switch</span>') == SIMULATED_PANELS
    dut = page[page.index('<p id="dut-text">'):]
    assert dut.startswith('<p id="dut-text">Simulated DUT: it forwards at most 55 % of line')


def test_a_real_switchs_page_has_no_simulated_labels() -> None:
    page = pages.dashboard(LOOPBACK, ONE_STREAM, simulated=False)
    assert "sim-tag" not in page and "dut-text" not in page


def test_panels_name_the_experiments_they_belong_to() -> None:
    page = pages.dashboard(LOOPBACK, ONE_STREAM, simulated=True)
    kinds = dict(re.findall(r'id="([a-z-]+)" data-kinds="([a-z0-9 ]+)"', page))
    assert kinds == {"search-panel": "throughput rfc2889", "steps-card": "ramp shape",
                     "intervals-card": "soak", "services-card": "y1564"}


def test_trials_carry_each_streams_loss_as_the_reports_judge_it(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        run_id = _run(client, THROUGHPUT)
        trials = client.get(f"/api/runs/{run_id}/trials").json()
    recorded = ResultLog(tmp_path / run_id / "trials.jsonl").load()
    shown = [(s["lost"], s["loss_ratio"]) for t in trials for s in t["streams"]]
    assert shown == [(s.lost, s.loss_ratio) for t in recorded for s in t.streams]
    assert any(lost > 0 for lost, _ in shown)  # 64 B above 55 % of line rate loses
