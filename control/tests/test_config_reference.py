"""docs/configuration.md, the configuration reference: generated from the key tables
(config.keys) the loaders check, up to date, and listing every key the loaders accept
and every key the shipped files use."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from p4tester.config import keys, reference
from p4tester.config import network as network_module
from p4tester.config import network_file as network_file_module
from p4tester.config import profile as profile_module
from p4tester.config import services as services_module
from p4tester.config import stream_headers as stream_headers_module
from p4tester.config import testers as testers_module
from p4tester.config import topology as topology_module
from p4tester.config import vary_patterns as vary_patterns_module
from p4tester.config.p4app import load_p4app
from p4tester.config.profile import (
    SearchConfig,
    StreamConfig,
    TrialConfig,
    load_profile,
    profile_from_dict,
)
from p4tester.config.services import ServiceSla
from p4tester.config.topology import PortAddresses, SwitchConfig, load_topology, topology_from_dict
from p4tester.config.tutorials import load_tutorials_topology
from p4tester.config.yaml_io import require_keys
from p4tester.streams.addresses import ADDRESS_FIELDS
from p4tester.streams.field_patterns import PATTERN_FIELDS
from p4tester.streams.variation import FIELD_LIMITS

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "configuration.md"
CONFIG = REPO / "control" / "p4tester" / "config"
LOADERS = (topology_module, profile_module, services_module, network_module,
           network_file_module, stream_headers_module, vary_patterns_module, testers_module)


def documented(file: str) -> set[str]:
    return {name for section in keys.SECTIONS if section.file == file for name in section.names}


def is_documented(key: str, names: set[str]) -> bool:
    """`key` is a documented name, or matches one with a port number in it (qdisc_<N>)."""
    return key in names or any(re.fullmatch(re.escape(name).replace("<N>", r"\d+"), key)
                               for name in names if "<N>" in name)


# --- (a) the file is the generator's output ----------------------------------------------

def test_the_reference_is_what_the_generator_writes() -> None:
    current = DOC.read_text() if DOC.exists() else ""
    assert current == reference.render(), \
        "docs/configuration.md differs from the key tables: run make docs"


def test_the_generator_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    out = tmp_path / "configuration.md"
    assert reference.main([str(out), "--check"]) == 1
    assert "run make docs" in capsys.readouterr().err
    assert reference.main([str(out)]) == 0
    assert out.read_text() == reference.render()
    assert reference.main([str(out), "--check"]) == 0


def test_the_reference_is_for_users() -> None:
    text = reference.render()
    assert "make docs" in text and "do not edit it by hand" in text
    assert not re.search(r"issue \d|\btests?_", text, re.IGNORECASE)
    for section in keys.SECTIONS:
        for key in section.keys:
            assert key.description and key.type and key.example, (section.path, key.name)
            assert f"| `{key.name}` |" in text


def test_the_examples_are_shipped_files_that_load() -> None:
    topology_path, _ = reference.EXAMPLES[keys.TOPOLOGY_FILE]
    profile_path, _ = reference.EXAMPLES[keys.PROFILE_FILE]
    tutorials_path, _ = reference.EXAMPLES[keys.TUTORIALS_FILE]
    p4app_path, _ = reference.EXAMPLES[keys.P4APP_FILE]
    assert load_profile(REPO / profile_path).streams
    assert load_topology(REPO / topology_path).ports
    assert load_tutorials_topology(REPO / tutorials_path, "example").nodes
    assert load_p4app(REPO / p4app_path, "example").nodes
    assert set(reference.EXAMPLES) == {file for file, _title, _intro in keys.FILES}


# --- the tables ------------------------------------------------------------------------

def test_sections_are_well_formed() -> None:
    ids = [section.id for section in keys.SECTIONS]
    assert len(ids) == len(set(ids))
    files = {file for file, _title, _intro in keys.FILES}
    for section in keys.SECTIONS:
        assert section.file in files and section.keys, section.id
        assert len(section.names) == len(set(section.names)), section.id
    every = {id(section) for section in keys.SECTIONS}
    named = [*keys.NODE_SECTIONS.values(), *keys.TUNNEL_SECTIONS.values()]
    assert all(id(section) in every for section in named)


def test_every_loader_default_resolves() -> None:
    for section in keys.SECTIONS:
        for key in section.keys:
            if key.default == keys.FROM_LOADER:
                reference.loader_default(section, key)  # raises LookupError otherwise
            assert reference.default_text(section, key)


def fields_of(cls: Any) -> tuple[str, ...]:
    return tuple(item.name for item in dataclasses.fields(cls))


def without_default(cls: Any) -> tuple[str, ...]:
    return tuple(item.name for item in dataclasses.fields(cls)
                 if item.default is dataclasses.MISSING
                 and item.default_factory is dataclasses.MISSING)


def test_tables_built_into_dataclasses_name_their_fields() -> None:
    """The loaders build these dataclasses from the keys the tables allow."""
    assert keys.SWITCH.names == fields_of(SwitchConfig)
    assert keys.TRIAL.names == fields_of(TrialConfig)
    assert keys.SEARCH.names == fields_of(SearchConfig)
    assert keys.PORT_ADDRESSES.names == fields_of(PortAddresses)
    assert keys.SLA.names == fields_of(ServiceSla)
    assert keys.SLA.required == without_default(ServiceSla)
    assert tuple(stream_headers_module._TUNNELS) == keys.TUNNEL.names
    assert set(keys.TUNNEL_SECTIONS) == set(keys.TUNNEL.names)
    for kind, cls in stream_headers_module._TUNNELS.items():
        section = keys.TUNNEL_SECTIONS[kind]
        assert set(section.names) == set(fields_of(cls)), kind
        assert section.required == without_default(cls), kind
    assert set(keys.VARY.names) == set(FIELD_LIMITS) | set(PATTERN_FIELDS)
    assert set(ADDRESS_FIELDS) <= set(keys.STREAM.names)
    # A stream entry's keys become StreamConfig's fields, its addresses', or expand.
    expanding = {"imix", "mesh", "addresses", "between"}
    assert set(keys.STREAM.names) <= {*fields_of(StreamConfig), *ADDRESS_FIELDS, *expanding}
    for form in (keys.PLAIN_STREAM_REQUIRED, keys.MESH_STREAM_REQUIRED,
                 keys.ADDRESSES_STREAM_REQUIRED):
        assert set(form) <= set(keys.STREAM.names)
    assert set(keys.NODE_SECTIONS) == set(network_module.NODE_KINDS)


# --- (b) every key a loader accepts is documented ----------------------------------------

def key_arguments(tree: ast.Module) -> Iterator[tuple[int, ast.expr | None]]:
    """The required= and optional= arguments of each require_keys call (None: the
    call passes its keys otherwise, positionally or not at all)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "require_keys":
            given = {keyword.arg: keyword.value for keyword in node.keywords}
            for name in ("required", "optional"):
                yield node.lineno, given.get(name) if len(node.args) <= 2 else None


