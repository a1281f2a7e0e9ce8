"""An experiment's output directory: trials.jsonl (crash-safe, written as trials
end), summary.json, trials.csv, streams.csv, receivers.csv and receivers.png (streams
received on several ports), clocks.csv (several testers), result.txt and the plots."""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from pathlib import Path
from typing import Any

from p4tester.config.errors import ConfigError
from p4tester.results.confidence import RunConfidence
from p4tester.results.jsonl import ResultLog, RunHeader
from p4tester.results.model import TrialResult
from p4tester.results.one_way import one_way_table, write_clocks_csv
from p4tester.results.plots import plot_receivers
from p4tester.results.tables import (
    receivers_table,
    write_receivers_csv,
    write_streams_csv,
    write_trials_csv,
)

TRIALS_FILE = "trials.jsonl"
RESULT_TEXT_FILE = "result.txt"


def open_log(output: Path, experiment: str, profile: str, topology: str,
             resume: bool, placement: str = "") -> ResultLog:
    """The run's result log; refuses to mix a new run into an old one unless resuming.
    `placement`: where the switches and the controller run (lab.placement), kept in the
    run header's labels."""
    output.mkdir(parents=True, exist_ok=True)
    log = ResultLog(output / TRIALS_FILE)
    if log.path.exists() and not resume:
        raise ConfigError(
            f"{log.path} exists: pass --resume to continue that run, or choose another -o"
        )
    labels = (("placement", placement),) if placement else ()
    log.start(RunHeader.now(experiment=experiment, profile=profile, topology=topology,
                            labels=labels))
    return log


def to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


def write_outputs(output: Path, result: Any, trials: tuple[TrialResult, ...],
                  report: str = "") -> dict[str, Any]:
    """summary.json and the CSV tables; returns the summary document. `report`: the
    lines the run printed for a person (verdicts such as a fit that could not be
    measured on this host), kept in the document so --json and summary.json say them too."""
    confidence = RunConfidence.of(trials)
    document = {"result": to_jsonable(result),
                "report": report.splitlines(),
                "trials": len(trials),
                "invalid_trials": sum(1 for t in trials if not t.valid),
                # How sure the run is (issue 10): trials repeated or left out and why,
                # frames each side lost itself, host load.
                "confidence": {**to_jsonable(confidence), "verdict": confidence.verdict,
                               "text": confidence.describe()}}
    (output / "summary.json").write_text(json.dumps(document, indent=2, sort_keys=True))
    write_trials_csv(trials, output / "trials.csv")
    write_streams_csv(trials, output / "streams.csv")
    write_clocks_csv(trials, output / "clocks.csv")
    if write_receivers_csv(trials, output / "receivers.csv") is not None:
        last = _last_several_port_trial(trials)
        if last is not None:
            plot_receivers(last, output / "receivers.png")
    return document


def _last_several_port_trial(trials: tuple[TrialResult, ...]) -> TrialResult | None:
    """The run's last valid trial with a stream received on several ports."""
    return next((t for t in reversed(trials) if t.valid and any(s.receivers for s in t.streams)),
                None)


def with_receivers(report: str, trials: tuple[TrialResult, ...]) -> str:
    """The report, and under it the per-RX-port figures of the run's last valid trial
    whose streams are received on several ports (results.tables.receivers_table); the
    report alone when it has none."""
    last = _last_several_port_trial(trials)
    if last is None:
        return report
    return (f"{report}\n\nper RX port, trial {last.trial_index} "
            f"(load {last.offered_fraction * 100.0:.2f}%, {last.frame_size} B):\n"
            f"{receivers_table(last)}")


def with_clocks(report: str, trials: tuple[TrialResult, ...]) -> str:
    """The report, and under it the clocks and one-way figures of the run's last valid
    trial across several testers (results.one_way); the report alone with one tester."""
    last = next((t for t in reversed(trials) if t.valid and t.clocks), None)
    if last is None:
        return report
    return (f"{report}\n\none-way between testers, trial {last.trial_index} "
            f"(load {last.offered_fraction * 100.0:.2f}%, {last.frame_size} B):\n"
            f"{one_way_table(last)}")


def write_report(output: Path, text: str) -> None:
    """The report a person reads (result.txt), as the run printed it."""
    (output / RESULT_TEXT_FILE).write_text(text + "\n")
