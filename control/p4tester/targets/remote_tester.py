"""One tester of several reached through its host's agent (otg.agent): the trial
target and probe side the controller's TesterGroup uses, each call a request to the
agent (`testers.<name>.agent: host:port` in the topology, with the agent's token from
`token_file` when it is not on loopback). A call the agent does not answer in time
raises TesterUnanswered naming the tester and where it was reached."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.experiments.errors import TesterUnanswered
from p4tester.experiments.runner import TrialSpec
from p4tester.results.clocks import PtpState
from p4tester.results.model import StreamStats
from p4tester.tester.agent_codec import decode, encode
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_loop import ArmedTrial, Extras, RxKinds

AGENT_PATH: Final = "/p4tester/agent"  # otg.agent's (not imported: front ends sit above)
# How long one request may take: the longest is a probe burst (16 frames at 2000/s) or
# a trial's figures; a busy host's agent answers within this.
CALL_TIMEOUT_S: Final = 20.0


class RemoteTester:
    """A tester an agent runs. Mutable: opened once per run, closed after."""

    def __init__(self, name: str, address: str, token: str | None,
                 profile: Profile, timeout_s: float = CALL_TIMEOUT_S,
                 tls_ca: str = "") -> None:
        self._name = name
        self.address = address
        self.token = token
        self.profile = profile
        self.timeout_s = timeout_s
        # HTTPS, the agent's certificate checked against tls_ca (its name or address too).
        self._tls = ssl.create_default_context(cafile=tls_ca) if tls_ca else None
        self._properties: dict[str, Any] = {}

    # ---- the agent ---------------------------------------------------------------
    def open(self, topology_text: str, topology_source: str, profile_text: str,
             profile_source: str, run_value: int) -> None:
        properties = self._post("open", {
            "topology": topology_text, "topology_source": topology_source,
            "profile": profile_text, "profile_source": profile_source,
            "tester": self._name, "run_value": run_value})
        self._properties = {key: decode(value) for key, value in properties.items()}

    def open_flows(self, topology_text: str, topology_source: str,
                   otg_config: Mapping[str, Any], drain_s: float, run_value: int) -> None:
        """The tester opened for OTG flows: the agent maps the config as the
        controller did (targets.remote_flows)."""
        properties = self._post("open", {
            "topology": topology_text, "topology_source": topology_source,
            "otg_config": dict(otg_config), "drain_s": drain_s, "tester": self._name,
            "run_value": run_value})
        self._properties = {key: decode(value) for key, value in properties.items()}

    def close(self) -> None:
        self._post("close", {})

    def call(self, method: str, *args: object) -> Any:
        """One of the agent's methods (otg.agent.METHODS), its answer decoded."""
        return decode(self._post(f"call/{method}", {"args": [encode(a) for a in args]}))

    def _post(self, path: str, document: object) -> Any:
        url = f"{'https' if self._tls else 'http'}://{self.address}{AGENT_PATH}/{path}"
        headers = {"Content-Type": "application/json"}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(url, json.dumps(document).encode(), headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s,
                                        context=self._tls) as response:
                return json.loads(response.read())["result"]
        except urllib.error.HTTPError as refused:
            if refused.code >= 500:
                raise TesterUnanswered(f"tester {self._name}'s agent at {self.address} "
                                       f"failed {path}: {_errors(refused)}") from None
            raise ConfigError(f"tester {self._name}'s agent at {self.address} refused "
                              f"{path}: {_errors(refused)}") from None
        except (urllib.error.URLError, OSError, ValueError) as lost:
            reason = getattr(lost, "reason", lost)
            raise TesterUnanswered(
                f"tester {self._name}'s agent at {self.address} did not answer ({path}: "
                f"{reason}): the agent stopped, or its host is unreachable") from None

    # ---- the trial loop's reads and writes ------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def poll_s(self) -> float:
        return float(self._properties["poll_s"])

    @property
    def drain_s(self) -> float:
        return float(self._properties["drain_s"])

    @property
    def settle_s(self) -> float:
        return float(self._properties["settle_s"])

    @property
    def settle_max_s(self) -> float:
        return float(self._properties["settle_max_s"])

    @property
    def host_bound(self) -> bool:
        return bool(self._properties["host_bound"])

    @property
    def dut_between(self) -> bool:
        return bool(self._properties["dut_between"])

    @property
    def queues_input(self) -> bool:
        return bool(self._properties["queues_input"])

    def port_names(self) -> Mapping[int, str]:
        return dict(self.call("port_names"))

    def read_ports(self) -> Mapping[int, InterfaceCounters] | None:
        read: Mapping[int, InterfaceCounters] | None = self.call("read_ports")
        return read

    def read_program(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        snapshot, ports = self.call("read_program")
        return snapshot, ports

    def read_arrivals(self) -> tuple[CounterSnapshot, ProgramPortCounts]:
        snapshot, ports = self.call("read_arrivals")
        return snapshot, ports

    def arm(self, spec: TrialSpec) -> ArmedTrial:
        armed: ArmedTrial = self.call("arm", spec)
        return armed

    def start(self, trial: ArmedTrial, spec: TrialSpec) -> None:
        self.call("start", spec)

    def retune(self, trial: ArmedTrial, rates_pps: Mapping[int, float]) -> None:
        self.call("retune", dict(rates_pps))

    def read_sent(self, senders: Sequence[Sender]) -> Mapping[int, SentReading]:
        return dict(self.call("read_sent", list(senders)))

    def read_received(self, stream_ids: Sequence[int]) -> Mapping[int, tuple[int, int]]:
        return {sid: (frames, total) for sid, (frames, total)
                in self.call("read_received", list(stream_ids)).items()}

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        self.call("set_tx_clock_correction", stream_id, correction_ns)

    def stop(self, trial: ArmedTrial) -> None:
        self.call("stop")

    def rx_kinds(self, before: CounterSnapshot, after: CounterSnapshot) -> RxKinds:
        kinds: RxKinds = self.call("rx_kinds", before, after)
        return kinds

    def widen_latency_bins(self, edges_us: tuple[int, ...]) -> None:
        self.call("widen_latency_bins", list(edges_us))

    def stream_stats(self, trial: ArmedTrial, spec: TrialSpec, before: CounterSnapshot,
                     after: CounterSnapshot) -> tuple[StreamStats, ...]:
        return tuple(self.call("stream_stats", spec, before, after))

    def extras(self, trial: ArmedTrial, streams: tuple[StreamStats, ...],
               before: CounterSnapshot, after: CounterSnapshot) -> Extras:
        extras: Extras = self.call("extras", streams, before, after)
        return extras

    # ---- its side of the clock probes -----------------------------------------------
    def _source(self, probe: StreamConfig) -> int:
        """The profile's stream a probe copies (the agent has the profile)."""
        for stream in self.profile.streams:
            if replace(stream, id=probe.id) == probe:
                return stream.id
        raise ValueError(f"probe {probe.id} copies no stream of the profile")

    def expect_probe(self, probe: StreamConfig) -> None:
        self.call("expect_probe", self._source(probe), probe.id)

    def send_probe(self, probe: StreamConfig, frames: int, rate_pps: float,
                   correction_ns: int) -> None:
        self.call("send_probe", self._source(probe), probe.id, frames, rate_pps,
                   correction_ns)

    def probe_minimum(self, probe_id: int) -> tuple[int, int]:
        frames, least = self.call("probe_minimum", probe_id)
        return int(frames), int(least)

    def end_probe(self, probe_id: int) -> None:
        self.call("end_probe", probe_id)

    def ptp_state(self) -> PtpState:
        """PTP on the agent's host, as its topology's ptp_uds says where."""
        state: PtpState = self.call("ptp_state")
        return state


def _errors(refused: urllib.error.HTTPError) -> str:
    try:
        document = json.loads(refused.read())
        return "; ".join(str(e) for e in document.get("errors", [])) or str(refused)
    except (ValueError, AttributeError):
        return str(refused)
