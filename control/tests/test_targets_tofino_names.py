"""names.py against p4src/tna: every BfRt object name resolves through the program's
control instances to a declaration, and the sizes the driver assumes are the program's.
(bf-p4c names objects by their control-instance path; this does the same walk.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_dataplane_constants import p4_values

from p4tester.targets.tofino import hardware, names

P4SRC = Path(__file__).resolve().parents[2] / "p4src"
SOURCE = "\n".join(p.read_text() for p in sorted((P4SRC / "tna").glob("*.p4"))
                   + sorted((P4SRC / "common").glob("*.p4")))


def _matching(text: str, start: int, opening: str, closing: str) -> int:
    """Index just past the bracket that closes the one at `start`."""
    depth = 0
    for index in range(start, len(text)):
        depth += {opening: 1, closing: -1}.get(text[index], 0)
        if depth == 0:
            return index + 1
    raise AssertionError(f"unbalanced {opening}{closing} from {start}")


def control_body(name: str) -> str:
    match = re.search(rf"\bcontrol\s+{name}\s*\(", SOURCE)
    assert match, f"no control {name} in p4src"
    params_end = _matching(SOURCE, match.end() - 1, "(", ")")
    body_start = SOURCE.index("{", params_end)
    return SOURCE[body_start:_matching(SOURCE, body_start, "{", "}")]


def resolve(path: str) -> tuple[str, str]:
    """'TesterIngress.checker.rx_lost' -> (body of the control that declares it, 'rx_lost')."""
    control, *instances, leaf = path.split(".")
    body = control_body(control)
    for instance in instances:
        declared = re.search(rf"\b(\w+)\(\)\s+{instance}\s*;", body)
        assert declared, f"{path}: no instance {instance!r} in control {control}"
        control = declared.group(1)
        body = control_body(control)
    return body, leaf


def short(name: str) -> str:
    return name.removeprefix("pipe.")


REGISTERS = [names.GENERATED, names.TX_NEXT_SEQ, names.RX_NEXT_EXPECTED, names.RX_LAST_SEQ,
             names.RX_SEEN, names.RX_LOST, names.LATENCY_MIN, names.LATENCY_MAX,
             names.LAST_LATENCY, names.LATENCY_SUM, names.JITTER_SUM]
COUNTERS = [names.RX_KIND, *names.PER_STREAM_COUNTERS, *names.HISTOGRAM_COUNTERS]


@pytest.mark.parametrize("register", REGISTERS)
def test_register_is_declared(register: str) -> None:
    body, leaf = resolve(short(register))
    assert re.search(rf"\bRegister<[^;]*\)\s+{leaf}\s*;", body), register


@pytest.mark.parametrize("counter", COUNTERS)
def test_counter_is_declared(counter: str) -> None:
    body, leaf = resolve(short(counter))
    assert re.search(rf"\bCounter<[^;]*\)\s+{leaf}\s*;", body), counter


@pytest.mark.parametrize(("table", "keys"), [
    (names.GEN_APPS, [names.GEN_APPS_KEY]),
    (names.FOREIGN_TRAFFIC, [names.FOREIGN_PORT_KEY]),
    (names.LATENCY_BINS, [names.BIN_STREAM_KEY, names.LATENCY_KEY]),
    (names.QDEPTH_BINS, [names.BIN_STREAM_KEY, names.QDEPTH_KEY]),
])
def test_table_and_key_names(table: str, keys: list[str]) -> None:
    body, leaf = resolve(short(table))
    declared = re.search(rf"\btable\s+{leaf}\s*\{{(.*?)\n    \}}", body, re.S)
    assert declared, table
    assert re.findall(r'@name\("(\w+)"\)', declared.group(1)) == keys


@pytest.mark.parametrize(("action", "params"), [
    (names.GEN_RUN, [names.GEN_RUN_GROUP, names.GEN_RUN_BUDGET]),
    (names.GEN_STOPPED, []),
    (names.SET_LATENCY_BIN, [names.BIN_PARAM]),
    (names.SET_QDEPTH_BIN, [names.BIN_PARAM]),
    (names.DROP_FOREIGN, []),
    (names.PUNT_FOREIGN, []),
    (names.FORWARD_FOREIGN, [names.FORWARD_PORT_PARAM]),
])
def test_action_and_parameter_names(action: str, params: list[str]) -> None:
    body, leaf = resolve(action)
    declared = re.search(rf"\baction\s+{leaf}\s*\(([^)]*)\)", body)
    assert declared, action
    assert [p.split()[-1] for p in declared.group(1).split(",") if p.strip()] == params


def test_sum_registers_have_lo_and_hi() -> None:
    struct = re.search(r"struct\s+sum64_t\s*\{([^}]*)\}", SOURCE)
    assert struct
    assert re.findall(r"bit<32>\s+(\w+);", struct.group(1)) == [names.SUM_LO, names.SUM_HI]


def test_sizes_are_the_programs() -> None:
    values = p4_values("common/constants.p4", "tna/platform.p4", tofino=True)
    assert values["MAX_STREAMS"] == names.MAX_STREAMS
    assert values["PKTGEN_APPS"] == names.PKTGEN_APPS
    assert values["BIN_TABLE_SIZE"] == names.BIN_TABLE_SIZE
    assert values["MCAST_GROUP_BASE"] == names.MCAST_GROUP_BASE
    assert values["HIST_CELLS_LOG2"] == names.HIST_CELLS_LOG2
    assert values["PKTGEN_PORT_IN_PIPE"] == hardware.PKTGEN_PORT_IN_PIPE


def test_register_field_names() -> None:
    assert names.register_field(names.RX_LOST) == "TesterIngress.checker.rx_lost.f1"
    assert names.register_field(names.LATENCY_SUM, names.SUM_HI) == (
        "TesterIngress.checker.latency_sum.cells.hi")
    with pytest.raises(ValueError, match=r"must be a full name starting with 'pipe.'"):
        names.register_field("TesterIngress.checker.rx_lost")
