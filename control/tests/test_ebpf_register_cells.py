"""The 64-bit register cells the eBPF program reads per frame instead of tables
(p4src/psa: tester.p4 port_cache, rx_expectation.p4, generator.p4 gen_state)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p4tester.targets.ebpf.tester import (
    PORT_KIND_GENERATOR,
    PORT_KIND_TESTER,
    expectation_cell,
    generator_state,
    port_cache_cell,
)


def test_port_cache_cell() -> None:
    assert port_cache_cell(0x1234, PORT_KIND_TESTER, 3) == 0x0000_1234_0001_0003
    assert port_cache_cell(7, PORT_KIND_GENERATOR, 0) == 0x0000_0007_0002_0000


def test_expectation_cell() -> None:
    # run 0xAB, epoch flags 0x0C, RX port 2, IPv6, in a trial (bit 40).
    assert expectation_cell(0xAB, 0x0C, 2, 6) == 0x0000_0106_0002_0CAB


def test_generator_state() -> None:
    # end seq 0xFFFFFFFF (a continuous flow), run 9, epoch flags 2, running (bit 48).
    assert generator_state(0xFFFF_FFFF, 9, 2) == 0x0001_0209_FFFF_FFFF


@pytest.mark.parametrize(("call", "message"), [
    (lambda: expectation_cell(256, 0, 1, 4), "run value 256 does not fit 8 bits"),
    (lambda: expectation_cell(0, 0, 1 << 16, 4), "rx port 65536 does not fit 16 bits"),
    (lambda: generator_state(1 << 32, 0, 0), "end seq 4294967296 does not fit 32 bits"),
    (lambda: port_cache_cell(1, PORT_KIND_TESTER, -1), "port number -1 does not fit 16 bits"),
])
def test_values_that_do_not_fit_are_refused(call: Callable[[], int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