def roots(node: ast.expr) -> Iterator[ast.expr]:
    """The names an expression is built from: X.a, X[k].b, (*X.a, *Y.b) -> X, Y."""
    if isinstance(node, ast.Tuple):
        for element in node.elts:
            yield from roots(element)
    elif isinstance(node, ast.Starred | ast.Attribute | ast.Subscript):
        yield from roots(node.value)
    else:
        yield node


def untabled_keys(text: str) -> tuple[int, list[str]]:
    """How many require_keys arguments a module has, and those (as "line N") whose keys
    do not come from config.keys: directly, through a name bound to a table, or a
    parameter typed Section."""
    problems = [f"line {text[:match.start()].count(chr(10)) + 1}: a literal"
                for match in re.finditer(r"\b(required|optional)=\(\s*[\"']", text)]
    tree = ast.parse(text)
    from_keys = {alias.asname or alias.name for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module == "p4tester.config.keys"
                 for alias in node.names}
    bound = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
             for target in node.targets if isinstance(target, ast.Name)
             if all(isinstance(root, ast.Name) and root.id in from_keys
                    for root in roots(node.value))}
    if "Section" in from_keys:
        bound |= {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)
                  if isinstance(node.annotation, ast.Name) and node.annotation.id == "Section"}
    count = 0
    for line, argument in key_arguments(tree):
        count += 1
        if argument is None or not all(isinstance(root, ast.Name) and root.id in from_keys | bound
                                       for root in roots(argument)):
            problems.append(f"line {line}")
    return count, problems


