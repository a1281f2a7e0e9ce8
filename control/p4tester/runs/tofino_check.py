"""`p4tester tofino-check`'s work: the topology's Tofino as the first-contact checks
need it, a session with its BfRt server, and the report of every check
(targets.tofino.first_contact)."""

from __future__ import annotations

from p4tester.config.errors import ConfigError
from p4tester.config.topology import Topology
from p4tester.targets.tofino.chip import chip_named
from p4tester.targets.tofino.first_contact.bench import Bench, Setup, SwitchBench
from p4tester.targets.tofino.first_contact.findings import Report
from p4tester.targets.tofino.first_contact.run import run_checks
from p4tester.targets.tofino.runner import port_settings


def check_setup(topology: Topology) -> Setup:
    """The topology's switch: it must be a Tofino; its ports are the ones looped."""
    where = topology.source or topology.name
    if topology.switch.target != "tofino":
        raise ConfigError(f"{where}: switch target is {topology.switch.target!r}; "
                          "tofino-check needs a Tofino topology (topologies/tofino*.yaml)")
    chip = chip_named(topology.switch.chip, f"{where}: switch")
    return Setup(chip, {p.number: p.front_panel for p in topology.ports},
                 port_settings(topology, chip),
                 {p.number: p.line_rate_bps for p in topology.ports}, topology.name)


def tofino_check(topology: Topology, bench: Bench | None = None) -> Report:
    """Every check on the topology's switch (`bench`: a given one, e.g. a fake switch;
    else a BfRt session with the switch the topology names)."""
    setup = check_setup(topology)
    if bench is not None:
        return run_checks(bench, setup)
    from p4tester.targets.tofino.sde_client import SdeBfrtClient

    client = SdeBfrtClient(topology.switch.grpc, device_id=topology.switch.device_id)
    try:
        return run_checks(SwitchBench(client, _sde_python()), setup)
    finally:
        client.close()


def _sde_python() -> str:
    import google.protobuf

    return f"protobuf {google.protobuf.__version__}"
