"""The flow engine OTG runs its flows through (tester.flow_engine), chosen by the
topology's switch target from the targets that offer one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.targets.bmv2_flows import Bmv2FlowEngine
from p4tester.targets.ebpf.flows import EbpfFlowEngine
from p4tester.tester.flow_engine import FlowEngine

EngineFactory = Callable[..., FlowEngine]
FLOW_ENGINES: Final[Mapping[str, EngineFactory]] = {"bmv2": Bmv2FlowEngine,
                                                    "ebpf": EbpfFlowEngine}


def flow_engine(topology: Topology, profile: Profile, *, push_pipeline: bool) -> FlowEngine:
    """Not yet opened: open() loads or checks the program."""
    if topology.testers:
        raise ConfigError(f"{topology.source or topology.name}: OTG flows run on one tester "
                          "for now, not across several (testers: "
                          f"{', '.join(t.name for t in topology.testers)}); run the "
                          "experiment from the CLI or the dashboard, or serve OTG on a "
                          "topology of one tester")
    target = topology.switch.target
    if target not in FLOW_ENGINES:
        raise ConfigError(f"{topology.source or topology.name}: switch target {target!r} runs "
                          f"no OTG flows yet; known: {', '.join(sorted(FLOW_ENGINES))}")
    return FLOW_ENGINES[target](topology, profile, push_pipeline=push_pipeline)