def test_loaders_take_their_keys_from_the_tables() -> None:
    """Every require_keys call in config/ names its keys through the tables of
    config.keys: no key tuple of its own that the reference would not list."""
    total = 0
    for path in sorted(CONFIG.glob("*.py")):
        count, problems = untabled_keys(path.read_text())
        assert problems == [], f"{path.name}: require_keys keys must come from config.keys"
        total += count
    assert total >= 30


@pytest.mark.parametrize("call", [
    'require_keys(d, w, required=("a",), optional=())',
    "require_keys(d, w, required=KNOWN, optional=OTHER)",
    "require_keys(d, w, ('a',), ())",
    "require_keys(d, w, required=TOPOLOGY.required, optional=(*TOPOLOGY.optional, 'x'))",
])
def test_a_key_tuple_of_a_loader_s_own_is_caught(call: str) -> None:
    text = f"from p4tester.config.keys import TOPOLOGY\nOTHER = ('x',)\n{call}\n"
    assert untabled_keys(text)[1] != []
    fine = "from p4tester.config.keys import TOPOLOGY\n" \
           "require_keys(d, w, required=TOPOLOGY.required, optional=TOPOLOGY.optional)\n"
    assert untabled_keys(fine) == (2, [])


@pytest.fixture
def accepted(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """The key sets the loaders' require_keys calls allow while the test runs."""
    calls: list[set[str]] = []

    def recording(data: Mapping[str, Any], where: str, required: Any, optional: Any) -> None:
        required, optional = tuple(required), tuple(optional)
        calls.append(set(required) | set(optional))
        require_keys(data, where, required, optional)

    for module in LOADERS:
        monkeypatch.setattr(module, "require_keys", recording)
    return calls


def shipped(pattern: str) -> list[Path]:
    return sorted(path for path in (REPO / "topologies").glob(pattern) if path.is_file())


def is_topology(path: Path) -> bool:
    data = yaml.safe_load(path.read_text())
    return isinstance(data, dict) and "ports" in data


MININET_INLINE: dict[str, Any] = {
    "name": "inline", "lab": "mininet", "switch": {"target": "bmv2"},
    "ports": {1: {"line_rate": "10Mbps", "peer": "s1:3"}},
    "dut": {"kind": "external"},
    "network": {
        "nodes": {
            "h1": {"kind": "host", "interfaces": {0: {"ip": "10.0.1.1/24",
                                                      "mac": "08:00:00:00:01:11"}},
                   "commands": ["true"]},
            "r1": {"kind": "router", "interfaces": {1: {"ip": "10.0.2.1/24"}}},
            "br": {"kind": "bridge"},
            "s1": {"kind": "bmv2", "p4info": "x.p4info.txt", "bmv2_json": "x.json",
                   "runtime": "r.json", "cli": "c.txt", "grpc_port": 1, "thrift_port": 2,
                   "device_id": 3},
        },
        "links": [{"a": "h1:0", "b": "s1:1", "bw_mbps": 10}, {"a": "r1:1", "b": "br:1"}],
    },
}

HEADERS_PROFILE: dict[str, Any] = {
    "name": "headers", "latency_bins_us": {"log_high_us": 1000},
    "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2, "frame_size": 256,
         "tunnel": {"gtpu": {"teid": 1, "src_ip": "10.0.0.1", "dst_ip": "10.0.0.2", "qfi": 9,
                             "udp_src_port": 5}}},
        {"id": 1, "tx_port": 1, "rx_port": 2, "ipv6": True, "frame_size": 256,
         "tunnel": {"srv6": {"src_ip": "2001:db8::a", "segments": ["2001:db8::b"]}}},
        {"id": 2, "tx_port": 1, "rx_port": 2,
         "vary": {"src_port": {"start": 1, "step": 1, "count": 2},
                  "src_mac": {"start": "02:00:00:00:00:01", "step": 1, "count": 2},
                  "dst_ip": {"random": "10.2.0.0/16", "seed": 7}}},
    ],
}


