"""A topology's `network`: nodes and links given in the topology, or another project's
network file (p4lang/tutorials' topology.json, p4-utils' p4app.json). Apart from
config.network so that the readers of those files, which build its NetworkSpec, are
imported by nothing they import."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from p4tester.config.errors import ConfigError
from p4tester.config.keys import NETWORK_P4APP, NETWORK_TUTORIALS
from p4tester.config.network import NetworkSpec, nodes_and_links_from_dict
from p4tester.config.p4app import load_p4app
from p4tester.config.tutorials import load_tutorials_topology
from p4tester.config.yaml_io import require_keys


def network_from_dict(data: object, base_dir: Path, where: str) -> NetworkSpec:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a mapping with 'nodes' and 'links' "
                          "(or 'tutorials: <topology.json>', or 'p4app: <p4app.json>')")
    if "tutorials" in data:
        require_keys(data, where, required=NETWORK_TUTORIALS.required,
                     optional=NETWORK_TUTORIALS.optional)
        return load_tutorials_topology(base_dir / str(data["tutorials"]), f"{where}: tutorials")
    if "p4app" in data:
        require_keys(data, where, required=NETWORK_P4APP.required,
                     optional=NETWORK_P4APP.optional)
        return load_p4app(base_dir / str(data["p4app"]), f"{where}: p4app")
    return nodes_and_links_from_dict(data, base_dir, where)
