"""`p4tester serve` on the BMv2 loopback lab: a run started over the API ends with the
expected frames, and /metrics then says what `p4tester stats` says.

Counters move while traffic flows, so the comparison is made with the traffic
stopped: after the run, read /metrics and /api/stats, stop the server (it holds the
switch's P4Runtime primary role), then run `p4tester stats` on the same switch. With
nothing sending, every figure must be equal; the server's JSON covers the run's last
trial, beside its totals since the switch started.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from served import ServerProcess

from p4tester.results.jsonl import ResultLog

from conftest import REPO, p4tester

PROFILE = REPO / "topologies" / "profiles" / "one-stream.yaml"
TOKEN = "e2e-server-token-0123456789"
RUN_S = 180.0
# latency at 512 B, 50 % of 5 Mbit/s for 1 s: 587 frames per trial (test_cli_on_bmv2).
FRAMES_PER_TRIAL = 587
TRIALS = 2


class Server(ServerProcess):
    """The web server on the lab, with a token file (it changes state)."""

    def __init__(self, lab: Path, tmp_path: Path) -> None:
        token_file = tmp_path / "token"
        token_file.write_text(TOKEN + "\n")
        super().__init__(
            [sys.executable, "-m", "p4tester.server", "-t", str(lab), "-p", str(PROFILE),
             "--token-file", str(token_file), "--results", str(tmp_path / "results")],
            REPO, tmp_path / "server.log", {**os.environ, "PYTHONPATH": str(REPO / "control")})


@pytest.fixture
def server(lab: Path, tmp_path: Path) -> Iterator[Server]:
    running = Server(lab, tmp_path)
    try:
        running.wait_listening()
        yield running
    finally:
        running.stop()


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.mark.topology("loopback.yaml")
def test_metrics_match_stats_with_traffic_stopped(server: Server, lab: Path,
                                                  tmp_path: Path) -> None:
    with httpx.Client(base_url=server.url, timeout=30.0) as client:
        started = client.post("/api/runs", headers={"Authorization": f"Bearer {TOKEN}"},
                              json={"experiment": "latency",
                                    "options": {"frame-size": 512, "load": "50%",
                                                "trials": TRIALS, "duration": 1}})
        assert started.status_code == 201, started.text
        deadline = time.monotonic() + RUN_S
        scrapes_during_run = 0
        while client.get("/api/current").json()["busy"]:
            assert time.monotonic() < deadline, "run did not end: " + server.log()
            # Live reads while trials run (counters only: the trial owns the in-band
            # register reads) must neither fail nor disturb the trials.
            scrape = client.get("/metrics")
            assert scrape.status_code == 200
            scrapes_during_run += "p4tester_stream_tx_frames_total" in scrape.text
            assert client.get("/api/stats").json()["error"] is None
            time.sleep(0.3)
        progress = client.get("/api/current").json()["progress"]
        # A trial the tester could not vouch for on a busy host (it says so: its load not
        # proven, stop 34's CI) is kept, marked and repeated (the trial loop's bounded
        # repeats): each of the TRIALS repetitions ends with one vouched trial, and the
        # progress counts every trial run.
        trials = [t for log in (tmp_path / "results").rglob("trials.jsonl")
                  for t in ResultLog(log).load()]
        assert (progress["state"], progress["trials_done"]) == ("finished", len(trials)), \
            progress
        assert all(t.valid or t.host_limited for t in trials), [t.error for t in trials]
        repetitions = [dict(t.labels)["repetition"] for t in trials]
        vouched = [dict(t.labels)["repetition"] for t in trials if t.valid]
        assert sorted(vouched) == sorted(set(repetitions)) == [str(i) for i in range(TRIALS)], \
            [(t.labels, t.error) for t in trials]
        assert scrapes_during_run > 0
        metrics_text = client.get("/metrics").text
        stats_doc = client.get("/api/stats").json()
    server.stop()  # release the switch for `p4tester stats`
    done = p4tester("stats", "-t", str(lab), "-p", str(PROFILE), "--json", "--count", "1")
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout.splitlines()[0])
    [cli_stream] = cli["streams"]
    metrics = _samples(metrics_text)
    tx_labels = (("port", "1"), ("stream", "0"))
    rx_labels = (("port", "2"), ("stream", "0"))
    figures = {
        "tx_frames": metrics[("p4tester_stream_tx_frames_total", tx_labels)],
        "rx_frames": metrics[("p4tester_stream_rx_frames_total", rx_labels)],
        "lost_in_gaps": metrics[("p4tester_stream_lost_frames_total", rx_labels)],
        "reordered": metrics[("p4tester_stream_reordered_frames_total", rx_labels)],
        "duplicates": metrics[("p4tester_stream_duplicate_frames_total", rx_labels)],
    }
    print("metrics:", figures, "stats:", cli_stream)
    for name, value in figures.items():
        assert value == cli_stream[name], name
    for stat in ("min", "avg", "max"):
        key = ("p4tester_stream_latency_current_seconds",
               (("port", "2"), ("stat", stat), ("stream", "0")))
        assert metrics[key] * 1e6 == pytest.approx(cli_stream[f"latency_{stat}_us"], abs=1e-6)
    # Loopback: every frame sent came back; the lab's switch started with this test.
    assert figures["tx_frames"] == figures["rx_frames"] == FRAMES_PER_TRIAL * TRIALS
    # Every received stream frame is in one latency cell (+Inf counts all of them).
    assert metrics[("p4tester_stream_latency_seconds_bucket", (("le", "+Inf"), *rx_labels))] \
        == figures["rx_frames"]
    # The server's JSON reading: its totals are /metrics' figures; every other figure is
    # the run's last trial's (the window of the latency registers beside them), as that
    # trial's record has it.
    [api_stream] = stats_doc["streams"]
    assert (api_stream["total_tx_frames"], api_stream["total_rx_frames"]) == (
        figures["tx_frames"], figures["rx_frames"])
    last = trials[-1]
    assert stats_doc["scope"].startswith(f"trial {last.trial_index} of run ")
    assert (api_stream["tx_frames"], api_stream["rx_frames"]) == (last.tx_frames,
                                                                   last.rx_frames)
    ports = {p["port"]: p for p in stats_doc["ports"]}
    for port in (1, 2):
        for name in ("rx_frames", "tx_frames", "rx_bytes", "tx_bytes"):
            assert metrics[(f"p4tester_port_{name}_total", (("port", str(port)),))] >= \
                ports[port][name], (port, name)
    assert ports[2]["rx_frames"] >= last.rx_frames
    assert ports[1]["tx_frames"] >= last.tx_frames