def test_every_key_the_loaders_accept_is_documented(accepted: list[set[str]]) -> None:
    topologies = [path for path in shipped("**/*.yaml") if is_topology(path)]
    profiles = [path for path in shipped("**/*.yaml") if not is_topology(path)]
    assert len(topologies) >= 30 and len(profiles) >= 10
    for path in topologies:
        load_topology(path)
    topology_from_dict(MININET_INLINE, "inline.yaml")
    topology_keys = set().union(*accepted)
    accepted.clear()
    for path in profiles:
        load_profile(path)
    profile_from_dict(HEADERS_PROFILE, "headers.yaml")
    profile_keys = set().union(*accepted)
    assert topology_keys - documented(keys.TOPOLOGY_FILE) == set()
    assert profile_keys - documented(keys.PROFILE_FILE) == set()
    # Every table require_keys checks was reached (the DUT's settings are the lab's; a
    # tunnel's kind and latency_bins_us's mapping are checked against their tables
    # without require_keys).
    checked = {section.id for section in keys.SECTIONS
               if section.file in (keys.TOPOLOGY_FILE, keys.PROFILE_FILE)
               and not section.id.startswith("topology.dut")
               and section not in (keys.TUNNEL, keys.LATENCY_BINS)}
    reached = {section.id for section in keys.SECTIONS
               if set(section.names) & (topology_keys | profile_keys)}
    assert checked - reached == set()


def test_a_key_outside_the_tables_is_refused() -> None:
    data = {**MININET_INLINE, "colour": "blue"}
    with pytest.raises(Exception, match="unknown key 'colour'"):
        topology_from_dict(data, "t.yaml")


# --- (c) every key of the shipped files is documented ----------------------------------

NAMED_BY_USER = ("nodes", "hosts", "switches", "testers")


def keys_used(data: object, parent: str = "") -> Iterator[str]:
    """Every key of a document, except user names (nodes, hosts, switches, testers) and numbers
    (ports, interfaces, IMIX sizes)."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            if isinstance(key, str) and parent not in NAMED_BY_USER:
                yield key
            yield from keys_used(value, str(key))
    elif isinstance(data, list):
        for item in data:
            yield from keys_used(item, parent)


def test_every_key_of_the_shipped_files_is_documented() -> None:
    missing = []
    for path in shipped("**/*.yaml"):
        file = keys.TOPOLOGY_FILE if is_topology(path) else keys.PROFILE_FILE
        names = documented(file)
        missing += [f"{path.name}: {key}" for key in keys_used(yaml.safe_load(path.read_text()))
                    if not is_documented(key, names)]
    for path in shipped("tutorials/*/topology.json"):
        names = documented(keys.TUTORIALS_FILE)
        missing += [f"{path}: {key}" for key in keys_used(json.loads(path.read_text()))
                    if not is_documented(key, names)]
    for path in shipped("tutorials/*/p4app.json"):
        data = json.loads(path.read_text())
        names = documented(keys.P4APP_FILE)
        # The file's own keys other than p4_src and topology are p4-utils' (not read).
        used = [*(k for k in data if k in names), *keys_used(data["topology"], "topology")]
        missing += [f"{path}: {key}" for key in used if not is_documented(key, names)]
    assert missing == []
