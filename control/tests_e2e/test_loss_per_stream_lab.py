"""A DUT that loses 10 % of one stream and duplicates 10 % of another (issue 21):
the search finds no load without loss, and names the losing stream. Over both
streams together, TX - RX would be zero: the duplicates would hide the loss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p4tester.results.jsonl import ResultLog

from conftest import p4tester

PROFILE = "topologies/profiles/both-ways.yaml"


@pytest.mark.topology("bmv2-lossy-duplicating.yaml")
def test_duplicates_of_one_stream_never_hide_the_loss_of_another(lab: Path,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "throughput"
    done = p4tester("throughput", "-t", str(lab), "-p", PROFILE, "-o", str(out), "--json",
                    "--frame-sizes", "64", "--duration", "1")
    assert done.returncode == 0, done.stderr + done.stdout
    trials = [t for t in ResultLog(out / "trials.jsonl").load() if t.valid]
    assert trials
    for trial in trials:
        lossy, duplicated = trial.streams
        # Every 10th frame of stream 0 dropped, every 10th of stream 1 sent twice (the
        # DUT counts its ports' frames across trials: a trial's share is within 1).
        assert abs(lossy.lost - lossy.tx_frames / 10) < 1, trial
        assert lossy.duplicates == 0
        assert abs(duplicated.duplicates - duplicated.tx_frames / 10) < 1, trial
        assert duplicated.rx_frames - duplicated.tx_frames == duplicated.duplicates
        assert duplicated.lost == 0
        # Over both streams TX - RX is about 0: only stream 0's own loss counts.
        assert trial.lost == lossy.lost
        assert [s.stream_id for s in trial.losing_streams] == ([0] if lossy.lost else [])
    (size,) = json.loads(done.stdout)["result"]["sizes"]
    ndr = size["ndr"]
    # No NDR above a load whose trial is too short to meet a drop: any 10 frames of
    # stream 0 in a row hold one the DUT drops (it counts across trials), so a trial
    # that lost nothing sent fewer than 10. The failing load names stream 0.
    assert ndr["lower"] is None or ndr["lower"]["pps"] * ndr["trial_s"] < 10, ndr
    assert [s["stream_id"] for s in ndr["losing_streams"]] == [0], ndr
