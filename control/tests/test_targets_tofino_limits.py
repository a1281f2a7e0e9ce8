"""The Tofino budget table: exact arithmetic of line rates, pipe loads and fractions."""

from __future__ import annotations

import pytest

from p4tester.targets.tofino.limits import (
    FRAME_SIZES,
    limits_markdown,
    limits_table,
    pipe_limit,
)

BUDGET = 1.25e9  # hardware.PIPE_PACKETS_PER_SECOND


def test_64_bytes_on_8_ports_overflows_the_generating_pipe() -> None:
    row = pipe_limit(64)
    line = 100e9 / (84 * 8)
    assert row.line_rate_pps == line
    assert row.egress_pps == 8 * line  # 1190.48 Mpps: fits
    assert row.ingress_pps == 9 * line  # + the generator's packets: 1339.29 Mpps
    assert row.budget_pps == BUDGET
    assert not row.fits
    assert row.max_line_rate_fraction == BUDGET / (9 * line)
    assert row.max_line_rate_fraction == pytest.approx(0.9333, abs=1e-4)


def test_128_bytes_and_up_fit_8_ports() -> None:
    rows = limits_table()
    assert [r.frame_size for r in rows] == list(FRAME_SIZES)
    assert [r.fits for r in rows] == [False] + [True] * 7
    assert all(r.max_line_rate_fraction == 1.0 for r in rows[1:])
    assert rows[1].ingress_pps == pytest.approx(9 * 100e9 / (148 * 8), rel=1e-15)


def test_16_ports_per_pipe_fit_from_256_bytes() -> None:
    rows = {r.frame_size: r for r in limits_table(ports_per_pipe=16)}
    assert rows[64].max_line_rate_fraction == BUDGET / (17 * 100e9 / 672)
    assert rows[128].max_line_rate_fraction == pytest.approx(0.8706, abs=1e-4)
    assert rows[256].fits and not rows[128].fits


def test_markdown_rows() -> None:
    text = limits_markdown(limits_table(frame_sizes=(64, 1518)))
    assert text.splitlines()[2:] == [
        "| 64 | 148.810 | 1339.3 | 1190.5 | 1250 | no | 93.3 |",
        "| 1518 | 8.127 | 73.1 | 65.0 | 1250 | yes | 100.0 |",
    ]


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match=r"ports per pipe must be at least 1"):
        pipe_limit(64, ports_per_pipe=0)
    with pytest.raises(ValueError, match=r"pipe budget"):
        pipe_limit(64, budget_pps=0)
