"""The eBPF target's frame source: writes stream templates, tagged, into the
generator interface at a paced template rate. The program replicates each one
(k frames per template) and numbers every copy, so the frames' rate is k times
the template rate and the count is the program's, not the sender's.

Paced in user space, in slots of 1 ms: each slot sends the templates due by its
end, then sleeps. A slot the host did not schedule in time finds templates overdue.
Sent at once, they would reach the DUT as one burst the trial never asked for (on
the router lab, a 7-ms stall's 55 templates of 3 copies lost 72 frames to a token
bucket of 150). So a feed may bound its catch-up (Feed.catch_up: templates beyond
its rate in any window of Feed.repay_window_s, the burst a trial's samples allow):
half of it at once, the other half spread over the window, and the lag left is
repaid window after window, never dropped from the schedule. A stall costs the trial
no rate unless the sender never catches up (then it ends late, and the rate measured
on the switch's clock says so), and no burst beyond what the trial allows. Before,
the lag beyond one catch-up slipped the schedule: on a busy 2-core VM the sender
offered 0.3 % (26 000 frames/s) and 0.4 % (200 000) less than asked, trial after
trial. The sender reports how far behind it fell, what it wrote at once and how late
each feed ended; the frames' count stays exact (the program's budget).

Each send() is a system call that runs the whole path of its copies in the
kernel (the program, the DUT's veth, back to the checker): a thread sending
releases the GIL for nearly all of its time, so the trial loop polls beside it."""

from __future__ import annotations

import math
import os
import socket
import threading
import time
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from p4tester.lab.receive_steering import sender_cpu

SLOT_S = 0.001
# The sender thread's nice value (run_ahead_of_other_work). Measured on the router lab,
# one core busy, 8 trials each at 97 % of its limit: at nice 0 the sender fell 8 ms
# behind in every trial and slipped 25 to 40 ms of its schedule (its rate 1.4 to 2 %
# short, two trials tester-limited); at -20, 1 to 7 ms behind, slipped 0 to 3 ms.
SENDER_NICE = -20


def slot_share(template_pps: float) -> int:
    """The most templates a slot on schedule writes at `template_pps`: those due
    within it, and one more to round up. More at once is a sender catching up."""
    return math.ceil(template_pps * SLOT_S) + 1


@dataclass(frozen=True, slots=True)
class Feed:
    """One stream's templates in one trial: `count` copies of `template` (tagged) at
    `template_pps`, or, for a shaped stream (issue 24), at each step's rate from its
    start: `steps` of (start_s, template_pps) from 0, rising starts."""

    template: bytes
    count: int
    template_pps: float
    steps: tuple[tuple[float, float], ...] = ()
    # A varying stream's frames, one per template in turn (targets.ebpf.flow_templates);
    # (): every template is `template`.
    cycle: tuple[bytes, ...] = ()
    # Templates the feed may write beyond its rate in any window of repay_window_s
    # when the sender fell behind (besides a slot's rounding up): half at once, half
    # spread over the window; the rest of the lag waits for later windows. None: all
    # that is due, at once.
    catch_up: int | None = None
    repay_window_s: float = 0.1
    # Templates due by each step's start: the sender asks every slot (1 ms) when the
    # next ones fall due, so a long shaped soak's thousands of steps are searched, not
    # walked.
    _due_at_starts: tuple[float, ...] = field(default=(), init=False, repr=False,
                                              compare=False)

    def __post_init__(self) -> None:
        rates = [self.template_pps, *(pps for _, pps in self.steps)]
        if min(rates) <= 0 or self.count < 0:
            raise ValueError(f"template rate {min(rates):g} and count {self.count} must be "
                             "positive")
        if self.catch_up is not None and self.catch_up < 0:
            raise ValueError(f"catch-up {self.catch_up} must be 0 or more templates")
        if self.repay_window_s <= 0:
            raise ValueError(f"repay window {self.repay_window_s:g} s must be positive")
        if self.steps and self.steps[0][0] != 0:
            raise ValueError(f"a shaped feed's first step starts at 0, not {self.steps[0][0]}")
        due = [0.0]
        for (start, pps), (end, _) in pairwise(self.steps):
            due.append(due[-1] + (end - start) * pps)
        object.__setattr__(self, "_due_at_starts", tuple(due))

    def _step_at(self, elapsed_s: float) -> int:
        return max(0, bisect_right(self.steps, elapsed_s, key=lambda step: step[0]) - 1)

    def due_by(self, elapsed_s: float) -> float:
        """Templates due by `elapsed_s` since the start (not bounded by count)."""
        if not self.steps:
            return elapsed_s * self.template_pps
        if elapsed_s <= 0:
            return 0.0
        step = self._step_at(elapsed_s)
        start, pps = self.steps[step]
        return self._due_at_starts[step] + (elapsed_s - start) * pps

    def due_at(self, templates: int) -> float:
        """Seconds from the start when template number `templates` falls due."""
        if not self.steps:
            return templates / self.template_pps
        step = max(0, bisect_left(self._due_at_starts, templates) - 1)
        start, pps = self.steps[step]
        return start + (templates - self._due_at_starts[step]) / pps

    def rate_at(self, elapsed_s: float) -> float:
        """Templates per second at `elapsed_s`."""
        return self.steps[self._step_at(elapsed_s)][1] if self.steps else self.template_pps


