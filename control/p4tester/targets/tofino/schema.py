"""The tester program's BfRt schema, as bf-p4c writes it (bfrt.json).

The committed copies, p4src/build/tna/<target>.bfrt.json, are what the driver's names
(names.py) are tested against and what the fake switch of the driver tests is built
from; scripts/p4-build-tna.sh fails when they differ from a fresh compile
(`python -m p4tester.targets.tofino.schema same FRESH COMMITTED`).
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from p4tester.shipped import program_file

# p4src/build/tna, as p4tester ships it (p4tester.shipped).
COMMITTED_DIR: Final = program_file("tna")
TARGETS: Final = ("tofino", "tofino2")
# Top-level fields that would change from one compile to the next without the program
# changing. bf-p4c 9.13 writes none of them into bfrt.json; they are ignored if it does.
VOLATILE_FIELDS: Final = frozenset({"build_date", "run_id", "compiler_version", "program_name"})
# The snapshot (debug capture) tables: bf-p4c 9.13.4 numbers them differently from one
# compile of the same program to the next, and the driver uses none of them.
VOLATILE_TABLE_TYPE_PREFIX: Final = "Snapshot"


class SchemaError(KeyError):
    """A name the driver uses is not in the schema."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class Field:
    """A key field, action parameter or data field; width None = not a bit field."""

    name: str
    width: int | None
    match_type: str | None = None  # key fields only: Exact, Ternary, ...


@dataclass(frozen=True, slots=True)
class Action:
    name: str
    params: tuple[Field, ...]


_Named = TypeVar("_Named", Field, Action)


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    table_type: str  # MatchAction_Direct, Register, Counter, ...
    size: int
    keys: tuple[Field, ...]
    actions: tuple[Action, ...]
    data: tuple[Field, ...]  # data fields of entries without an action

    def key(self, name: str) -> Field:
        return _named(self.keys, name, f"table {self.name!r} has no key field")

    def action(self, name: str) -> Action:
        return _named(self.actions, name, f"table {self.name!r} has no action")

    def data_field(self, name: str) -> Field:
        return _named(self.data, name, f"table {self.name!r} has no data field")


@dataclass(frozen=True, slots=True)
class Schema:
    tables: Mapping[str, Table]

    def table(self, name: str) -> Table:
        if name not in self.tables:
            close = difflib.get_close_matches(name, list(self.tables), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise SchemaError(f"no table named {name!r}{hint}")
        return self.tables[name]


def _named(items: Sequence[_Named], name: str, what: str) -> _Named:
    for item in items:
        if item.name == name:
            return item
    close = difflib.get_close_matches(name, [i.name for i in items], n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise SchemaError(f"{what} {name!r}{hint}")


def _width(field: Mapping[str, Any]) -> int | None:
    width = field.get("type", {}).get("width")
    return int(width) if width is not None else None


def _data_field(entry: Mapping[str, Any]) -> Field:
    single = entry.get("singleton", entry)
    return Field(str(single["name"]), _width(single))


def parse_schema(document: Mapping[str, Any]) -> Schema:
    tables = {}
    for raw in document.get("tables", []):
        table = Table(
            name=str(raw["name"]),
            table_type=str(raw["table_type"]),
            size=int(raw.get("size", 0)),
            keys=tuple(Field(str(k["name"]), _width(k), str(k["match_type"]))
                       for k in raw.get("key", [])),
            actions=tuple(Action(str(a["name"]), tuple(_data_field(p) for p in a.get("data", [])))
                          for a in raw.get("action_specs", [])),
            data=tuple(_data_field(d) for d in raw.get("data", [])),
        )
        tables[table.name] = table
    return Schema(tables)


def committed_path(target: str = "tofino") -> Path:
    if target not in TARGETS:
        raise ValueError(f"no Tofino target {target!r}; the targets are {list(TARGETS)}")
    return COMMITTED_DIR / f"{target}.bfrt.json"


def load_schema(path: Path | None = None) -> Schema:
    """A bfrt.json; by default the committed Tofino 1 schema."""
    return parse_schema(json.loads((path or committed_path()).read_text()))


def normalized(document: Mapping[str, Any]) -> dict[str, Any]:
    """The document without what changes between compiles of the same program."""
    kept = {k: v for k, v in document.items() if k not in VOLATILE_FIELDS}
    kept["tables"] = [t for t in document.get("tables", [])
                      if not str(t.get("table_type", "")).startswith(VOLATILE_TABLE_TYPE_PREFIX)]
    return kept


def same_schema(fresh: Path, committed: Path) -> bool:
    """Whether two bfrt.json files describe the same objects (volatile fields aside)."""
    if not committed.is_file():
        return False
    return normalized(json.loads(fresh.read_text())) == normalized(
        json.loads(committed.read_text()))


def main(argv: Sequence[str]) -> int:
    if len(argv) != 3 or argv[0] != "same":
        print("usage: python -m p4tester.targets.tofino.schema same FRESH COMMITTED",
              file=sys.stderr)
        return 2
    return 0 if same_schema(Path(argv[1]), Path(argv[2])) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
