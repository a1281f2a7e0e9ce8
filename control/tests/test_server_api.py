"""`p4tester serve`'s REST API against the simulated switch: every endpoint, bad input,
busy, no token, a restart keeping past runs, and /metrics parsed by prometheus_client."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from p4tester.config.errors import ConfigError
from p4tester.config.profile import load_profile
from p4tester.config.serving import Bind, parse_bind, read_token
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.results.jsonl import ResultLog
from p4tester.results.model import StreamLoss, TrialResult
from p4tester.runs.catalog import EXPERIMENTS
from p4tester.runs.outputs import to_jsonable
from p4tester.runs.simulated_switch import capacity
from p4tester.runs.stopping import STOPPED_BY_USER
from p4tester.server.app import create_app
from p4tester.server.backend import BackendUnavailableError
from p4tester.server.jobs import JobManager
from p4tester.server.metrics import exposition
from p4tester.server.progress import ProgressTracker, RunState, TrialPoint, bounds_of
from p4tester.server.readings import LiveReading
from p4tester.server.settings import ServerSettings
from p4tester.server.simulated import SimulatedBackend
from p4tester.server.validate import split_error

REPO = Path(__file__).resolve().parents[2]
TOPOLOGY = REPO / "topologies" / "loopback.yaml"
PROFILE = REPO / "topologies" / "profiles" / "one-stream.yaml"
TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
WAIT_S = 20.0
# One 64-B binary search: the simulated DUT forwards 55 % of line rate at 64 B.
THROUGHPUT = {"experiment": "throughput",
              "options": {"frame-sizes": "64", "method": "binary", "duration": 1}}


class GatedBackend(SimulatedBackend):
    """The simulated switch, each trial waiting for a permit: a test decides how many
    trials a run gets through before it looks (bounded waits only)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.permits = threading.Semaphore(0)
        self.arrivals = threading.Semaphore(0)  # one per trial that asks to run

    @contextmanager
    def trial_runner(self, stop: threading.Event) -> Iterator[TrialRunner]:
        with super().trial_runner(stop) as inner:
            yield _Gated(inner, self)


class _Gated:
    def __init__(self, inner: TrialRunner, backend: GatedBackend) -> None:
        self.inner = inner
        self.backend = backend

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        self.backend.arrivals.release()
        assert self.backend.permits.acquire(timeout=WAIT_S), "test never let the trial run"
        return self.inner.run_trial(spec)


def make_client(results: Path, backend: SimulatedBackend | None = None) -> TestClient:
    topology = load_topology(TOPOLOGY)
    profile = load_profile(PROFILE, topology)
    settings = ServerSettings.checked(Bind("127.0.0.1", 8080), TOKEN, results, simulate=True,
                                      sim_time_scale=0.0)
    return TestClient(create_app(settings, topology, profile,
                                 backend or SimulatedBackend(topology, profile, 0.0)))


def wait_idle(client: TestClient) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        current = client.get("/api/current").json()
        if not current["busy"]:
            return current["progress"]  # type: ignore[no-any-return]
        time.sleep(0.02)
    raise AssertionError("run did not end in time")


def gated() -> GatedBackend:
    topology = load_topology(TOPOLOGY)
    return GatedBackend(topology, load_profile(PROFILE, topology), 0.0)


def wait_for_trial(backend: GatedBackend) -> None:
    assert backend.arrivals.acquire(timeout=WAIT_S), "the run never asked for a trial"


