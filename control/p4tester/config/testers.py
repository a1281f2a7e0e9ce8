"""Several tester switches in one topology: one test between sites, a stream leaving
one tester and received on another (docs/several-testers.md).

    testers:
      west: {target: ebpf}
      east: {target: ebpf, simulated_clock: {offset_us: 1500, drift_ppm: 15.2587890625}}
    ports:
      1: {line_rate: 25Mbps, peer: "dut:1", tester: west}
      2: {line_rate: 25Mbps, peer: "dut:2", tester: east}
    asymmetry_us: 20

Port numbers stay unique across the testers, so a profile's streams name ports as
with one tester. Each tester stamps with its own clock; the controller measures their
offset over the test path (tester.clock_offset). A simulated clock is a test setting
for testers sharing one host's clock: the eBPF program adds it to its stamps
(p4src/psa/tester_clock.p4).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.keys import SIMULATED_CLOCK, SWITCH, TESTER
from p4tester.config.yaml_io import require_keys

# The program's drift is its clock shifted right by k (a shift amount of 5 bits there).
MAX_DRIFT_SHIFT: Final = 31
# A written drift matches 10^6 / 2^k to this share (15.26 for 15.2587890625).
DRIFT_MATCH: Final = 0.005
# The targets whose testers run together (their trials arm sending and receiving apart:
# targets.ebpf.trials, targets.bmv2_trials), and the unit each one's stamps count: a
# stream's latency is its receiver's clock less its sender's stamp, so the testers of
# one group stamp in one unit (eBPF and Tofino testers run together).
GROUP_TARGETS: Final = ("ebpf", "bmv2", "tofino")
STAMP_UNITS: Final = {"ebpf": "nanoseconds", "bmv2": "microseconds", "tofino": "nanoseconds"}
# The targets whose program adds a simulated clock to its stamps.
SIMULATED_CLOCK_TARGETS: Final = ("ebpf", "bmv2")
NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True, slots=True)
class SimulatedClock:
    """What a tester adds to the host's clock in its stamps: `offset_ns` when the run
    starts, and the clock shifted right by `drift_shift` (0: no drift)."""

    offset_ns: int = 0
    drift_shift: int = 0

    @property
    def drift_ppm(self) -> float:
        return 1e6 / (1 << self.drift_shift) if self.drift_shift else 0.0


def drift_shift_of(ppm: float, where: str) -> int:
    """The k with 10^6 / 2^k = ppm (within DRIFT_MATCH); 0 for no drift."""
    if ppm == 0:
        return 0
    if ppm > 0:
        k = round(math.log2(1e6 / ppm))
        if 1 <= k <= MAX_DRIFT_SHIFT and abs(1e6 / (1 << k) - ppm) <= DRIFT_MATCH * ppm:
            return k
    nearest = [1e6 / (1 << k) for k in (15, 16, 17)]
    raise ConfigError(f"{where}: drift_ppm {ppm:g} is not one the program makes: give 0 or "
                      "10^6 / 2^k for k in 1..31 (the clock shifted right by k), e.g. "
                      + ", ".join(f"{value:.10g}" for value in nearest))


@dataclass(frozen=True, slots=True)
class Reach:
    """How the controller reaches a tester: `agent` (host:port of its host's
    `p4tester otg`), or '' for a tester on the controller's own host; `token_file`
    holds the agent's token."""

    agent: str = ""
    token_file: str = ""
    tls_ca: str = ""  # HTTPS to the agent, its certificate checked against this PEM


