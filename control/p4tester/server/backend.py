"""What the server needs of a switch: a trial runner for one run at a time, and
live readings of its counters. The real switch and the simulated one provide it."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Protocol

from p4tester.experiments.runner import TrialRunner

from .readings import LiveReading


class BackendUnavailableError(RuntimeError):
    """The switch cannot be read or driven now (down, or a target without live reads)."""


class Backend(Protocol):
    @property
    def simulated(self) -> bool: ...

    @property
    def latency_edges_us(self) -> tuple[int, ...]: ...

    def trial_runner(self, stop: threading.Event) -> AbstractContextManager[TrialRunner]:
        """The runner of one run; `stop` set means the user asked to stop."""
        ...

    def read(self) -> LiveReading: ...

    def close(self) -> None: ...
