"""Crash-safe results file: one JSON object per line, flushed and fsynced per trial.

Layout:

    {"run": {"schema_version": 1, "experiment": ..., "profile": ..., ...}}   first line
    {"trial": {<serialize.trial_to_dict>}}                                   one per trial

Every append is a single write(2) of a whole line on an O_APPEND descriptor followed by
fsync, so once `append` returns the trial survives Ctrl-C, SIGKILL or a power cut. A
process killed inside that write can leave a torn last line: the loader skips lines
that are not valid JSON and counts them (a warning, never a crash), and the next append
first ends the torn line so it cannot swallow the new record.

Lines that are valid JSON but not a record of this version are real problems (a wrong
file, a newer p4tester) and raise ResultLogError naming file and line.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final

from p4tester.results.model import TrialResult
from p4tester.results.serialize import (
    JsonObject,
    JsonValue,
    SerializeError,
    trial_from_dict,
    trial_to_dict,
)

HEADER_SCHEMA_VERSION: Final = 1
_RUN_KEY: Final = "run"
_TRIAL_KEY: Final = "trial"
_HEADER_KEYS: Final = (
    "schema_version",
    "experiment",
    "profile",
    "topology",
    "started_at",
    "tool_version",
    "labels",
)

_LOG = logging.getLogger(__name__)


class ResultLogError(Exception):
    """A results file that cannot be used as asked: wrong experiment, not a results file."""


def tool_version() -> str:
    """The installed p4tester version, or 'unknown' when run from a source tree."""
    try:
        return metadata.version("p4tester")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True, slots=True)
class RunHeader:
    """What a results file is about; written once, as its first line."""

    experiment: str
    profile: str  # name of the traffic profile / stream set
    topology: str  # name of the lab topology
    started_at: float  # Unix time
    tool_version: str
    labels: tuple[tuple[str, str], ...] = ()  # anything else worth keeping, e.g. DUT name

    @classmethod
    def now(
        cls,
        experiment: str,
        profile: str,
        topology: str,
        labels: tuple[tuple[str, str], ...] = (),
    ) -> RunHeader:
        """A header stamped with the current time and the installed tool version."""
        return cls(experiment, profile, topology, time.time(), tool_version(), labels)

    def to_dict(self) -> JsonObject:
        return {
            "schema_version": HEADER_SCHEMA_VERSION,
            "experiment": self.experiment,
            "profile": self.profile,
            "topology": self.topology,
            "started_at": self.started_at,
            "tool_version": self.tool_version,
            "labels": [[key, value] for key, value in self.labels],
        }

    @classmethod
    def from_dict(cls, data: object, where: str) -> RunHeader:
        if not isinstance(data, dict) or sorted(data) != sorted(_HEADER_KEYS):
            raise ResultLogError(
                f"{where}: run header must be an object with exactly {', '.join(_HEADER_KEYS)}"
            )
        if data["schema_version"] != HEADER_SCHEMA_VERSION:
            raise ResultLogError(
                f"{where}: unknown run header version {data['schema_version']!r}; this "
                f"p4tester reads version {HEADER_SCHEMA_VERSION} (use the version that wrote it)"
            )
        strings = [data[key] for key in ("experiment", "profile", "topology", "tool_version")]
        started_at = data["started_at"]
        labels = data["labels"]
        if (
            not all(isinstance(value, str) for value in strings)
            or isinstance(started_at, bool)
            or not isinstance(started_at, int | float)
            or not isinstance(labels, list)
            or not all(
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
                for pair in labels
            )
        ):
            raise ResultLogError(
                f"{where}: run header has a value of the wrong type (names and version are "
                "strings, started_at a number, labels [name, value] string pairs)"
            )
        return cls(
            experiment=data["experiment"],
            profile=data["profile"],
            topology=data["topology"],
            started_at=float(started_at),
            tool_version=data["tool_version"],
            labels=tuple((pair[0], pair[1]) for pair in labels),
        )


@dataclass(frozen=True, slots=True)
class LogContents:
    """Everything a results file holds, and which lines were torn."""

    header: RunHeader | None  # None only for an empty file or a torn header line
    trials: tuple[TrialResult, ...]
    torn_lines: tuple[int, ...]  # 1-based numbers of lines that were not valid JSON


class ResultLog:
    """A JSON-lines results file. `start` once (writes or checks the header), then `append`."""

    __slots__ = ("_has_header", "path")

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._has_header = False  # cache: appends need not re-read the file

    # ---- writing -----------------------------------------------------------------------

    def start(self, header: RunHeader) -> RunHeader:
        """Write the header to a new or empty file, or resume an existing one.

        Resuming keeps the file's own header (its start time is the run's) and returns
        it; a file of another experiment is refused rather than mixed.
        """
        contents = self.read() if self.path.exists() else None
        existing = contents.header if contents is not None else None
        if existing is None:
            if contents is not None and contents.trials:
                raise ResultLogError(
                    f"{self.path}: has trials but no run header; it was not written by "
                    "ResultLog.start: use a new file"
                )
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._write_record({_RUN_KEY: header.to_dict()})
            self._has_header = True
            return header
        if existing.experiment != header.experiment:
            raise ResultLogError(
                f"{self.path}: holds experiment {existing.experiment!r}, not "
                f"{header.experiment!r}: choose another results file or move this one away"
            )
        self._has_header = True
        return existing

    def append(self, trial: TrialResult) -> None:
        """Write one trial as one line; when this returns, the line is on disk."""
        if not self._has_header:
            contents = self.read() if self.path.exists() else None
            if contents is None or contents.header is None:
                raise ResultLogError(
                    f"{self.path}: no run header yet: call ResultLog.start(header) before "
                    "append(trial)"
                )
            self._has_header = True
        self._write_record({_TRIAL_KEY: trial_to_dict(trial)})

    def _write_record(self, record: dict[str, JsonValue]) -> None:
        # allow_nan=False: serialize already spells non-finite floats as strings, so a NaN
        # here is a bug to hear about, not a non-standard token to write.
        line = (json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n").encode()
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # A torn line from a killed writer: end it, so it stays one bad line.
                line = b"\n" + line
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        if size == 0:
            _fsync_directory(self.path.parent)

    # ---- reading -----------------------------------------------------------------------

    def read(self) -> LogContents:
        """Header, trials and torn line numbers; ResultLogError for foreign or newer data."""
        header: RunHeader | None = None
        trials: list[TrialResult] = []
        torn: list[int] = []
        for number, raw in enumerate(self.path.read_bytes().split(b"\n"), start=1):
            if not raw.strip():
                continue
            where = f"{self.path}:{number}"
            try:
                record = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                torn.append(number)
                continue
            if not isinstance(record, dict) or len(record) != 1:
                raise ResultLogError(
                    f"{where}: not a p4tester results line (expected an object with one key, "
                    f"{_RUN_KEY!r} or {_TRIAL_KEY!r}): is this a results file?"
                )
            ((kind, body),) = record.items()
            if kind == _RUN_KEY:
                if header is not None or trials:
                    raise ResultLogError(
                        f"{where}: a second run header; one file holds one run: split the file"
                    )
                header = RunHeader.from_dict(body, where)
            elif kind == _TRIAL_KEY:
                try:
                    trials.append(trial_from_dict(body, where))
                except SerializeError as error:
                    raise ResultLogError(str(error)) from None
            else:
                raise ResultLogError(
                    f"{where}: unknown record kind {kind!r} (expected {_RUN_KEY!r} or "
                    f"{_TRIAL_KEY!r})"
                )
        return LogContents(header, tuple(trials), tuple(torn))

    def load(self) -> list[TrialResult]:
        """The finished trials, in file order; torn lines are skipped with a warning."""
        contents = self.read()
        if contents.torn_lines:
            _LOG.warning(
                "%s: skipped %d torn line(s) (line %s): a writer was killed mid-write; "
                "those trials did not finish",
                self.path,
                len(contents.torn_lines),
                ", ".join(str(n) for n in contents.torn_lines),
            )
        return list(contents.trials)

    def finished_keys(self, include_invalid: bool = False) -> frozenset[tuple[str, int]]:
        """(experiment, trial_index) of the trials on disk, to skip them when resuming.

        Invalid trials (valid=False: the switch died, a read failed) are left out unless
        asked for, so a resumed run retries them.
        """
        if not self.path.exists():
            return frozenset()
        return frozenset(
            (trial.experiment, trial.trial_index)
            for trial in self.read().trials
            if trial.valid or include_invalid
        )


def _fsync_directory(directory: Path) -> None:
    # A new file's directory entry is only durable once the directory is synced.
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