@dataclass(frozen=True, slots=True)
class SendReport:
    templates: int  # written into the generator interface
    seconds: float  # from the first template to the last
    worst_lag_s: float  # how far behind its schedule the sender ever was
    refused: int  # templates the kernel did not take (ENOBUFS): not sent
    stopped: bool = False  # stopped (or out of time) before every template was written
    # Per feed: the most of its templates written in one slot (back to back). A bursts
    # stream's templates are its bursts: more than one at once, and bursts merged.
    most_at_once: tuple[int, ...] = ()
    # Per feed: how late its last template went out after it fell due, seconds (a lag
    # its catch-up had not repaid by then; 0 on time).
    slipped_s: tuple[float, ...] = ()


def stay_on_the_sender_cpu() -> int:
    """Pins the calling thread to the sender's CPU (lab.receive_steering: the labs steer
    their ports' receive work off it), and returns it. A sender that moves between CPUs
    leaves copies in the old CPU's backlog while the new CPU's overtake them: the host
    itself would reorder the trial's frames (measured on the router lab: 3 to 20 of
    52 083 frames reordered when the sender was free to move)."""
    cpu = sender_cpu()
    os.sched_setaffinity(0, {cpu})  # 0: this thread, not the process
    return cpu


def run_ahead_of_other_work() -> bool:
    """Gives the calling thread nice SENDER_NICE, so the scheduler runs it as soon as
    a slot falls due rather than when other work on its CPU (it is pinned) yields;
    False when the host does not allow it (not root). It sleeps through most of each
    slot, so it takes little from that work."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SENDER_NICE)
    except PermissionError:
        return False
    return True


@dataclass(slots=True)
class CatchUpBucket:
    """A token bucket over everything a feed writes: it fills at the feed's rate plus
    catch_up / 2 per repay window and holds a slot's share plus catch_up / 2. On
    schedule the bucket is full and the schedule alone paces the writes; behind it, a
    feed writes half its catch-up at once and then at most its rate and the other
    half per window. Any window of the trial's samples then holds at most catch_up
    templates beyond the rate and a slot's rounding up, however long the lag takes to
    repay. Tokens accrue by the clock, so slots that wake late cost nothing."""

    capacity: float
    refill_pps: float
    tokens: float
    last_s: float | None = None

    @classmethod
    def of(cls, feed: Feed) -> CatchUpBucket | None:
        if feed.catch_up is None:
            return None
        half = feed.catch_up / 2
        capacity = slot_share(feed.template_pps) + half
        return cls(capacity, feed.template_pps + half / feed.repay_window_s, capacity)

    def allow(self, now_s: float, owed: int) -> int:
        """Templates to write now of `owed` (due by the slot's end, not yet written)."""
        if self.last_s is not None:
            self.tokens = min(self.capacity, self.tokens + self.refill_pps * (now_s - self.last_s))
        self.last_s = now_s
        writes = max(0, min(owed, math.floor(self.tokens)))
        self.tokens -= writes
        return writes


class TemplateSender:
    def __init__(self, interface: str) -> None:
        self.interface = interface
        self._socket = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self._socket.bind((interface, 0))

    def send(self, templates: Sequence[bytes], count: int, rate_pps: float,
             time_limit_s: float) -> SendReport:
        """`count` templates, cycling through `templates` (one per stream), at
        `rate_pps` in all; stops at `time_limit_s` whatever is left."""
        streams = len(templates)
        counts = [count // streams + (1 if i < count % streams else 0) for i in range(streams)]
        return self.send_feeds([Feed(t, n, rate_pps / streams)
                                for t, n in zip(templates, counts, strict=True)], time_limit_s)

    def send_feeds(self, feeds: Sequence[Feed], time_limit_s: float,
                   stop: threading.Event | None = None) -> SendReport:
        """Every feed at its own rate, from one common start; ends when all are
        written, at `time_limit_s`, or when `stop` is set."""
        done = [0] * len(feeds)
        most_at_once = [0] * len(feeds)
        ended_late = [0.0] * len(feeds)
        repay = [CatchUpBucket.of(feed) for feed in feeds]
        refused = 0
        worst_lag = 0.0
        slots = 0
        start = time.perf_counter()
        deadline = start + time_limit_s
        while any(d < f.count for d, f in zip(done, feeds, strict=True)):
            now = time.perf_counter()
            if now > deadline or (stop is not None and stop.is_set()):
                break
            dues = []
            for index, feed in enumerate(feeds):
                elapsed = now - start + SLOT_S
                rate = feed.rate_at(elapsed)
                due = min(feed.count, int(feed.due_by(elapsed)) + 1)
                owed = due - done[index]
                if owed > 0:
                    worst_lag = max(worst_lag, owed / rate - SLOT_S)
                bound = repay[index]
                if bound is not None:
                    due = done[index] + bound.allow(now, owed)
                dues.append(due)
            # Round robin over the feeds: the streams of one port alternate template by
            # template (RFC 2889's round-robin destinations), instead of each stream's
            # templates of a slot leaving in one run ahead of the next stream's, which a
            # DUT's input FIFO would drop unevenly, stream by stream. The stream that
            # leads turns slot by slot, so none is always first into a short queue.
            lead = slots % len(feeds)
            slots += 1
            order = [*range(lead, len(feeds)), *range(lead)]
            pending = [index for index in order if dues[index] > done[index]]
            for index in pending:
                most_at_once[index] = max(most_at_once[index], dues[index] - done[index])
            while pending:
                for index in pending:
                    try:
                        feed = feeds[index]
                        self._socket.send(feed.cycle[done[index] % len(feed.cycle)]
                                          if feed.cycle else feed.template)
                    except OSError:
                        refused += 1
                    done[index] += 1
                    if done[index] == feeds[index].count:
                        late = time.perf_counter() - start - feeds[index].due_at(done[index] - 1)
                        ended_late[index] = max(late, 0.0)
                pending = [index for index in pending if dues[index] > done[index]]
            behind = any(d < f.count and d < f.due_by(time.perf_counter() - start)
                         for d, f in zip(done, feeds, strict=True))
            # Behind: the next slot writes what the catch-up allows by then.
            pause = SLOT_S if behind else min(
                (start + f.due_at(d) for d, f in zip(done, feeds, strict=True) if d < f.count),
                default=0.0) - time.perf_counter()
            if pause > 0:
                time.sleep(min(pause, SLOT_S * 10))
        written = sum(done)
        return SendReport(written - refused, time.perf_counter() - start, max(worst_lag, 0.0),
                          refused, stopped=any(d < f.count
                                               for d, f in zip(done, feeds, strict=True)),
                          most_at_once=tuple(most_at_once), slipped_s=tuple(ended_late))

    def close(self) -> None:
        self._socket.close()
