"""The simulated switch and DUT every front end can run an experiment on, with no
switch, no toolchain and no root: `p4tester <experiment> --simulate` and
`p4tester serve --simulate`.

The simulated DUT forwards a share of line rate that grows with frame size (55 % at
64 B, line rate from 512 B), so a throughput search has something to find, and drops
the excess; a buffer of 64 x 1518 B absorbs bursts. Its latency is 5 us plus the
time to drain its queue (a trial's maximum raised by up to 3 us of noise); its
histograms use the profile's latency bins and the tester's queue-depth bins, as a
switch would. It is deterministic (seed 1): the same run gives the same figures.
No wall time passes: a trial's figures come at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.experiments.simulated_runner import SimulatedDut, SimulatedRunner
from p4tester.experiments.simulated_services import PolicedStream, SimulatedServicesRunner
from p4tester.results.model import TrialResult
from p4tester.streams.rates import l2_frame_bits, line_rate_pps
from p4tester.tester.trial_loop import QDEPTH_EDGES

from .simulated_receivers import received_on_ports

SMALLEST_CAPACITY: Final = 0.55
FULL_CAPACITY_SIZE: Final = 512
SIM_BUFFER_BYTES: Final = 64 * 1518
SIM_FIXED_LATENCY_US: Final = 5.0
SIM_NOISE_US: Final = 3.0


def capacity(frame_size: int) -> float:
    """Share of line rate the simulated DUT forwards: 55 % at 64 B up to 100 % at 512 B."""
    rise = (frame_size - 64) / (FULL_CAPACITY_SIZE - 64)
    return min(1.0, SMALLEST_CAPACITY + (1.0 - SMALLEST_CAPACITY) * max(0.0, rise))


def simulated_dut(topology: Topology, profile: Profile) -> SimulatedDut:
    return SimulatedDut(capacity_by_size=capacity,
                        line_rate_bps=topology.port(profile.streams[0].tx_port).line_rate_bps,
                        fan_in=len(profile.streams), buffer_bytes=SIM_BUFFER_BYTES,
                        fixed_latency_us=SIM_FIXED_LATENCY_US, latency_noise_us=SIM_NOISE_US,
                        seed=1, latency_edges_us=profile.latency_bins_us,
                        queue_edges=QDEPTH_EDGES)


class ProfileStreamsRunner:
    """The simulated runner with the profile's stream ids (the simulated DUT numbers
    its streams 0..n-1). A trial that gives streams loads of their own (a Y.1564 step:
    TrialSpec.stream_loads) sends only those, each through a policer at the DUT's
    capacity for the frame size, as a switch would send only them. A stream received
    on several ports has its figures per port (runs.simulated_receivers)."""

    def __init__(self, simulated: SimulatedRunner, profile: Profile) -> None:
        self._simulated = simulated
        self._ids = tuple(s.id for s in profile.streams)
        self._edges_us = profile.latency_bins_us
        self._receive = {s.id: s.receive for s in profile.streams if s.receive is not None}

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        if spec.stream_loads:
            result = self._own_loads(spec)
        else:
            result = self._simulated.run_trial(spec)
            result = replace(result, streams=tuple(
                replace(s, stream_id=self._ids[i]) for i, s in enumerate(result.streams)))
        if not self._receive:
            return result
        return replace(result, streams=tuple(
            received_on_ports(s, self._receive[s.stream_id]) if s.stream_id in self._receive
            else s for s in result.streams))

    def _own_loads(self, spec: TrialSpec) -> TrialResult:
        dut = self._simulated.dut
        passed_bps = (capacity(spec.frame_size) * line_rate_pps(dut.line_rate_bps, spec.frame_size)
                      * l2_frame_bits(spec.frame_size))
        return SimulatedServicesRunner(
            dut.line_rate_bps,
            tuple(PolicedStream(stream_id, passed_bps, latency_us=SIM_FIXED_LATENCY_US)
                  for stream_id, _ in spec.stream_loads),
            edges_us=self._edges_us).run_trial(spec)


@contextmanager
def open_simulated_runner(topology: Topology, profile: Profile) -> Iterator[TrialRunner]:
    """A trial runner on the simulated switch: each trial's figures at once."""
    yield ProfileStreamsRunner(SimulatedRunner(simulated_dut(topology, profile)), profile)


def check_simulated(experiment: str) -> None:
    """ConfigError for an experiment the simulated switch cannot stand in for."""
    if experiment == "queue-sweep":
        # The sweep steps a BMv2 DUT's buffer over thrift; there is none to step.
        raise ConfigError("queue-sweep steps a bmv2 DUT's buffer over thrift: it needs a "
                          "lab switch, not --simulate")
