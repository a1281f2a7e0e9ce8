"""The Tofino budget tables: exact arithmetic of line rates, per-pipe loads with the
generator spread over the pipes and replicated by the TM, fractions and margins."""

from __future__ import annotations

import pytest

from p4tester.targets.tofino.limits import (
    FRAME_SIZES,
    TOFINO1_2PIPE_32X100G,
    TOFINO1_32X100G,
    TOFINO2_32X400G,
    Chip,
    limits_markdown,
    limits_table,
    pipe_limit,
)

BUDGET = 1.25e9  # hardware.PIPE_PACKETS_PER_SECOND
LINE_64 = 100e9 / (84 * 8)  # 148.81 Mpps


def test_64_bytes_at_line_rate_fit_32_ports_on_4_pipes() -> None:
    row = pipe_limit(64)
    assert row.line_rate_pps == LINE_64
    assert row.rx_pps == 8 * LINE_64  # 1190.48 Mpps
    assert row.generator_pps == LINE_64 / 4  # a quarter of the generated packets: 37.2 Mpps
    assert row.ingress_pps == 8 * LINE_64 + LINE_64 / 4  # 1227.68 Mpps
    assert row.egress_pps == 8 * LINE_64
    assert row.pktgen_bps == LINE_64 / 4 * 672  # 25 Gbit/s
    assert row.fits
    assert row.max_line_rate_fraction == 1.0
    assert row.margin == BUDGET / (8.25 * LINE_64) - 1
    assert row.margin == pytest.approx(0.01818, abs=1e-5)


def test_every_frame_size_fits_4_pipes() -> None:
    rows = limits_table()
    assert [r.frame_size for r in rows] == list(FRAME_SIZES)
    assert all(r.fits for r in rows)
    # From 512 B on the generator port binds: 25 of 100 Gbit/s, 300 % headroom.
    assert [round(100 * r.margin, 1) for r in rows] == [1.8, 79.4, 234.5, 300.0, 300.0, 300.0,
                                                        300.0, 300.0]


def test_2_pipes_of_16_ports_fit_from_256_bytes() -> None:
    rows = {r.frame_size: r for r in limits_table(TOFINO1_2PIPE_32X100G)}
    assert rows[64].ingress_pps == 16 * LINE_64 + LINE_64 / 2
    assert rows[64].max_line_rate_fraction == BUDGET / (16.5 * LINE_64)
    assert rows[64].margin == pytest.approx(0.0, abs=1e-12)
    assert rows[128].max_line_rate_fraction == pytest.approx(0.8969, abs=1e-4)
    assert rows[256].fits and not rows[128].fits


def test_tofino2_400g_fits_from_256_bytes_at_the_assumed_rate() -> None:
    rows = {r.frame_size: r for r in limits_table(TOFINO2_32X400G)}
    line = 400e9 / (84 * 8)
    assert rows[64].ingress_pps == 8 * line + line / 4
    assert rows[64].max_line_rate_fraction == pytest.approx(1.5e9 / (8.25 * line), rel=1e-12)
    assert [size for size, r in rows.items() if r.fits] == [256, 512, 1024, 1280, 1518, 9216]
    assert rows[256].margin == pytest.approx(1.5e9 / (8.25 * 400e9 / (276 * 8)) - 1)


def test_a_slow_generator_or_replication_binds() -> None:
    slow_pktgen = Chip("slow generator", 4, 8, 100e9, BUDGET, 20e9, BUDGET)
    row = pipe_limit(64, slow_pktgen)
    assert row.max_line_rate_fraction == 20e9 / (LINE_64 / 4 * 672)  # 0.8
    slow_tm = Chip("slow replication", 4, 8, 100e9, BUDGET, 100e9, 1e9)
    assert pipe_limit(64, slow_tm).max_line_rate_fraction == 1e9 / (8 * LINE_64)


def test_markdown_rows() -> None:
    text = limits_markdown(limits_table(frame_sizes=(64, 1518)))
    assert text.splitlines()[2:] == [
        "| 64 | 148.810 | 1227.7 = 1190.5 + 37.2 | 1190.5 | 1250 | 25.0 | yes | 100.0 | 1.8 % |",
        "| 1518 | 8.127 | 67.1 = 65.0 + 2.0 | 65.0 | 1250 | 25.0 | yes | 100.0 | 300.0 % |",
    ]


def test_bad_chips() -> None:
    with pytest.raises(ValueError, match=r"x: pipes and ports per pipe must be at least 1"):
        Chip("x", 4, 0, 100e9, BUDGET, 100e9, BUDGET)
    with pytest.raises(ValueError, match=r"x: rates must be positive"):
        Chip("x", 4, 8, 100e9, 0, 100e9, BUDGET)
    assert TOFINO1_32X100G.pipes * TOFINO1_32X100G.ports_per_pipe == 32
