"""When a sender has sent its budget, and when it is late: the one rule for a trial's
streams (tester.trial_loop) and for OTG flows (otg.switch_driver).

A sender is done when its generator made its budget and its TX port let it all out:
the frames that left reached the budget, or stopped moving (a frame a full TX queue
dropped is never numbered). Where the target tells only what it made, made is sent.
It is late once its budget at its rate, with slack, plus a grace, has passed; paused
time does not count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from p4tester.tester.trial_course import StreamSample

# A sender may take this much longer than its budget at its rate before it is
# declared stuck (the switch or its CPU busy elsewhere).
SEND_SLACK: Final = 1.5
SEND_GRACE_S: Final = 5.0


@dataclass(frozen=True, slots=True)
class Sender:
    """A stream (BMv2), a generator application (Tofino) or an OTG flow. `waited`: False
    for a sender that only watches the others (the reference stream), started and
    stopped with them but neither waited for nor counted in the load."""

    key: int
    budget: int
    rate_pps: float
    waited: bool = True


@dataclass(frozen=True, slots=True)
class SentReading:
    """One poll of a sender: frames its generator made and frames that left its TX
    port (None where the target tells only what it made), and, where the target times
    them on the switch's clock, the sample that proves the load offered."""

    generated: int
    sent: int | None = None
    sample: StreamSample | None = None


class SendWatch:
    """The waited senders of one trial or OTG start, until each is done. Mutable on
    purpose: it follows the polls."""

    def __init__(self, senders: Sequence[Sender], now: float) -> None:
        waited = [s for s in senders if s.waited]
        self.allowed_s = (max(s.budget / s.rate_pps for s in waited) * SEND_SLACK
                          + SEND_GRACE_S) if waited else 0.0
        self._deadline = now + self.allowed_s
        self.waiting: dict[int, Sender] = {s.key: s for s in waited}
        self._last_sent: dict[int, int | None] = {}
        self._paused_at: float | None = None

    def done(self, readings: Mapping[int, SentReading]) -> list[Sender]:
        """The senders these readings show done; they are no longer waited for."""
        finished = []
        for key, reading in readings.items():
            sender = self.waiting.get(key)
            if sender is None:
                continue
            let_out = (reading.sent is None or reading.sent >= sender.budget
                       or reading.sent == self._last_sent.get(key))
            if reading.generated >= sender.budget and let_out:
                finished.append(self.waiting.pop(key))
            self._last_sent[key] = reading.sent
        return finished

    def late(self, now: float) -> list[int]:
        """The senders still waited for once their time is over (none while paused)."""
        if self._paused_at is not None or now <= self._deadline:
            return []
        return sorted(self.waiting)

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def pause(self, now: float) -> None:
        if self._paused_at is None:
            self._paused_at = now

    def resume(self, now: float) -> None:
        if self._paused_at is not None:
            self._deadline += now - self._paused_at
            self._paused_at = None