@pytest.fixture
def finished_run(tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    with make_client(tmp_path) as client:
        started = client.post("/api/runs", json=THROUGHPUT, headers=AUTH)
        assert started.status_code == 201, started.text
        run_id = started.json()["progress"]["run_id"]
        assert wait_idle(client)["state"] == "finished"
        yield client, run_id


# ---- server info, experiments, validation ------------------------------------------
def test_info_names_the_switch_and_profile(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        info = client.get("/api/info").json()
    assert (info["topology"], info["profile"], info["target"], info["simulated"]) == (
        "loopback", "one-stream", "bmv2", True)
    assert info["ports"] == [{"port": 1, "line_rate_bps": 5e6, "tester": None},
                             {"port": 2, "line_rate_bps": 5e6, "tester": None}]
    assert info["testers"] == []
    assert info["streams"] == [{"stream": 0, "tx_port": 1, "rx_port": 2, "rx_ports": [2],
                                "receive": None, "share": 1.0}]
    assert info["frame_sizes"] == [64, 512, 1518]
    assert info["latency_bins_us"][0] == 0 and info["latency_bins_us"][-1] == 1_000_000


def test_experiments_are_the_clis_with_its_options(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        experiments = client.get("/api/experiments").json()
    assert [e["name"] for e in experiments] == list(EXPERIMENTS)
    throughput = experiments[0]
    assert [o["name"] for o in throughput["options"]] == ["method", "frame-sizes", "duration"]
    assert throughput["options"][0]["choices"] == ["mlrsearch", "binary"]
    latency = next(e for e in experiments if e["name"] == "latency")
    assert {o["name"]: o["required"] for o in latency["options"]} == {
        "frame-size": True, "load": True, "trials": False, "duration": False}


def test_validate_gives_the_clis_document(tmp_path: Path) -> None:
    profile = "name: p\nframe_sizes: [64]\nstreams:\n  - {id: 0, tx_port: 1, rx_port: 2}\n"
    with make_client(tmp_path) as client:
        answer = client.post("/api/validate", json={"profile": profile})
    assert answer.status_code == 200
    document = answer.json()
    assert (document["valid"], document["topology"], document["profile"]) == (True, "loopback", "p")
    [row] = document["streams"]
    # 5 Mbit/s at 64 B: 5e6 / ((64 + 20) x 8) = 7440.48 frames/s.
    assert (row["frame_size"], row["pps_at_100pct"], row["udp_payload"]) == (64, 7440.5, 18)


@pytest.mark.parametrize(("body", "file", "path", "message"), [
    ({"profile": "name: p\nstreams:\n  - {id: 0, tx_port: 1, rx_port: 2, shar: 1}\n"},
     "profile", "streams[0]",
     "profile.yaml: streams[0]: unknown key 'shar'; did you mean 'share'?"),
    ({"profile": "name: p\nsearch: {method: fast}\nstreams:\n  - {id: 0, tx_port: 1, "
                 "rx_port: 2}\n"},
     "profile", "search",
     "profile.yaml: search: method 'fast'; use one of ('mlrsearch', 'binary')"),
    ({"topology": "name: t\nports: {1: {line_rate: 5Mbs}}\n"}, "topology", "ports.port 1",
     "topology.yaml: ports: port 1: line_rate '5Mbs': cannot parse rate '5Mbs': write it "
     "like '1000pps', '10kpps', '9.5Gbps' (L1), 'l2:9.5Gbps' or '50%'"),
    ({"profile": "- just a list\n"}, "profile", "",
     "profile.yaml: expected a mapping at the top level"),
])
def test_validate_errors_name_file_and_field(tmp_path: Path, body: dict[str, str], file: str,
                                             path: str, message: str) -> None:
    with make_client(tmp_path) as client:
        answer = client.post("/api/validate", json=body)
    assert answer.status_code == 422
    assert answer.json() == {"detail": message, "file": file, "path": path}


def test_split_error_keeps_messages_without_a_path() -> None:
    error = split_error("/tmp/x/profile.yaml: share 2 must be in (0, 1]", "profile",
                        "/tmp/x/profile.yaml")
    assert (error.path, error.message) == ("", "profile.yaml: share 2 must be in (0, 1]")


# ---- auth ------------------------------------------------------------------------------
@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong-token-0123456789"},
                                     {"Authorization": TOKEN}, {"Authorization": f"Basic {TOKEN}"}])
def test_state_changes_need_the_token(tmp_path: Path, headers: dict[str, str]) -> None:
    with make_client(tmp_path) as client:
        start = client.post("/api/runs", json=THROUGHPUT, headers=headers)
        stop = client.post("/api/current/stop", headers=headers)
        runs = client.get("/api/runs").json()
    assert (start.status_code, stop.status_code) == (401, 401)
    assert start.headers["www-authenticate"] == "Bearer"
    assert "Authorization: Bearer <token>" in start.json()["detail"]
    assert runs == []  # nothing started
    assert list(tmp_path.iterdir()) == []


def test_non_loopback_bind_needs_a_token(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a loopback address: give --token-file"):
        ServerSettings.checked(parse_bind("0.0.0.0:8080"), None, tmp_path, simulate=True)
    settings = ServerSettings.checked(parse_bind("[::1]:9000"), None, tmp_path, simulate=True)
    assert (settings.bind, len(settings.token) >= 16) == (Bind("::1", 9000), True)
    token_file = tmp_path / "token"
    token_file.write_text("short\n")
    with pytest.raises(ConfigError, match="at least 16 characters"):
        read_token(token_file)
    token_file.write_text(f"{TOKEN}\n")
    assert read_token(token_file) == TOKEN
    with pytest.raises(ConfigError, match="give HOST:PORT"):
        parse_bind("8080")


# ---- starting runs: bad input, busy, stop --------------------------------------------
@pytest.mark.parametrize(("body", "message"), [
    ({"experiment": "warp", "options": {}},
     "no experiment named 'warp'; known: ['back-to-back', 'frame-loss', 'frame-size-scan', "
     "'latency', 'queue-sweep', 'ramp', 'rfc2889', 'rfc2889-addresses', 'shape', 'soak', "
     "'throughput', 'y1564']"),
    ({"experiment": "latency", "options": {"load": "50%"}},
     "p4tester latency: the following arguments are required: --frame-size"),
    ({"experiment": "throughput", "options": {"method": "fast"}},
     "p4tester throughput: argument --method: invalid choice: 'fast' (choose from "
     "'mlrsearch', 'binary')"),
    ({"experiment": "latency", "options": {"frame-size": 64, "load": "8000pps"}},
     "load 8000 pps: rate 8000 pps is above the port's 5 Mbit/s line rate: at most 7440 pps "
     "for 64 B frames"),
    ({"experiment": "queue-sweep", "options": {}},
     "queue-sweep steps a bmv2 DUT's buffer over thrift: it needs a lab switch, not --simulate"),
    ({"experiment": "throughput", "options": {"speed": 1}},
     "p4tester throughput: unrecognized arguments: --speed 1"),
])
def test_bad_experiment_input_is_400_with_the_clis_message(tmp_path: Path, body: dict[str, Any],
                                                           message: str) -> None:
    with make_client(tmp_path) as client:
        answer = client.post("/api/runs", json=body, headers=AUTH)
    # A bad value of one option names it, for the page to say the message by its field.
    bad_values = {"fast": "method", "8000pps": "load"}
    option = next((name for value, name in bad_values.items()
                   if value in body["options"].values()), None)
    assert (answer.status_code, answer.json()) == (
        400, {"detail": message, **({"option": option} if option else {})})
    assert list(tmp_path.iterdir()) == []  # no run directory for a refused run


class _EndingRun:
    """A run's tracker whose run ends (its end recorded, its thread gone) the moment
    the manager asks whether it is busy: the window between two reads."""

    def __init__(self) -> None:
        self.tracker = ProgressTracker("run-1", "throughput", 0.0, ())
        self.tracker.request_stop()

    def is_alive(self) -> bool:
        self.tracker.end(RunState.STOPPED, STOPPED_BY_USER)
        return False


def test_not_busy_always_comes_with_the_runs_end(tmp_path: Path) -> None:
    topology = load_topology(TOPOLOGY)
    jobs = JobManager(topology, load_profile(PROFILE, topology), gated(), tmp_path)
    ending = _EndingRun()
    jobs._tracker, jobs._thread = ending.tracker, ending  # type: ignore[assignment]
    busy, progress = jobs.current()
    assert progress is not None
    assert (busy, progress.state, progress.message) == (False, RunState.STOPPED, STOPPED_BY_USER)


def test_malformed_body_is_422(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        answer = client.post("/api/runs", json={"options": {}}, headers=AUTH)
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "experiment"]


def test_busy_is_409_and_stop_keeps_finished_trials(tmp_path: Path) -> None:
    backend = gated()
    with make_client(tmp_path, backend) as client:
        run_id = client.post("/api/runs", json=THROUGHPUT, headers=AUTH).json()["progress"][
            "run_id"]
        for _ in range(3):  # three trials end, the fourth waits
            wait_for_trial(backend)
            backend.permits.release()
        wait_for_trial(backend)
        progress = client.get("/api/current").json()
        assert progress["busy"] is True
        assert progress["progress"]["trials_done"] == 3
        assert [p["offered_fraction"] for p in progress["progress"]["points"]] == [1.0, 0.5, 0.75]
        assert progress["progress"]["current"]["offered_fraction"] == 0.625
        # 0.625 x 7440.48 frames/s at 64 B.
        assert progress["progress"]["current"]["offered_pps"] == pytest.approx(4650.297619)
        assert progress["progress"]["bounds"] == [{
            "frame_size": 64, "ndr_lower": 0.5, "ndr_upper": 0.75, "pdr_lower": 0.5,
            "pdr_upper": 0.75}]
        busy = client.post("/api/runs", json=THROUGHPUT, headers=AUTH)
        assert busy.status_code == 409
        assert busy.json()["detail"].startswith(f"throughput run {run_id} is running on switch")
        stopping = client.post("/api/current/stop", headers=AUTH)
        assert (stopping.status_code, stopping.json()["progress"]["state"]) == (202, "stopping")
        backend.permits.release()  # the trial in flight finishes, then the run stops
        final = wait_idle(client)
        assert (final["state"], final["trials_done"], final["message"]) == (
            "stopped", 4, STOPPED_BY_USER)
        again = client.post("/api/current/stop", headers=AUTH)
        assert (again.status_code, again.json()) == (409, {"detail": "no experiment is running"})
        info = client.get(f"/api/runs/{run_id}").json()
    assert (info["state"], info["trials"], info["stopped"]) == ("stopped", 4, STOPPED_BY_USER)
    logged = ResultLog(tmp_path / run_id / "trials.jsonl").load()
    assert [t.offered_fraction for t in logged] == [1.0, 0.5, 0.75, 0.625]
    summary = json.loads((tmp_path / run_id / "summary.json").read_text())
    assert (summary["result"], summary["trials"]) == ({"stopped": STOPPED_BY_USER}, 4)


def test_a_finished_run_has_its_results(finished_run: tuple[TestClient, str],
                                        tmp_path: Path) -> None:
    client, run_id = finished_run
    trials = ResultLog(tmp_path / run_id / "trials.jsonl").load()
    progress = client.get("/api/current").json()["progress"]
    assert progress["trials_done"] == len(trials)
    points = tuple(TrialPoint(t.trial_index, t.frame_size, t.offered_fraction, t.loss_ratio,
                              t.valid) for t in trials)
    [bounds] = progress["bounds"]
    assert bounds == to_jsonable(bounds_of(points, 0.005)[0])
    # The simulated DUT forwards 55 % of line rate at 64 B: the search brackets it.
    assert capacity(64) == 0.55
    assert bounds["ndr_lower"] <= 0.55 < bounds["ndr_upper"]
    text = client.get(f"/api/runs/{run_id}/files/result.txt").text
    assert text.splitlines()[0].split()[:3] == ["frame", "B", "NDR"]


def test_run_files_and_listing(finished_run: tuple[TestClient, str], tmp_path: Path) -> None:
    client, run_id = finished_run
    [listed] = client.get("/api/runs").json()
    names = [f["name"] for f in listed["files"]]
    assert names == ["result.txt", "streams.csv", "summary.json", "throughput.png",
                     "trials.csv", "trials.jsonl"]
    assert (listed["run_id"], listed["experiment"], listed["state"]) == (
        run_id, "throughput", "finished")
    for entry in listed["files"]:
        answer = client.get(f"/api/runs/{run_id}/files/{entry['name']}")
        assert answer.status_code == 200
        assert answer.headers["content-type"].split(";")[0] == entry["media_type"]
        assert answer.content == (tmp_path / run_id / entry["name"]).read_bytes()
    trials = client.get(f"/api/runs/{run_id}/trials").json()
    logged = ResultLog(tmp_path / run_id / "trials.jsonl").load()
    assert [(t["trial_index"], t["offered_fraction"], t["loss_ratio"]) for t in trials] == [
        (t.trial_index, t.offered_fraction, t.loss_ratio) for t in logged]
    # Above the DUT's 55 % its one stream loses: named in each such trial.
    assert [t["losing_streams"] for t in trials] == [
        [{"stream_id": 0, "lost": t.lost}] if t.lost else [] for t in logged]
    assert any(t.lost for t in logged)
    page = client.get(f"/runs/{run_id}")
    assert page.status_code == 200
    assert f'src="/api/runs/{run_id}/files/throughput.png"' in page.text


def test_no_path_traversal(finished_run: tuple[TestClient, str], tmp_path: Path) -> None:
    client, run_id = finished_run
    secret = tmp_path.parent / f"{tmp_path.name}-secret.txt"
    secret.write_text("secret")
    (tmp_path / run_id / "link.txt").symlink_to(secret)
    (tmp_path / run_id / ".hidden").write_text("hidden")
    for path in (f"/api/runs/{run_id}/files/link.txt", f"/api/runs/{run_id}/files/.hidden",
                 f"/api/runs/{run_id}/files/..%2F..%2F{secret.name}",
                 f"/api/runs/{run_id}/files/%2e%2e", f"/api/runs/..%2F{run_id}",
                 "/api/runs/..", f"/api/runs/{run_id}/files/nothing.csv", "/api/runs/none"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert "secret" not in answer.text
    missing = client.get(f"/api/runs/{run_id}/files/nothing.csv").json()["detail"]
    assert missing.startswith(f"run '{run_id}' has no file 'nothing.csv'; it has ['result.txt'")


def test_restart_keeps_past_runs(finished_run: tuple[TestClient, str], tmp_path: Path) -> None:
    client, run_id = finished_run
    before = client.get("/api/runs").json()
    client.__exit__(None, None, None)  # the server stops
    with make_client(tmp_path) as restarted:
        after = restarted.get("/api/runs").json()
        assert restarted.get("/api/current").json() == {"busy": False, "progress": None}
        page = restarted.get(f"/runs/{run_id}")
    assert after == before
    assert page.status_code == 200


# ---- live counters and metrics ------------------------------------------------------------
def _metrics(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = client.get("/metrics")
    assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(answer.text) for s in family.samples}


def test_metrics_are_the_switch_counters(finished_run: tuple[TestClient, str],
                                         tmp_path: Path) -> None:
    client, run_id = finished_run
    trials = ResultLog(tmp_path / run_id / "trials.jsonl").load()
    samples = _metrics(client)
    tx = sum(t.tx_frames for t in trials)
    rx = sum(t.rx_frames for t in trials)
    tx_labels = (("port", "1"), ("stream", "0"))
    rx_labels = (("port", "2"), ("stream", "0"))
    assert samples[("p4tester_stream_tx_frames_total", tx_labels)] == tx
    assert samples[("p4tester_stream_tx_bytes_total", tx_labels)] == tx * 64
    assert samples[("p4tester_stream_rx_frames_total", rx_labels)] == rx
    assert samples[("p4tester_stream_rx_bytes_total", rx_labels)] == rx * 64
    assert samples[("p4tester_stream_lost_frames_total", rx_labels)] == trials[-1].lost
    assert samples[("p4tester_stream_reordered_frames_total", rx_labels)] == 0
    assert samples[("p4tester_stream_duplicate_frames_total", rx_labels)] == 0
    assert samples[("p4tester_port_tx_frames_total", (("port", "1"),))] == tx
    assert samples[("p4tester_port_rx_frames_total", (("port", "2"),))] == rx
    assert samples[("p4tester_port_rx_frames_total", (("port", "1"),))] == 0
    # Buckets: the trials' histograms added up, cumulative, edges in seconds.
    edges = trials[0].streams[0].latency.histogram.edges  # type: ignore[union-attr]
    cells = [sum(t.streams[0].latency.histogram.counts[i]  # type: ignore[union-attr]
                 for t in trials) for i in range(len(edges) - 1)]
    for i, edge in enumerate(edges[1:]):
        key = ("p4tester_stream_latency_seconds_bucket", (("le", repr(edge / 1e6)), *rx_labels))
        assert samples[key] == sum(cells[:i + 1]), edge
    assert samples[("p4tester_stream_latency_seconds_bucket", (("le", "+Inf"), *rx_labels))] == rx
    assert samples[("p4tester_stream_latency_seconds_count", rx_labels)] == rx
    queue_inf = ("p4tester_stream_dut_queue_depth_frames_bucket", (("le", "+Inf"), *rx_labels))
    assert samples[queue_inf] == rx
    last = trials[-1].streams[0].latency
    assert last is not None
    max_key = (("port", "2"), ("stat", "max"), ("stream", "0"))
    assert samples[("p4tester_stream_latency_current_seconds", max_key)] == pytest.approx(
        last.max_us / 1e6)
    assert samples[("p4tester_build_info", (("simulated", "true"), ("target", "bmv2"),
                                            ("version", _version())))] == 1
    assert samples[("p4tester_experiment_trials", ())] == len(trials)
    assert samples[("p4tester_experiment_trial_lost_frames", (("stream", "0"),))] == (
        trials[-1].lost)
    running = {labels[0][1]: v for (name, labels), v in samples.items()
               if name == "p4tester_experiment_running"}
    assert running == dict.fromkeys(EXPERIMENTS, 0.0)


def _version() -> str:
    from p4tester.results.jsonl import tool_version

    return tool_version()


def test_metrics_give_each_streams_loss_in_the_last_valid_trial() -> None:
    """Per stream, never netted: stream 1's duplicates leave stream 0's 100 lost frames
    standing; the invalid trial after it changes nothing."""
    tracker = ProgressTracker("run", "throughput", 0.005)
    assert tracker.snapshot().stream_losses == ()
    tracker.trial_ended(TrialPoint(0, 64, 0.5, 0.05, True), (StreamLoss(0, 100),
                                                             StreamLoss(1, 0)))
    tracker.trial_ended(TrialPoint(1, 64, 0.5, 0.0, False), (StreamLoss(0, 7),))
    text = exposition(None, tracker.snapshot(), "bmv2", simulated=True).decode()
    [family] = [f for f in text_string_to_metric_families(text)
                if f.name == "p4tester_experiment_trial_lost_frames"]
    assert family.type == "gauge"
    assert [(s.labels, s.value) for s in family.samples] == [({"stream": "0"}, 100.0),
                                                             ({"stream": "1"}, 0.0)]


def test_metrics_before_any_run_are_zero(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        samples = _metrics(client)
    assert samples[("p4tester_stream_tx_frames_total", (("port", "1"), ("stream", "0")))] == 0
    assert samples[("p4tester_experiment_trials", ())] == 0
    assert not [key for key in samples if key[0] == "p4tester_experiment_trial_lost_frames"]


def test_stats_and_live_stream(finished_run: tuple[TestClient, str], tmp_path: Path) -> None:
    client, run_id = finished_run
    trials = ResultLog(tmp_path / run_id / "trials.jsonl").load()
    stats = client.get("/api/stats").json()
    [stream] = stats["streams"]
    # Every figure of the last trial, the window of the registers' min/max beside them;
    # the totals since the switch started only for the rates.
    last = trials[-1]
    assert stats["scope"] == f"trial {last.trial_index} of run {run_id}"
    assert (stream["tx_frames"], stream["rx_frames"]) == (last.tx_frames, last.rx_frames)
    assert (stream["total_tx_frames"], stream["total_rx_frames"]) == (
        sum(t.tx_frames for t in trials), sum(t.rx_frames for t in trials))
    latency = last.streams[0].latency
    assert latency is not None and latency.histogram is not None
    assert stream["latency_min_us"] == latency.min_us
    assert stream["latency_histogram_us"]["counts"] == list(latency.histogram.counts)
    assert latency.min_us <= stream["latency_p50_us"] <= stream["latency_p99_us"] \
        <= stream["latency_p999_us"] <= latency.max_us
    assert [p["port"] for p in stats["ports"]] == [1, 2]
    assert stats["progress"]["run_id"] == run_id
    with client.stream("GET", "/api/live?limit=2&interval=0.25") as answer:
        assert answer.headers["content-type"].startswith("text/event-stream")
        body = "".join(answer.iter_text())
    events = [json.loads(line[len("data: "):]) for line in body.splitlines()
              if line.startswith("data: ")]
    assert body.startswith("retry: 250\n\n")
    assert len(events) == 2
    assert events[1]["time"] - events[0]["time"] >= 0.25
    assert events[1]["streams"][0]["tx_frames"] == stream["tx_frames"]
    bad = client.get("/api/live?limit=0")
    assert (bad.status_code, bad.json()) == (400, {"detail": "limit must be at least 1"})


def test_a_loss_free_run_after_a_lossy_one_shows_no_loss(
        finished_run: tuple[TestClient, str], tmp_path: Path) -> None:
    """The search's trials above the simulated DUT's limit lost frames; a latency run
    at 10 % after it loses none, and the page's TX - RX says 0, not the search's loss."""
    client, search_id = finished_run
    search = ResultLog(tmp_path / search_id / "trials.jsonl").load()
    assert sum(t.tx_frames - t.rx_frames for t in search) > 0
    started = client.post("/api/runs", headers=AUTH, json={
        "experiment": "latency", "options": {"frame-size": "64", "load": "10%", "trials": "1"}})
    assert started.status_code == 201, started.text
    latency_id = started.json()["progress"]["run_id"]
    assert wait_idle(client)["state"] == "finished"
    [trial] = ResultLog(tmp_path / latency_id / "trials.jsonl").load()
    [stream] = client.get("/api/stats").json()["streams"]
    assert (stream["tx_frames"], stream["rx_frames"]) == (trial.tx_frames, trial.tx_frames)
    assert stream["total_tx_frames"] - stream["total_rx_frames"] == sum(
        t.tx_frames - t.rx_frames for t in search)


def test_counters_move_while_a_trial_runs(tmp_path: Path) -> None:
    topology = load_topology(TOPOLOGY)
    profile = load_profile(PROFILE, topology)
    backend = SimulatedBackend(topology, profile, 3.0)  # a 1-s trial takes 3 s
    with make_client(tmp_path, backend) as client:
        client.post("/api/runs", json=THROUGHPUT, headers=AUTH)
        readings: list[LiveReading] = []
        deadline = time.monotonic() + WAIT_S
        while len(readings) < 2 and time.monotonic() < deadline:
            reading = backend.read()
            if reading.streams[0].tx_frames > 0 and (
                    not readings or reading.streams[0].tx_frames
                    > readings[-1].streams[0].tx_frames):
                readings.append(reading)
            time.sleep(0.05)
        client.post("/api/current/stop", headers=AUTH)
        wait_idle(client)
    # Two different counts inside the first trial (7440 frames at 100 % for 1 s).
    assert len(readings) == 2
    assert 0 < readings[0].streams[0].tx_frames < readings[1].streams[0].tx_frames <= 7440


# ---- pages and docs ---------------------------------------------------------------------
def test_pages_and_docs_load_nothing_from_outside(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        pages = {path: client.get(path) for path in
                 ("/", "/docs", "/redoc", "/static/dashboard.js", "/static/charts.js",
                  "/static/dashboard.css")}
        schema = client.get("/openapi.json").json()
        for page in pages.values():
            assert page.status_code == 200
            text = page.text.split("${")[0] if page is pages["/static/dashboard.js"] else page.text
            # data:, (an empty favicon) is inline: nothing is fetched.
            for asset in (a for a in _assets(text) if a != "data:,"):
                assert asset.startswith("/"), asset
                assert client.get(asset).status_code == 200, asset
    assert "http://" not in pages["/"].text.replace("http://www.w3.org", "")
    assert "https://" not in pages["/static/dashboard.js"].text
    assert {"/api/runs", "/api/runs/{run_id}/files/{name}", "/api/current/stop", "/api/live",
            "/api/validate", "/metrics"} <= set(schema["paths"])


def _assets(html: str) -> list[str]:
    import re

    return re.findall(r'(?:src|href)="([^"#]+)"', html)


def test_serve_refuses_an_open_bind_without_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    from p4tester.program import main

    code = main(["serve", "-t", str(TOPOLOGY), "--bind", "0.0.0.0:8080", "--simulate"])
    assert code == 2
    assert capsys.readouterr().err == (
        "p4tester: --bind 0.0.0.0:8080 is not a loopback address: give --token-file so nobody "
        "else on the network can start or stop experiments\n")


@pytest.mark.parametrize(("experiment", "options", "trials"), [
    ("latency", {"frame-size": 64, "load": "30%", "trials": 2, "duration": 1}, 2),
    ("frame-loss", {"frame-sizes": "512", "duration": 1}, 2),  # 100 %, 90 %: two clean
    ("back-to-back", {"frame-size": 512, "throughput": "100%", "repetitions": 2,
                      "duration": 1, "max-burst": 100}, 2),
    ("frame-size-scan", {"start": 64, "end": 512, "step": 224, "load": "0.5", "duration": 1}, 3),
    ("ramp", {"start": "1000pps", "end": "3000pps", "step": "1000pps", "duration": 1}, 3),
    ("soak", {"load": "30%", "total": 2, "interval": 1}, 2),
])
def test_every_simulated_experiment_runs(tmp_path: Path, experiment: str,
                                         options: dict[str, Any], trials: int) -> None:
    with make_client(tmp_path) as client:
        started = client.post("/api/runs", json={"experiment": experiment, "options": options},
                              headers=AUTH)
        assert started.status_code == 201, started.text
        final = wait_idle(client)
        info = client.get(f"/api/runs/{final['run_id']}").json()
    assert (final["state"], final["message"]) == ("finished", "")
    assert (info["experiment"], info["trials"], info["invalid_trials"]) == (experiment, trials, 0)
    assert {"summary.json", "trials.csv", "trials.jsonl", "result.txt"} <= {
        f["name"] for f in info["files"]}


class DownBackend(SimulatedBackend):
    """A switch that cannot be reached when a run starts."""

    @contextmanager
    def trial_runner(self, stop: threading.Event) -> Iterator[TrialRunner]:
        raise BackendUnavailableError("switch 127.0.0.1:9559: connection refused")
        yield  # pragma: no cover - a generator, for contextmanager


def test_a_run_that_cannot_reach_the_switch_fails_and_says_why(tmp_path: Path) -> None:
    topology = load_topology(TOPOLOGY)
    backend = DownBackend(topology, load_profile(PROFILE, topology), 0.0)
    message = "BackendUnavailableError: switch 127.0.0.1:9559: connection refused"
    with make_client(tmp_path, backend) as client:
        client.post("/api/runs", json=THROUGHPUT, headers=AUTH)
        final = wait_idle(client)
        assert (final["state"], final["message"], final["trials_done"]) == ("failed", message, 0)
    with make_client(tmp_path) as restarted:
        [listed] = restarted.get("/api/runs").json()
    assert (listed["state"], listed["stopped"], listed["trials"]) == ("failed", message, 0)


def test_a_load_above_the_calibration_is_warned_in_the_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stored calibration: 3720 frames/s at 64 B; a soak at 60 % of the 5 Mbit/s port
    (4464 frames/s) is warned of as the CLI warns of it (runs.loads)."""
    from p4tester.experiments.calibration import Calibration, SizeCapacity, save_calibration

    stored = save_calibration(
        Calibration("h", "loopback", 0.0, (SizeCapacity(64, 5e6, (0.5,)),)),
        tmp_path / "calibration.json")
    monkeypatch.setattr("p4tester.runs.capacity_warnings.CALIBRATION_FILE", stored)
    with make_client(tmp_path / "results") as client:
        started = client.post("/api/runs", json={"experiment": "soak", "options": {
            "load": "60%", "total": 1, "interval": 1}}, headers=AUTH)
        assert started.status_code == 201, started.text
        [warning] = started.json()["progress"]["warnings"]
        assert wait_idle(client)["warnings"] == [warning]
    assert warning.startswith("warning: 4464 frames/s at 64 B is above the tester's own "
                              "loss-free rate on this host (3720 frames/s at 64 B")
