"""flows.csv and the report's flows line: what a run's varying streams sent, frame by
frame, as each trial sends it (patterns restart, frames numbered from 0)."""

from __future__ import annotations

import csv
from pathlib import Path

import yaml

from p4tester.config.profile import Profile, profile_from_dict
from p4tester.runs.flows_record import MAX_ROWS, flows_report, write_flows
from p4tester.streams.field_patterns import draw, field_seed


def _profile(*streams: dict[str, object]) -> Profile:
    return profile_from_dict({"name": "flows", "streams": list(streams)}, "p.yaml")


def test_each_frame_of_one_cycle(tmp_path: Path) -> None:
    profile = _profile(
        {"id": 0, "tx_port": 1, "rx_port": 2,
         "vary": {"src_ip": {"start": "10.0.0.255", "count": 3}, "dscp": [0, 46],
                  "src_port": [7, 8]}},
        {"id": 1, "tx_port": 1, "rx_port": 2})
    path = write_flows(tmp_path, profile)
    assert path == tmp_path / "flows.csv"
    assert path is not None
    rows = list(csv.reader(path.open()))
    assert rows == [
        ["stream_id", "frame", "src_ip", "dscp", "src_port"],
        ["0", "0", "10.0.0.255", "0", "7"],
        ["0", "1", "10.0.1.0", "46", "8"],
        ["0", "2", "10.0.1.1", "0", "7"],
        ["0", "3", "10.0.0.255", "46", "8"],
        ["0", "4", "10.0.1.0", "0", "7"],
        ["0", "5", "10.0.1.1", "46", "8"]]
    assert flows_report(profile) == (
        "stream 0 varies src_ip 10.0.0.255 .. 10.0.1.1 (3 values, step 1); dscp [0, 46] "
        "(2 values); src_port [7, 8] (2 values): 6 frames before its fields repeat "
        "(flows.csv lists frame by frame what each trial sent)")


def test_draws_on_the_seq_list_the_first_frames(tmp_path: Path) -> None:
    profile = _profile({"id": 3, "tx_port": 1, "rx_port": 2,
                        "vary": {"dst_ip": {"random": "10.2.0.0/16", "seed": 7}}})
    written = write_flows(tmp_path, profile)
    assert written is not None
    rows = list(csv.reader(written.open()))
    assert len(rows) == 1 + MAX_ROWS == 65537
    seed = field_seed(7, "dst_ip")
    low = 10 << 24 | 2 << 16
    # Frame i of a trial has seq i: its draw is the data plane's for that seq.
    for frame in (0, 1, 65535):
        value = low + draw(seed, frame) % 65536
        assert rows[1 + frame] == ["3", str(frame),
                                   f"10.2.{(value >> 8) & 255}.{value & 255}"]
    assert flows_report(profile) == (
        f"stream 3 varies dst_ip drawn in 10.2.0.0 .. 10.2.255.255 (draw seed {seed}): its draws "
        "never repeat (flows.csv lists frame by frame what each trial sent)")


def test_nothing_varies_nothing_written(tmp_path: Path) -> None:
    profile = _profile({"id": 0, "tx_port": 1, "rx_port": 2})
    assert write_flows(tmp_path, profile) is None
    assert list(tmp_path.iterdir()) == []
    assert flows_report(profile) == ""


def test_the_docs_sample_is_what_a_run_writes(tmp_path: Path) -> None:
    """docs/flows.md's profile and the flows.csv lines it shows."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "flows.md").read_text()
    profile_text = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    shown = text.split("```\nstream_id", 1)[1].split("...", 1)[0]
    profile = profile_from_dict(yaml.safe_load(profile_text), "flows.md")
    written = write_flows(tmp_path, profile)
    assert written is not None
    lines = ("stream_id" + shown).strip().splitlines()
    assert written.read_text().splitlines()[:len(lines)] == lines
    assert len(lines) == 3
