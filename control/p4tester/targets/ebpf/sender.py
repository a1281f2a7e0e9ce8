"""The eBPF target's frame source: writes stream templates, tagged, into the
generator interface at a paced template rate. The program replicates each one
(k frames per template) and numbers every copy, so the frames' rate is k times
the template rate and the count is the program's, not the sender's.

Paced in user space, in slots of 1 ms: each slot sends the templates due by its
end, then sleeps. A slot the host did not schedule in time sends its templates
late, in one burst: the sender reports how late it fell behind (the trial's
burstiness), and the frames' count stays exact (the program's budget)."""

from __future__ import annotations

import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass

SLOT_S = 0.001


@dataclass(frozen=True, slots=True)
class SendReport:
    templates: int  # written into the generator interface
    seconds: float  # from the first template to the last
    worst_lag_s: float  # how far behind its schedule the sender ever was
    refused: int  # templates the kernel did not take (ENOBUFS): not sent


class TemplateSender:
    def __init__(self, interface: str) -> None:
        self.interface = interface
        self._socket = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self._socket.bind((interface, 0))

    def send(self, templates: Sequence[bytes], count: int, rate_pps: float,
             time_limit_s: float) -> SendReport:
        """`count` templates, cycling through `templates` (one per stream), at
        `rate_pps` in all; stops at `time_limit_s` whatever is left."""
        if rate_pps <= 0 or count < 0:
            raise ValueError(f"template rate {rate_pps} and count {count} must be positive")
        sent = refused = 0
        worst_lag = 0.0
        start = time.perf_counter()
        deadline = start + time_limit_s
        streams = len(templates)
        while sent + refused < count:
            now = time.perf_counter()
            if now > deadline:
                break
            due = min(count, int((now - start + SLOT_S) * rate_pps) + 1)
            worst_lag = max(worst_lag, (due - (sent + refused)) / rate_pps - SLOT_S)
            while sent + refused < due:
                try:
                    self._socket.send(templates[(sent + refused) % streams])
                    sent += 1
                except OSError:
                    refused += 1
            pause = start + (sent + refused) / rate_pps - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
        return SendReport(sent, time.perf_counter() - start, max(worst_lag, 0.0), refused)

    def close(self) -> None:
        self._socket.close()
