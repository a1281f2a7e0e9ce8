"""Benchmark ratios hold only on a steady baseline (bench.spread): each side printed with
its repetitions and spread, and no ratio when a side swung (issue 41: plain forwarding
measured 11 047 frames/s in one run and 48 110-58 624 in others)."""

from __future__ import annotations

from p4tester.bench.capacity import MEASUREMENT, render
from p4tester.bench.spread import MAX_SPREAD, figures, spread, swung


def test_spread_is_the_largest_over_the_smallest() -> None:
    assert spread([100.0, 120.0, 110.0]) == 0.19999999999999996
    assert spread([0.0, 5.0]) == float("inf")
    assert figures([48_110, 58_624, 11_047]) == (
        "median 48110 (48110, 58624, 11047; spread 431%)")
    assert figures([0.0, 5.0]) == "median 2 (0, 5; spread unbounded)"
    assert MAX_SPREAD == 0.2
    assert swung("forwarding", [100.0, 120.0]) == ""
    assert swung("forwarding", [100.0, 121.0]) == (
        "forwarding swung 21.0% between repetitions, more than 20%")
    assert swung("forwarding", [0.0, 121.0]) == "forwarding measured nothing in a repetition"


def _loopback(pps: tuple[float, ...]) -> dict[int, tuple[float, ...]]:
    return {64: pps, 512: pps, 1518: pps}


def test_the_loopback_against_plain_forwarding_is_loss_free_against_loss_free() -> None:
    loopback = {"before": {64: (1500.0, 1600.0, 1550.0)},
                MEASUREMENT: _loopback((4400.0, 4500.0, 4300.0))}
    lines = render(loopback, (8000.0, 8400.0, 8200.0)).splitlines()
    # The before set-up is measured at the ratios' size only: its other sizes are "-".
    assert lines[2:4] == [
        "  before              1550           -           -",
        "  measurement         4400        4400        4400"]
    assert lines[-2:] == [
        "ratio, 64 B loopback loss-free rate, measurement / before: 2.84 (target >= 2.5); "
        "median 4400 (4400, 4500, 4300; spread 5%) / median 1550 (1500, 1600, 1550; "
        "spread 7%)",
        "ratio, 64 B loopback loss-free rate / plain forwarding loss-free rate, measurement "
        "build: 0.54 (target >= 0.5); median 4400 (4400, 4500, 4300; spread 5%) / median "
        "8200 (8000, 8400, 8200; spread 5%)"]
    assert render(loopback, (13_402.0, 16_130.0, 14_000.0)).splitlines()[-1] == (
        "ratio, 64 B loopback loss-free rate / plain forwarding loss-free rate, measurement "
        "build: not measured (plain forwarding's loss-free rate swung 20.4% between "
        "repetitions, more than 20%); median 4400 (4400, 4500, 4300; spread 5%) / median "
        "14000 (13402, 16130, 14000; spread 20%)")
    # Without the forwarding leg (a bench of the before set-up only), no second ratio.
    assert render(loopback, ()).splitlines()[-1].startswith(
        "ratio, 64 B loopback loss-free rate, measurement / before")
