"""The flow engine OTG runs its flows through (tester.flow_engine), chosen by the
topology's switch target from the targets that offer one; a topology of several
testers runs them across its testers (targets.ebpf.group_flows,
targets.bmv2_group_flows)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.targets.bmv2_flows import Bmv2FlowEngine
from p4tester.targets.bmv2_group_flows import bmv2_group_flow_engine
from p4tester.targets.ebpf.flows import EbpfFlowEngine
from p4tester.targets.ebpf.group_flows import ebpf_group_flow_engine
from p4tester.tester.flow_engine import FlowEngine

EngineFactory = Callable[..., FlowEngine]
FLOW_ENGINES: Final[Mapping[str, EngineFactory]] = {"bmv2": Bmv2FlowEngine,
                                                    "ebpf": EbpfFlowEngine}


def flow_engine(topology: Topology, profile: Profile, *, push_pipeline: bool,
                otg_config: Mapping[str, Any]) -> FlowEngine:
    """Not yet opened: open() loads or checks the program. otg_config: the config as
    posted, which the agents of testers elsewhere map as the controller did."""
    if topology.testers:
        targets = sorted({t.switch.target for t in topology.testers})
        if len(targets) > 1:
            raise ConfigError(f"{topology.source or topology.name}: OTG flows across testers "
                              f"of targets {' and '.join(targets)} do not run yet: run the "
                              "experiments (CLI, REST) across these testers")
        (target,) = targets
        if target == "bmv2":
            return bmv2_group_flow_engine(topology, profile, otg_config,
                                          push_pipeline=push_pipeline)
        if target != "ebpf":
            raise ConfigError(f"{topology.source or topology.name}: OTG flows across several "
                              f"testers run on targets ebpf and bmv2 for now, not {target}: "
                              "run the experiments (CLI, REST) across these testers")
        return ebpf_group_flow_engine(topology, profile, otg_config)
    target = topology.switch.target
    if target not in FLOW_ENGINES:
        raise ConfigError(f"{topology.source or topology.name}: switch target {target!r} runs "
                          f"no OTG flows yet; known: {', '.join(sorted(FLOW_ENGINES))}")
    return FLOW_ENGINES[target](topology, profile, push_pipeline=push_pipeline)
