"""Where each field of a map's key and value lies, as the compiled program has it.

p4c-ebpf turns every table, register and counter into a BPF map whose key and
value are C structs; the object's BTF (type information the kernel also checks)
gives their layouts, and the generated C gives each action's number. Read once
when the program is loaded, so the driver never assumes a layout by hand."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class LayoutError(RuntimeError):
    """The compiled program does not have the map, struct or action asked for."""


@dataclass(frozen=True, slots=True)
class Field:
    offset: int  # bytes from the start of the struct
    size: int  # bytes


@dataclass(frozen=True, slots=True)
class StructLayout:
    name: str
    size: int
    fields: dict[str, Field]
    # For a union member (an action's parameters): its own fields, by member name.
    members: dict[str, StructLayout]

    def field(self, name: str) -> Field:
        try:
            return self.fields[name]
        except KeyError:
            raise LayoutError(f"struct {self.name} has no field {name!r} "
                              f"(it has {', '.join(self.fields)})") from None


class ProgramLayout:
    """Struct layouts (from BTF) and action numbers (from the generated C)."""

    def __init__(self, btf_types: list[dict[str, Any]], c_source: str) -> None:
        self._types = {int(t["id"]): t for t in btf_types}
        self._by_name: dict[str, dict[str, Any]] = {}
        for btf_type in btf_types:
            if btf_type.get("kind") in ("STRUCT", "UNION") and btf_type.get("name"):
                self._by_name.setdefault(str(btf_type["name"]), btf_type)
        self._actions = {name: int(number) for name, number in
                         re.findall(r"^#define (\w+_ACT_\w+) (\d+)$", c_source, re.MULTILINE)}
        self._inner_sizes = {name: int(size) for name, size in re.findall(
            r"^REGISTER_TABLE_INNER\((\w+), [^,]+, [^,]+, [^,]+, (\d+),", c_source, re.MULTILINE)}

    @classmethod
    def read(cls, object_file: Path, c_source: Path) -> ProgramLayout:
        dump = subprocess.run(["bpftool", "-j", "btf", "dump", "file", str(object_file)],
                              capture_output=True, text=True, check=False)
        if dump.returncode != 0:
            raise LayoutError(f"bpftool could not read the BTF of {object_file}: "
                              f"{dump.stderr.strip()} (is bpftool installed? make setup)")
        types = json.loads(dump.stdout)["types"]
        return cls(types, c_source.read_text())

    def struct(self, name: str) -> StructLayout:
        btf_type = self._by_name.get(name)
        if btf_type is None:
            raise LayoutError(f"the program has no struct {name}: was it built from "
                              "p4src/psa/tester.p4 by scripts/p4-build-ebpf.sh?")
        return self._layout(btf_type)

    def action_number(self, table: str, action: str) -> int:
        """The number p4c-ebpf gave `action` (its control-qualified name) in `table`."""
        key = f"{table}_ACT_{action}".upper()
        if key not in self._actions:
            raise LayoutError(f"table {table} has no action {action}")
        return self._actions[key]

    def inner_map_entries(self, name: str) -> int:
        if name not in self._inner_sizes:
            raise LayoutError(f"the program declares no inner map {name}")
        return self._inner_sizes[name]

    def _layout(self, btf_type: dict[str, Any]) -> StructLayout:
        fields: dict[str, Field] = {}
        members: dict[str, StructLayout] = {}
        for member in btf_type.get("members", []):
            name = str(member["name"])
            member_type = self._resolve(int(member["type_id"]))
            size = self._size(member_type)
            fields[name] = Field(int(member["bits_offset"]) // 8, size)
            if member_type.get("kind") in ("STRUCT", "UNION"):
                members[name] = self._layout(member_type)
        return StructLayout(str(btf_type.get("name") or ""), int(btf_type["size"]),
                            fields, members)

    def _resolve(self, type_id: int) -> dict[str, Any]:
        btf_type = self._types[type_id]
        while btf_type.get("kind") in ("TYPEDEF", "VOLATILE", "CONST"):
            btf_type = self._types[int(btf_type["type_id"])]
        return btf_type

    def _size(self, btf_type: dict[str, Any]) -> int:
        if btf_type.get("kind") == "ARRAY":
            element = self._resolve(int(btf_type["type_id"]))
            return self._size(element) * int(btf_type["nr_elems"])
        return int(btf_type["size"])
