"""The clocks of a trial across several testers (docs/several-testers.md): the offset
between each pair that exchanged streams, as the probes measured it at the trial's
start and end (tester.clock_probes), and what it leaves the one-way figures off by;
and what PTP said on each tester's host meanwhile (tester.ptp_state)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PtpState:
    """ptp4l's state on one host when it was read. answered False: `why` says what
    was found instead (no ptp4l answering, no pmc)."""

    answered: bool
    port_state: str = ""  # PORT_DATA_SET portState: SLAVE, MASTER, UNCALIBRATED, ...
    master_offset_ns: int | None = None  # TIME_STATUS_NP master_offset (a slave's)
    gm_present: bool = False
    gm_identity: str = ""
    why: str = ""
    # PORT_PROPERTIES_NP timestamping: SOFTWARE (ptp4l's clock is the system clock),
    # HARDWARE and the like (the NIC's clock); '' when not read.
    timestamping: str = ""
    # Whether phc2sys ran on the host (None: not looked for): with hardware
    # timestamping, what carries the NIC's clock to the system clock the tester stamps
    # with.
    phc2sys: bool | None = None

    def describe(self) -> str:
        """One phrase for a report, e.g. "PTP SLAVE of grandmaster 001122.fffe.334455,
        +35 ns from it; hardware timestamps, phc2sys runs"."""
        if not self.answered:
            return f"no PTP ({self.why})"
        if not self.gm_present:
            return (f"PTP {self.port_state}, its own grandmaster ({self.gm_identity})"
                    f"{self._system_clock()}")
        offset = "" if self.master_offset_ns is None else \
            f", {self.master_offset_ns:+d} ns from it"
        return (f"PTP {self.port_state} of grandmaster {self.gm_identity}{offset}"
                f"{self._system_clock()}")

    def _system_clock(self) -> str:
        """Whether PTP reaches the system clock, which the tester stamps with."""
        if not self.timestamping:
            return ""
        if self.timestamping == "SOFTWARE":
            return "; software timestamps (ptp4l's clock is the system clock)"
        if self.phc2sys:
            return "; hardware timestamps, phc2sys runs"
        return ("; hardware timestamps and no phc2sys: PTP disciplines the NIC's clock, "
                "not the system clock the tester stamps with")


@dataclass(frozen=True, slots=True)
class ClockRecord:
    """Tester `b`'s clock minus tester `a`'s in one trial.

    offset_us: at the trial's start: what the stamps of streams between the two were
    corrected by, so the receiver's figures are one-way delays;
    end_offset_us: at its end (None: not measured, the trial ended before);
    uncertainty_us: what those one-way figures may be off by: half the path's delay
    asymmetry as the topology bounds it, half the probes' spread, and how far the
    offset moved over the trial;
    drift_ppm: how fast b's clock gained on a's (None without an end);
    exchanges: probe rounds the estimates kept (start and end);
    start_skew_ms: between the first and the last tester's start of the trial;
    jump: why the offset cannot be trusted over the trial ('' when it can): the
    trial's one-way figures are then not vouched for;
    a_to_b, b_to_a: the streams between the two, each way;
    a_ptp, b_ptp: PTP's state on each tester's host at the trial's start (None: not
    read, as in records before schema 13)."""

    a: str
    b: str
    offset_us: float
    end_offset_us: float | None
    uncertainty_us: float
    drift_ppm: float | None
    exchanges: int
    start_skew_ms: float
    jump: str = ""
    a_to_b: tuple[int, ...] = ()
    b_to_a: tuple[int, ...] = ()
    a_ptp: PtpState | None = None
    b_ptp: PtpState | None = None

    def direction(self, stream_id: int) -> tuple[str, str] | None:
        """(sending tester, receiving tester) of a stream between the two, else None."""
        if stream_id in self.a_to_b:
            return self.a, self.b
        if stream_id in self.b_to_a:
            return self.b, self.a
        return None

    def describe(self) -> str:
        """One line for a report, e.g. "clock east - west: +1500.2 us +- 1.3 us
        (drift 15.3 ppm; 4 probe rounds; testers started within 0.4 ms)"."""
        drift = "" if self.drift_ppm is None else f"drift {self.drift_ppm:.1f} ppm; "
        line = (f"clock {self.b} - {self.a}: {self.offset_us:+.1f} us "
                f"+- {self.uncertainty_us:.1f} us ({drift}{self.exchanges} probe rounds; "
                f"testers started within {self.start_skew_ms:.1f} ms)")
        return f"{line}: {self.jump}" if self.jump else line

    def ptp_line(self) -> str:
        """What PTP said on both hosts, e.g. "  west: PTP MASTER, its own grandmaster
        (...); east: PTP SLAVE of grandmaster ..., +35 ns from it"; "" when not read."""
        if self.a_ptp is None or self.b_ptp is None:
            return ""
        return f"  {self.a}: {self.a_ptp.describe()}; {self.b}: {self.b_ptp.describe()}"
