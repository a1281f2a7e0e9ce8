"""Past runs: the directories under the results directory that hold a trials.jsonl.
They are the only record (a restarted server finds them again), and the only files
the API hands out: a name must be one the directory listing gives, nothing else."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from p4tester.results.jsonl import LogContents, ResultLog, ResultLogError
from p4tester.results.model import TrialResult
from p4tester.runs.outputs import TRIALS_FILE
from p4tester.runs.stopping import STOPPED_BY_USER

from .progress import RunState

SUMMARY_FILE: Final = "summary.json"
# Run ids and file names the server makes and serves: no separators, no leading dot.
_SAFE_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_MEDIA_TYPES: Final = {".jsonl": "application/x-ndjson", ".json": "application/json",
                       ".csv": "text/csv", ".png": "image/png", ".txt": "text/plain",
                       ".svg": "image/svg+xml"}


class RunNotFoundError(LookupError):
    """No such run or file (or a name the server would never make)."""


@dataclass(frozen=True, slots=True)
class RunFile:
    name: str
    size_bytes: int
    media_type: str


@dataclass(frozen=True, slots=True)
class RunInfo:
    run_id: str
    experiment: str
    profile: str
    topology: str
    started_at: float
    state: RunState
    trials: int
    invalid_trials: int
    stopped: str | None  # why it ended early, from summary.json
    files: tuple[RunFile, ...]


def new_run_id(results_dir: Path, experiment: str) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    run_id = f"{stamp}-{experiment}"
    suffix = 1
    while (results_dir / run_id).exists():
        suffix += 1
        run_id = f"{stamp}-{experiment}-{suffix}"
    return run_id


def run_dir(results_dir: Path, run_id: str) -> Path:
    if not _SAFE_NAME.match(run_id) or not (results_dir / run_id / TRIALS_FILE).is_file():
        raise RunNotFoundError(f"no run {run_id!r} in {results_dir}")
    return results_dir / run_id


def run_file(results_dir: Path, run_id: str, name: str) -> tuple[Path, str]:
    """(path, media type) of a file a run wrote; RunNotFoundError for anything else."""
    directory = run_dir(results_dir, run_id)
    for entry in _files(directory):
        if entry.name == name:
            return directory / name, entry.media_type
    raise RunNotFoundError(f"run {run_id!r} has no file {name!r}; it has "
                           f"{[f.name for f in _files(directory)]}")


def _files(directory: Path) -> tuple[RunFile, ...]:
    # Regular files directly in the run's directory (no symlinks: one could point out).
    return tuple(RunFile(p.name, p.stat().st_size,
                         _MEDIA_TYPES.get(p.suffix, "application/octet-stream"))
                 for p in sorted(directory.iterdir())
                 if _SAFE_NAME.match(p.name) and p.is_file() and not p.is_symlink())


def run_trials(results_dir: Path, run_id: str) -> tuple[TrialResult, ...]:
    return tuple(ResultLog(run_dir(results_dir, run_id) / TRIALS_FILE).load())


# The last read of each trials file, keyed by its size and change time: the dashboard
# asks for the running run's count twice a second, and the file only grows per trial.
_READ_CACHE: dict[Path, tuple[tuple[int, int], LogContents]] = {}
_READ_CACHE_LOCK: Final = threading.Lock()
_READ_CACHE_RUNS: Final = 32  # "Past runs" shows 15; a results dir may hold thousands


def _read_log(path: Path) -> LogContents:
    stat = path.stat()
    key = (stat.st_size, stat.st_mtime_ns)
    with _READ_CACHE_LOCK:  # requests and the run's tracker read from several threads
        cached = _READ_CACHE.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    contents = ResultLog(path).read()
    with _READ_CACHE_LOCK:
        _READ_CACHE.pop(path, None)
        _READ_CACHE[path] = (key, contents)
        while len(_READ_CACHE) > _READ_CACHE_RUNS:
            del _READ_CACHE[next(iter(_READ_CACHE))]  # the least recently read run
    return contents


def recorded_trials(results_dir: Path, run_id: str) -> int:
    """The trials the run's trials.jsonl holds: the one count of a run that "Past
    runs" and "Progress" both show (0 before its file is readable)."""
    try:
        return len(_read_log(run_dir(results_dir, run_id) / TRIALS_FILE).trials)
    except (RunNotFoundError, ResultLogError, OSError):
        return 0


def run_info(results_dir: Path, run_id: str) -> RunInfo:
    directory = run_dir(results_dir, run_id)
    try:
        contents = _read_log(directory / TRIALS_FILE)
    except ResultLogError as exc:
        raise RunNotFoundError(f"run {run_id!r}: {exc}") from exc
    header = contents.header
    stopped: str | None = None
    state = RunState.INCOMPLETE
    summary = directory / SUMMARY_FILE
    if summary.is_file():
        try:
            result = json.loads(summary.read_text()).get("result")
        except (OSError, ValueError):
            result = None
        stopped = result.get("stopped") if isinstance(result, dict) else None
        state = (RunState.FINISHED if stopped is None else RunState.STOPPED
                 if stopped == STOPPED_BY_USER else RunState.FAILED)
    return RunInfo(run_id=run_id,
                   experiment=header.experiment if header else "?",
                   profile=header.profile if header else "?",
                   topology=header.topology if header else "?",
                   started_at=header.started_at if header else directory.stat().st_mtime,
                   state=state, trials=len(contents.trials),
                   invalid_trials=sum(not t.valid for t in contents.trials),
                   stopped=str(stopped) if stopped is not None else None,
                   files=_files(directory))


def list_runs(results_dir: Path) -> tuple[RunInfo, ...]:
    """Newest first."""
    if not results_dir.is_dir():
        return ()
    infos = []
    for entry in results_dir.iterdir():
        if entry.is_dir() and (entry / TRIALS_FILE).is_file() and _SAFE_NAME.match(entry.name):
            try:
                infos.append(run_info(results_dir, entry.name))
            except RunNotFoundError:
                continue  # not a results file we can read: not a run
    return tuple(sorted(infos, key=lambda r: (r.started_at, r.run_id), reverse=True))
