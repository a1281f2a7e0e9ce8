"""Tables and plots again from a results directory's trials.jsonl (`p4tester replot`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from p4tester.config.errors import ConfigError
from p4tester.results.jsonl import ResultLog
from p4tester.results.plots import plot_frame_loss_rate, plot_loss_vs_frame_size
from p4tester.results.tables import trials_table

from .bodies import plot
from .outputs import TRIALS_FILE, to_jsonable, write_outputs


def replot(results: Path) -> tuple[dict[str, Any], str]:
    """The replot document and the trials table; ConfigError without a trials.jsonl."""
    log = ResultLog(results / TRIALS_FILE)
    if not log.path.exists():
        raise ConfigError(f"{log.path} not found: give a directory an experiment wrote")
    trials = tuple(log.load())
    plot(lambda: plot_frame_loss_rate(trials, results / "frame-loss.png"))
    plot(lambda: plot_loss_vs_frame_size(trials, results / "loss-vs-frame-size.png"))
    document = {"trials": len(trials), "invalid_trials": sum(not t.valid for t in trials),
                "result": to_jsonable(trials[-1].labels) if trials else None}
    write_outputs(results, {"replotted_trials": len(trials)}, trials)
    return document, trials_table(trials)
