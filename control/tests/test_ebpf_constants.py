"""The eBPF target's copies of p4src/psa's constants (cells, port kinds, bit positions,
the generator tag) must equal the P4 source, as the other targets' do
(test_dataplane_constants)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p4tester.targets.ebpf import generator_tag
from p4tester.targets.ebpf import tester as ebpf

PSA = Path(__file__).resolve().parents[2] / "p4src" / "psa"
DEFINE = re.compile(r"^#define\s+(\w+)\s+(\d+)\s*$", re.M)
CONST = re.compile(r"^const\s+bit<\d+>\s+(\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+|1 << \d+);", re.M)


def psa_values() -> dict[str, int]:
    values: dict[str, int] = {}
    for path in sorted(PSA.glob("*.p4")):
        text = path.read_text()
        values.update((key, int(raw)) for key, raw in DEFINE.findall(text))
        for key, raw in CONST.findall(text):
            shift = re.fullmatch(r"1 << (\d+)", raw)
            values[key] = 1 << int(shift.group(1)) if shift else int(raw, 0)
    return values


P4 = psa_values()


@pytest.mark.parametrize(("p4_name", "python_value"), [
    ("PORT_CACHE_CELLS", ebpf.PORT_CACHE_CELLS),
    ("PORT_KIND_TESTER", ebpf.PORT_KIND_TESTER),
    ("PORT_KIND_GENERATOR", ebpf.PORT_KIND_GENERATOR),
    ("FRONT_PANEL_PORTS", ebpf.RX_PORT_SLOT_PORTS),
    ("IN_TRIAL_BIT", ebpf._IN_TRIAL),
    ("SEVERAL_PORTS_BIT", ebpf._SEVERAL_PORTS),
    ("LISTED_BIT", ebpf._LISTED),
    ("GENERATOR_TAG_SIGNATURE", generator_tag.GENERATOR_TAG_SIGNATURE),
])
def test_the_ebpf_targets_copy_equals_p4(p4_name: str, python_value: int) -> None:
    assert p4_name in P4, f"{p4_name} is not a plain constant in p4src/psa any more"
    assert python_value == P4[p4_name]


def test_the_running_bit_is_the_one_the_generator_reads() -> None:
    """gen_state's running flag: the generator reads it as state[48:48]."""
    generator = (PSA / "generator.p4").read_text()
    (bit,) = re.findall(r"bool running = state\[(\d+):\1\] == 1;", generator)
    assert 1 << int(bit) == ebpf._RUNNING


def test_the_generator_tag_is_as_long_as_its_header() -> None:
    """generator_tag_h: the fields' bits, in bytes, as the sender packs them."""
    platform = (PSA / "platform.p4").read_text()
    header = re.search(r"header generator_tag_h \{(.*?)\}", platform, re.S)
    assert header is not None
    common = (PSA.parent / "common" / "constants.p4").read_text()
    widths = {name: int(width)
              for width, name in re.findall(r"^typedef bit<(\d+)> (\w+);", common, re.M)}
    bits = 0
    for kind, width in re.findall(r"^\s*(bit<(\d+)>|\w+)\s+\w+;", header.group(1), re.M):
        bits += int(width) if width else widths[kind]
    assert bits // 8 == generator_tag.GENERATOR_TAG_BYTES == 8
