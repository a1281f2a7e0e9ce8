"""The program's histogram bin search (p4src/psa/histogram_bins.p4) on DUT queue
depths, which a frame carries exactly (latencies depend on the clock): every
edge of a full set of 31 bins, values below the first edge and from the last edge
on, and a last bin that ends at the largest 16-bit value."""

from __future__ import annotations

from p4tester.dataplane.constants import (
    HIST_CELLS_PER_STREAM,
    IP_VERSION_4,
    TESTER_FLAG_DUT_STAMPED,
)
from p4tester.dataplane.headers import TesterHeader, epoch_flags
from p4tester.targets.ebpf.tester import EbpfTester

from .checker_helpers import settle
from .frames import send, stream_frame

OUTSIDE = HIST_CELLS_PER_STREAM - 1


def _send_depths(tester: EbpfTester, depths: list[int]) -> list[int]:
    """One DUT-stamped frame of stream 0 per depth; stream 0's qdepth histogram."""
    tester.expect_stream(0, run=0, epoch_flags=epoch_flags(0), rx_port=2,
                         ip_version=IP_VERSION_4)
    tester.clear_stream(0)
    send("p4eb2b", [bytes(stream_frame(TesterHeader(
        stream_id=0, seq=seq, flags=TESTER_FLAG_DUT_STAMPED, dut_qdepth=depth)))
        for seq, depth in enumerate(depths)])
    settle(tester, len(depths))
    return tester.histogram("qdepth_hist", 0)


def test_every_edge_of_31_bins(tester: EbpfTester) -> None:
    # Edges 0, 2, ..., 62: bin i is [2i, 2i + 1]; 62 and 63 are past the last edge.
    tester.set_qdepth_bins(list(range(0, 64, 2)))
    histogram = _send_depths(tester, list(range(64)))
    assert histogram == [2] * 31 + [2]


def test_values_below_the_first_edge_and_a_last_bin_to_the_top(tester: EbpfTester) -> None:
    tester.set_qdepth_bins([10, 20, 30, 1 << 16])
    histogram = _send_depths(tester, [0, 9, 10, 19, 20, 29, 30, 65535])
    expected = [0] * HIST_CELLS_PER_STREAM
    expected[0] = expected[1] = expected[2] = 2
    expected[OUTSIDE] = 2
    assert histogram == expected


def test_new_edges_replace_the_old_ones(tester: EbpfTester) -> None:
    tester.set_qdepth_bins(list(range(0, 64, 2)))
    tester.set_qdepth_bins([0, 100])
    histogram = _send_depths(tester, [0, 2, 62, 99, 100])
    expected = [0] * HIST_CELLS_PER_STREAM
    expected[0] = 4
    expected[OUTSIDE] = 1
    assert histogram == expected
