"""Map layouts from BTF and action numbers from p4c-ebpf's C: what the eBPF driver
writes is where the compiled program reads it."""

from __future__ import annotations

from typing import Any

import pytest

from p4tester.targets.ebpf.layout import LayoutError, ProgramLayout

# A table value as p4c-ebpf declares it: struct { u32 action; union { struct {} ...;
# struct { u16 number; } TesterIngress_tester_port; } u; } (BTF of the compiled object).
BTF: list[dict[str, Any]] = [
    {"id": 1, "kind": "INT", "name": "unsigned int", "size": 4},
    {"id": 2, "kind": "TYPEDEF", "name": "u16", "type_id": 3},
    {"id": 3, "kind": "INT", "name": "unsigned short", "size": 2},
    {"id": 4, "kind": "STRUCT", "name": "TesterIngress_ports_value", "size": 8,
     "members": [{"name": "action", "type_id": 1, "bits_offset": 0},
                 {"name": "u", "type_id": 5, "bits_offset": 32}]},
    {"id": 5, "kind": "UNION", "name": "(anon)", "size": 2,
     "members": [{"name": "_NoAction", "type_id": 6, "bits_offset": 0},
                 {"name": "TesterIngress_tester_port", "type_id": 7, "bits_offset": 0}]},
    {"id": 6, "kind": "STRUCT", "name": "(anon)", "size": 0, "members": []},
    {"id": 7, "kind": "STRUCT", "name": "(anon)", "size": 2,
     "members": [{"name": "number", "type_id": 2, "bits_offset": 0}]},
    {"id": 8, "kind": "ARRAY", "name": "(anon)", "type_id": 9, "nr_elems": 16},
    {"id": 9, "kind": "INT", "name": "u8", "size": 1},
    {"id": 10, "kind": "STRUCT", "name": "nd_reply_key", "size": 20,
     "members": [{"name": "field0", "type_id": 2, "bits_offset": 0},
                 {"name": "field1", "type_id": 8, "bits_offset": 32}]},
]
C_SOURCE = """
#define TESTERINGRESS_PORTS_ACT_TESTERINGRESS_TESTER_PORT 1
#define TESTERINGRESS_PORTS_ACT_TESTERINGRESS_GENERATOR_PORT 2
REGISTER_TABLE_INNER(multicast_grp_tbl_inner, BPF_MAP_TYPE_HASH, elem_t, struct element, 64, 2, 2)
"""


def test_struct_fields_and_action_parameters() -> None:
    layout = ProgramLayout(BTF, C_SOURCE)
    value = layout.struct("TesterIngress_ports_value")
    assert value.size == 8
    assert value.field("action").offset == 0 and value.field("action").size == 4
    assert value.field("u").offset == 4
    number = value.members["u"].members["TesterIngress_tester_port"].field("number")
    assert (number.offset, number.size) == (0, 2)


def test_arrays_are_byte_fields() -> None:
    key = ProgramLayout(BTF, C_SOURCE).struct("nd_reply_key")
    assert (key.field("field1").offset, key.field("field1").size) == (4, 16)


def test_action_numbers_and_inner_map_sizes_come_from_the_c() -> None:
    layout = ProgramLayout(BTF, C_SOURCE)
    assert layout.action_number("TesterIngress_ports", "TesterIngress_generator_port") == 2
    assert layout.inner_map_entries("multicast_grp_tbl_inner") == 64


def test_unknown_names_say_what_is_missing() -> None:
    layout = ProgramLayout(BTF, C_SOURCE)
    with pytest.raises(LayoutError, match="no struct TesterEgress_x_value"):
        layout.struct("TesterEgress_x_value")
    with pytest.raises(LayoutError, match="has no action TesterIngress_other_port"):
        layout.action_number("TesterIngress_ports", "TesterIngress_other_port")
    with pytest.raises(LayoutError, match="has no field 'port'"):
        layout.struct("TesterIngress_ports_value").field("port")
