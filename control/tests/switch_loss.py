"""A group runner's trial that fails as a lost switch's call does (OSError), with the
runner's look at the switches' ports recorded: what targets.group_runner names then."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p4tester.targets import group_runner
from p4tester.targets.group_runner import SwitchGroupRunner


class FailingLoop:
    def run_trial(self, spec: object) -> object:
        raise OSError("connection reset")


def fail_a_trial(monkeypatch: pytest.MonkeyPatch, runner: SwitchGroupRunner,
                 listening: Callable[[str], bool] = lambda address: False,
                 ) -> tuple[list[str], BaseException]:
    """The addresses the runner looked at, and what its trial raised."""
    asked: list[str] = []

    def looked_at(address: str) -> bool:
        asked.append(address)
        return listening(address)

    monkeypatch.setattr(group_runner, "listening", looked_at)
    monkeypatch.setattr(runner, "loop", FailingLoop())
    monkeypatch.setattr(runner.group, "stop_what_answers", lambda: None)
    with pytest.raises(Exception) as failed:
        runner.run_trial(object())  # type: ignore[arg-type]
    return asked, failed.value
