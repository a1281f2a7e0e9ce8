"""The controller's mirror of the P4 constants must equal the P4 sources."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p4tester.dataplane import constants

P4SRC = Path(__file__).resolve().parents[2] / "p4src"
CONST = re.compile(r"^const\s+\w+(?:<\d+>)?\s+(\w+)\s*=\s*([^;]+);", re.M)
DEFINE = re.compile(r"^#define\s+(\w+)\s+(\d+)\s*$", re.M)
# The one target switch of constants.p4: `#ifdef __TARGET_TOFINO__ ... #else ... #endif`.
TARGET_SWITCH = re.compile(r"^#ifdef __TARGET_TOFINO__\n(.*?)^#else\n(.*?)^#endif\n", re.M | re.S)


def for_target(text: str, tofino: bool) -> str:
    """The text as the preprocessor leaves it for one target."""
    return TARGET_SWITCH.sub(lambda m: m.group(1) if tofino else m.group(2), text)


def p4_values(*files: str, tofino: bool = False) -> dict[str, int]:
    values: dict[str, int] = {}
    for name in files:
        text = for_target((P4SRC / name).read_text(), tofino)
        for key, raw in DEFINE.findall(text):
            values[key] = int(raw)
        for key, raw in CONST.findall(text):
            expr = raw.strip()
            if re.fullmatch(r"0x[0-9a-fA-F]+|\d+", expr):
                values[key] = int(expr, 0)
    return values


P4 = p4_values("common/constants.p4", "v1model/platform.p4")

MIRRORED = [
    "MAX_STREAMS", "HIST_CELLS_LOG2", "HIST_CELLS_PER_STREAM", "HIST_OUTSIDE_BIN",
    "TESTER_UDP_DST_PORT", "TESTER_SIGNATURE", "TESTER_FLAG_DUT_STAMPED", "TESTER_FLAG_EPOCH_MASK",
    "CTRL_OP_SEED", "CTRL_OP_CLEAR", "CTRL_OP_READ", "PUNT_REASON_FOREIGN",
    "RX_KIND_STREAM", "RX_KIND_FOREIGN", "RX_KIND_TRUNCATED", "RX_KIND_BAD_SIGNATURE",
    "RX_KIND_BAD_STREAM", "RX_KIND_STALE", "RX_KIND_MISMATCHED", "RX_KIND_COUNT",
    "IP_VERSION_4", "IP_VERSION_6", "MCAST_GROUP_BASE", "REPLICA_TX", "REPLICA_TOKEN",
    "MAX_FRAMES_PER_PASS",
    "CPU_PORT", "PACER_PORT_BASE", "REFERENCE_LOOP_PORT", "CUT_BITS", "CUT_PORTS",
]


@pytest.mark.parametrize("name", MIRRORED)
def test_python_constant_equals_p4(name: str) -> None:
    assert name in P4, f"{name} is not a plain constant in p4src any more"
    assert getattr(constants, name) == P4[name]


def test_tester_header_bytes_match_p4() -> None:
    assert P4["TESTER_HEADER_BYTES"] == constants.TESTER_HEADER_BYTES == 18


def test_histogram_cells_total_fits_every_stream() -> None:
    text = (P4SRC / "common/constants.p4").read_text()
    assert "#define HIST_CELLS_TOTAL (MAX_STREAMS * HIST_CELLS_PER_STREAM)\n" in text
    assert P4["HIST_CELLS_PER_STREAM"] == 1 << P4["HIST_CELLS_LOG2"]


def test_stream_count_per_target() -> None:
    assert P4["MAX_STREAMS"] == 64
    assert p4_values("common/constants.p4", tofino=True)["MAX_STREAMS"] == 1024


def test_reference_loop_port_follows_the_last_pacer_port() -> None:
    assert P4["REFERENCE_LOOP_PORT"] == P4["PACER_PORT_BASE"] + P4["MAX_STREAMS"]
    assert P4["REFERENCE_LOOP_PORT"] < P4["CPU_PORT"]


def test_epochs_fill_the_epoch_mask() -> None:
    assert P4["TESTER_FLAG_EPOCH_MASK"] == (constants.EPOCHS - 1) << constants.EPOCH_SHIFT


def test_epoch_takes_every_flag_bit_but_the_dut_stamp() -> None:
    assert P4["TESTER_FLAG_EPOCH_MASK"] | P4["TESTER_FLAG_DUT_STAMPED"] == 0xFF
    assert P4["TESTER_FLAG_EPOCH_MASK"] & P4["TESTER_FLAG_DUT_STAMPED"] == 0
    assert constants.EPOCHS == 128
