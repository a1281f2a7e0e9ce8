"""The real tester switch behind the server: one TesterSession, opened when first
needed and kept (one P4Runtime primary per device), shared by runs and live reads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.runner import TrialRunner
from p4tester.runs.trial_runners import open_trial_runner
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import SwitchTrialRunner

from .backend import BackendUnavailableError
from .readings import LiveReading
from .switch_reader import read_switch


class SwitchBackend:
    def __init__(self, topology: Topology, profile: Profile) -> None:
        self._topology = topology
        self._profile = profile
        self._open_lock = threading.Lock()
        # Held by a run for its whole length: register reads go in-band over the
        # packet-in channel a trial uses for its own reads, so a live read skips them
        # (counters, plain P4Runtime reads, are read either way).
        self._inband = threading.Lock()
        self._session: TesterSession | None = None

    @property
    def simulated(self) -> bool:
        return False

    @property
    def latency_edges_us(self) -> tuple[int, ...]:
        """The bins the switch counts by: the profile's, or those a run widened them to
        (tester.trial_loop)."""
        session = self._session
        return (session.profile if session is not None else self._profile).latency_bins_us

    @property
    def _one_bmv2_switch(self) -> bool:
        return self._topology.switch.target == "bmv2" and not self._topology.testers

    def _bmv2_session(self) -> TesterSession:
        if self._topology.testers:
            raise BackendUnavailableError(
                "live counters read one BMv2 switch; across several testers run an "
                "experiment (soak gives interval statistics)")
        if self._topology.switch.target != "bmv2":
            raise BackendUnavailableError(
                f"live counters read BMv2 counters; on {self._topology.switch.target} run an "
                "experiment (soak gives interval statistics)")
        with self._open_lock:
            if self._session is None:
                session = TesterSession(self._topology, self._profile)
                try:
                    session.open()
                except Exception as exc:
                    session.close()
                    raise BackendUnavailableError(f"switch {self._topology.switch.grpc}: "
                                                  f"{exc}") from exc
                self._session = session
            return self._session

    @contextmanager
    def trial_runner(self, stop: threading.Event) -> Iterator[TrialRunner]:
        del stop  # a switch trial is not cut short: ObservedRunner stops between trials
        if not self._one_bmv2_switch:
            with open_trial_runner(self._topology, self._profile, push_pipeline=False) as runner:
                yield runner
            return
        session = self._bmv2_session()
        with self._inband:
            yield SwitchTrialRunner(session)

    def read(self) -> LiveReading:
        session = self._bmv2_session()
        registers = self._inband.acquire(blocking=False)
        try:
            return read_switch(session, registers=registers)
        finally:
            if registers:
                self._inband.release()

    def close(self) -> None:
        with self._open_lock:
            if self._session is not None:
                self._session.close()
                self._session = None
