"""What a lab started, written to <rundir>/state.json so `down` (even from another
process, after a crash) stops exactly that."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATE_FILE = "state.json"


@dataclass
class LabState:
    """Mutable on purpose: filled in and saved step by step while the lab comes up, so
    a failure half-way leaves a file naming what is already there."""

    topology: str
    links: list[str] = field(default_factory=list)
    netns: list[str] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    kind: str = "veth"  # the lab kind (lab.kinds) whose `down` stops it
    placement: str = ""  # where its switches run (lab.placement)
    notes: list[str] = field(default_factory=list)  # what went wrong and did not stop it

    def save(self, rundir: Path) -> None:
        rundir.mkdir(parents=True, exist_ok=True)
        (rundir / STATE_FILE).write_text(json.dumps(asdict(self), indent=2))

    @classmethod
    def load(cls, rundir: Path) -> LabState | None:
        path = rundir / STATE_FILE
        if not path.exists():
            return None
        return cls(**json.loads(path.read_text()))

    @staticmethod
    def remove(rundir: Path) -> None:
        (rundir / STATE_FILE).unlink(missing_ok=True)