def split_tester(data: object, where: str
                 ) -> tuple[dict[str, object], SimulatedClock, Reach, str]:
    """A `testers.<name>` mapping: its switch settings, its simulated clock, how it is
    reached, and where its host's ptp4l answers (tester.ptp_state)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a mapping of switch settings, e.g. "
                          "{target: ebpf}")
    require_keys(data, where, required=(), optional=(*SWITCH.names, *TESTER.names))
    settings = {str(k): v for k, v in data.items() if k not in TESTER.names}
    reach = _reach(data, settings, where)
    ptp_uds = str(data.get("ptp_uds", DEFAULT_PTP_UDS))
    if not ptp_uds.startswith("/"):
        raise ConfigError(f"{where}: ptp_uds {ptp_uds!r} must be an absolute path: ptp4l's "
                          f"uds_address on the tester's host, e.g. {DEFAULT_PTP_UDS}")
    if "simulated_clock" not in data:
        return settings, SimulatedClock(), reach, ptp_uds
    target = str(settings.get("target", "bmv2"))
    if target not in SIMULATED_CLOCK_TARGETS:
        raise ConfigError(f"{where}: simulated_clock is for targets "
                          f"{', '.join(SIMULATED_CLOCK_TARGETS)} (their programs add it to the "
                          "stamps); drop it")
    clock = _simulated_clock(data["simulated_clock"], f"{where}: simulated_clock")
    if target == "bmv2" and clock.offset_ns % 1000:
        raise ConfigError(f"{where}: simulated_clock: offset_us {clock.offset_ns / 1000:g} is "
                          "not whole: BMv2 stamps in microseconds; give a whole number")
    return settings, clock, reach, ptp_uds


# Testers a host's agent runs for a controller elsewhere: they need that host's kernel
# (eBPF: its program and sockets; BMv2: its ports' interface counters, its thrift
# server, which serves only its host).
AGENT_TARGETS: Final = ("bmv2", "ebpf")
# Where ptp4l answers management requests (pmc) unless its uds_address says otherwise.
DEFAULT_PTP_UDS: Final = "/var/run/ptp4l"


def _reach(data: Mapping[str, object], settings: Mapping[str, object], where: str) -> Reach:
    agent = str(data.get("agent", ""))
    token_file = str(data.get("token_file", ""))
    tls_ca = str(data.get("tls_ca", ""))
    for key, value in (("token_file", token_file), ("tls_ca", tls_ca)):
        if value and not agent:
            raise ConfigError(f"{where}: {key} is for the tester's agent; give agent: "
                              "host:port too, or drop it")
    if not agent:
        return Reach()
    if settings.get("target", "bmv2") not in AGENT_TARGETS:
        raise ConfigError(f"{where}: agent reaches an eBPF or BMv2 tester on another host "
                          "(a Tofino is reached at its grpc address); drop it")
    host, _, port = agent.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"{where}: agent {agent!r} must be host:port, e.g. "
                          "192.0.2.20:8443 (where that host runs p4tester otg)")
    return Reach(agent, token_file, tls_ca)


def _simulated_clock(data: object, where: str) -> SimulatedClock:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected {{offset_us: N, drift_ppm: N}}")
    require_keys(data, where, required=(), optional=SIMULATED_CLOCK.names)
    values = {}
    for key in SIMULATED_CLOCK.names:
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise ConfigError(f"{where}: {key} {value!r} must be a number")
        values[key] = float(value)
    offset_ns = round(values["offset_us"] * 1000)
    if abs(offset_ns) >= 1 << 30:
        raise ConfigError(f"{where}: offset_us {values['offset_us']:g} is beyond what the "
                          "probes measure (+-1 s: the stamps are 32-bit nanoseconds); give "
                          "less than 1 000 000")
    return SimulatedClock(offset_ns, drift_shift_of(values["drift_ppm"], where))


def check_tester_name(name: object, where: str) -> str:
    text = str(name)
    if not text or not set(text) <= NAME_CHARS:
        raise ConfigError(f"{where}: tester name {text!r}: use lower-case letters, digits, "
                          "'-' and '_', e.g. west")
    return text


def check_group(targets: Mapping[str, str], port_testers: Mapping[int, str],
                where: str) -> None:
    """Every port names one of the testers (name -> target); every tester has a port;
    targets that run together."""
    names = list(targets)
    for port, name in port_testers.items():
        if not name:
            raise ConfigError(f"{where}: ports: port {port} names no tester; add "
                              f"tester: <one of {', '.join(names)}>")
        if name not in names:
            raise ConfigError(f"{where}: ports: port {port}: tester {name!r} is not under "
                              f"testers (they are: {', '.join(names)})")
    for name, target in targets.items():
        if name not in port_testers.values():
            raise ConfigError(f"{where}: testers: {name} has no port; give a port "
                              f"tester: {name}, or drop it")
        if target not in GROUP_TARGETS:
            raise ConfigError(f"{where}: testers: {name}: target {target} does not "
                              f"run with other testers yet (targets that do: "
                              f"{', '.join(GROUP_TARGETS)}); give it one switch of its own")
    first, target = next(iter(targets.items()))
    for name, other in targets.items():
        if STAMP_UNITS.get(other) != STAMP_UNITS.get(target):
            raise ConfigError(f"{where}: testers: {first} ({target}) stamps in "
                              f"{STAMP_UNITS.get(target)}, {name} ({other}) in "
                              f"{STAMP_UNITS.get(other)}: a stream's latency is its receiver's "
                              "clock less its sender's stamp; give the testers of a topology "
                              "targets that stamp in one unit (eBPF and Tofino: nanoseconds)")
