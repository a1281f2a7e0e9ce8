"""How sure a trial is of itself: the per-port self-check and the host's load.

A tester on a shared host can drop frames itself (BMv2 not keeping up with what the
kernel delivered to its interfaces): such frames must never be reported as the DUT's
loss. Each trial therefore compares, per port, the interface's own counters (the
kernel's, before a frame reaches the switch program) with what the program counted:

- tester_rx_dropped: frames the interface delivered that the program never saw
  (plus what the interface itself dropped on receive);
- tester_tx_dropped: frames the program sent out of the port that the interface
  did not send.

A trial with either above zero is "tester-limited": invalid, never counted as loss.
The same comparison on the DUT's side (a lab DUT sharing the host) makes a trial
"dut-limited": the DUT did not get the CPU its configured behaviour needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# TrialResult.invalid_reason values.
TESTER_LIMITED: Final = "tester-limited"
DUT_LIMITED: Final = "dut-limited"
# Frames of earlier trials still arrived when the trial ran (results.settle): the DUT
# was busy with earlier traffic, not losing this trial's.
DUT_NOT_DRAINED: Final = "dut-not-drained"
TRIAL_ERROR: Final = "error"
CHECK_OK: Final = "ok"
# A run's verdict when it ran no trial at all: nothing measured, nothing vouched for.
NO_TRIALS: Final = "no-trials"


@dataclass(frozen=True, slots=True)
class PortCheck:
    """One port over one trial: the interface's counters (deltas) next to the switch
    program's. Frames, not bytes."""

    port: int
    interface: str
    interface_rx: int  # frames the interface delivered (kernel rx_packets)
    interface_tx: int  # frames the interface sent (kernel tx_packets)
    interface_rx_dropped: int  # frames the interface dropped on receive (kernel rx_dropped)
    interface_tx_dropped: int  # frames the interface could not send (kernel tx_dropped)
    program_rx: int  # frames the switch program received from the port
    program_tx: int  # frames the switch program sent out of the port
    # A veth into a lab DUT's own input queue (DutCounterSource.fed_ports): the frames
    # it could not hand over (interface_tx_dropped) were the DUT's input refusing them,
    # in the DUT check's counts, not the tester's.
    feeds_dut: bool = False

    @property
    def rx_dropped(self) -> int:
        """Frames that reached the port but not the program. A frame that arrived
        between the two counter reads at the trial's edges can only make the program
        count more (see tester.selfcheck), hence the clamp."""
        return max(self.interface_rx - self.program_rx, 0) + self.interface_rx_dropped

    @property
    def tx_dropped(self) -> int:
        """Frames the program sent out of the port that the interface did not send
        (a veth counts a frame it could not hand to its peer in tx_dropped, not in
        tx_packets, so the difference already holds it), less those a DUT's own input
        refused (feeds_dut)."""
        refused = self.interface_tx_dropped if self.feeds_dut else 0
        return max(self.program_tx - self.interface_tx - refused, 0)

    @property
    def ok(self) -> bool:
        return self.rx_dropped == 0 and self.tx_dropped == 0

    def describe(self) -> str:
        parts = []
        if self.rx_dropped:
            parts.append(f"{self.rx_dropped} of {self.interface_rx + self.interface_rx_dropped} "
                         f"frames {self.interface} received never reached the program")
        if self.tx_dropped:
            parts.append(f"{self.tx_dropped} of {self.program_tx} frames the program sent "
                         f"were not sent by {self.interface}")
        return f"port {self.port}: {'; '.join(parts) or 'ok'}"


@dataclass(frozen=True, slots=True)
class SelfCheck:
    """The per-port checks of one side (the tester, or a lab DUT) over one trial.

    unvouched: why the side cannot vouch for the trial beyond its ports' counts: the
    tester's switch did not answer an in-band request in time, its generator did not
    offer the load it was set to (fell behind, or caught up in a burst: a load above
    what it processes, or a starved host), or its program took frames from before the
    trial as a stream's; a lab DUT whose counters could not be read. The trial is then
    as little the DUT's as one whose ports dropped frames. Empty when the side vouches.

    overdriven: the tester sent bursts beyond what its load allows (a generator that
    stalled and caught up): traffic harsher than asked, so no frame the DUT lost in the
    trial is surely the DUT's at the load asked (results.model: dut_loss_floor)."""

    ports: tuple[PortCheck, ...]
    unvouched: str = ""
    overdriven: bool = False

    @property
    def ok(self) -> bool:
        return not self.unvouched and all(port.ok for port in self.ports)

    @property
    def rx_dropped(self) -> int:
        return sum(port.rx_dropped for port in self.ports)

    @property
    def tx_dropped(self) -> int:
        return sum(port.tx_dropped for port in self.ports)

    def port(self, number: int) -> PortCheck:
        for port in self.ports:
            if port.port == number:
                return port
        raise KeyError(f"no self-check of port {number}; checked: "
                       f"{', '.join(str(p.port) for p in self.ports)}")

    def describe(self) -> str:
        """The ports that failed, one clause each ('ok' when none did)."""
        failed = [port.describe() for port in self.ports if not port.ok]
        if self.unvouched:
            failed.insert(0, self.unvouched)
        return "; ".join(failed) if failed else CHECK_OK


@dataclass(frozen=True, slots=True)
class HostLoad:
    """The host's load over one trial: what a tester on a shared host competes with.

    load_1m: the 1-minute load average at the trial's end (os.getloadavg);
    cpus: CPUs the host has, to read the load against;
    steal_fraction: share of CPU time a hypervisor took from this host during the
    trial (/proc/stat 'steal'), None where the kernel does not say.
    """

    load_1m: float
    cpus: int
    steal_fraction: float | None = None

    @property
    def busy(self) -> bool:
        """More runnable tasks than CPUs: the tester's switch waits for a core."""
        return self.load_1m > self.cpus
