"""The checker's verdicts on the eBPF target: the PTF checker suite's cases
(ptf-tests/checker_test.py), with the same exact figures."""

from __future__ import annotations

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from p4tester.dataplane.constants import (
    IP_VERSION_4,
    IP_VERSION_6,
    RX_KIND_BAD_SIGNATURE,
    RX_KIND_BAD_STREAM,
    RX_KIND_FOREIGN,
    RX_KIND_MISMATCHED,
    RX_KIND_STALE,
    RX_KIND_STREAM,
    RX_KIND_TRUNCATED,
    TESTER_UDP_DST_PORT,
)
from p4tester.dataplane.headers import TesterHeader, epoch_flags
from p4tester.targets.ebpf.pipeline import EbpfPipeline
from p4tester.targets.ebpf.tester import (
    PORT_CACHE_CELLS,
    PORT_KIND_TESTER,
    EbpfTester,
    port_cache_cell,
)

from .checker_helpers import Figures, figures, send_seqs, settle
from .frames import send, stream_frame

PORT_1 = "p4eb1b"  # injecting here: the frame arrives on tester port 1
PORT_2 = "p4eb2b"


def expect(tester: EbpfTester, stream_id: int, rx_port: int = 2, epoch: int = 0,
           ip_version: int = IP_VERSION_4, initial_seq: int = 0) -> None:
    tester.expect_stream(stream_id, run=0, epoch_flags=epoch_flags(epoch), rx_port=rx_port,
                         ip_version=ip_version)
    tester.clear_stream(stream_id, initial_seq)


def kinds_only(tester: EbpfTester, kind: int, count: int) -> None:
    expected = [0] * 8
    expected[kind] = count
    assert tester.rx_kinds() == expected


def test_in_order(tester: EbpfTester) -> None:
    expect(tester, 0)
    send_seqs(tester, PORT_2, 0, list(range(10)))
    assert figures(tester, 0) == Figures(received=10, next_expected=10, lost=0, gap_events=0,
                                         reordered=0, duplicates=0)
    assert tester.stream_counter("rx_stream", 0).bytes == 10 * 60


def test_gap_of_k(tester: EbpfTester) -> None:
    expect(tester, 1)
    send_seqs(tester, PORT_2, 1, [0, 1, 2, 6, 7])
    assert figures(tester, 1) == Figures(received=5, next_expected=8, lost=3, gap_events=1,
                                         reordered=0, duplicates=0)


def test_swap_is_a_gap_then_reordering(tester: EbpfTester) -> None:
    expect(tester, 0)
    send_seqs(tester, PORT_2, 0, [0, 2, 1, 3])
    assert figures(tester, 0) == Figures(received=4, next_expected=4, lost=1, gap_events=1,
                                         reordered=1, duplicates=0)


def test_duplicate(tester: EbpfTester) -> None:
    expect(tester, 0)
    send_seqs(tester, PORT_2, 0, [0, 1, 1, 2])
    assert figures(tester, 0) == Figures(received=4, next_expected=3, lost=0, gap_events=0,
                                         reordered=0, duplicates=1)


def test_sequence_wraps(tester: EbpfTester) -> None:
    expect(tester, 2, initial_seq=0xFFFFFFFE)
    send_seqs(tester, PORT_2, 2, [0xFFFFFFFE, 0xFFFFFFFF, 0, 1])
    assert figures(tester, 2) == Figures(received=4, next_expected=2, lost=0, gap_events=0,
                                         reordered=0, duplicates=0)


def test_foreign_frame_touches_no_stream(tester: EbpfTester) -> None:
    expect(tester, 0)
    foreign = Ether(src="02:00:00:00:00:09", dst="02:00:00:00:00:02") / IP(
        src="192.0.2.9", dst="198.51.100.1") / UDP(sport=1000, dport=2000) / Raw(bytes(26))
    send(PORT_2, [bytes(foreign)])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_FOREIGN, 1)
    assert figures(tester, 0).received == 0
    assert tester.port_counter("rx", 2).packets == 1


def test_truncated_frame(tester: EbpfTester) -> None:
    """A UDP datagram to the tester's port whose payload ends inside the header."""
    cut = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP(
        src="192.0.2.1", dst="198.51.100.1") / UDP(sport=0xC020, dport=TESTER_UDP_DST_PORT,
                                                   chksum=0) / Raw(TesterHeader(0).pack()[:10])
    send(PORT_2, [bytes(cut)])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_TRUNCATED, 1)


def test_bad_signature(tester: EbpfTester) -> None:
    send(PORT_2, [bytes(stream_frame(TesterHeader(stream_id=0, signature=0x1234)))])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_BAD_SIGNATURE, 1)


def test_stream_id_out_of_range(tester: EbpfTester) -> None:
    send(PORT_2, [bytes(stream_frame(TesterHeader(stream_id=64)))])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_BAD_STREAM, 1)


def test_malformed_frames_do_not_disturb_a_stream(tester: EbpfTester) -> None:
    expect(tester, 0)
    stream = [bytes(stream_frame(TesterHeader(stream_id=0, seq=seq))) for seq in range(4)]
    bad = bytes(stream_frame(TesterHeader(stream_id=0, seq=99, signature=0x1234)))
    send(PORT_2, [stream[0], bad, stream[1], bad, stream[2], stream[3]])
    settle(tester, 6)
    assert figures(tester, 0) == Figures(received=4, next_expected=4, lost=0, gap_events=0,
                                         reordered=0, duplicates=0)
    assert tester.rx_kinds()[RX_KIND_BAD_SIGNATURE] == 2


def test_stale_epoch(tester: EbpfTester) -> None:
    """A frame of the stream's previous trial (another epoch) is not the stream's."""
    expect(tester, 0, epoch=3)
    send(PORT_2, [bytes(stream_frame(TesterHeader(stream_id=0, seq=0,
                                                  flags=epoch_flags(2))))])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_STALE, 1)
    assert tester.stream_counter("rx_stale", 0).packets == 1
    assert figures(tester, 0).received == 0


def test_stale_run(tester: EbpfTester) -> None:
    expect(tester, 0)
    send(PORT_2, [bytes(stream_frame(TesterHeader(stream_id=0, seq=0, run=7)))])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_STALE, 1)


def test_stream_in_no_trial(tester: EbpfTester) -> None:
    send(PORT_2, [bytes(stream_frame(TesterHeader(stream_id=3, seq=0)))])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_STALE, 1)
    assert tester.stream_counter("rx_stale", 3).packets == 1


def test_wrong_rx_port_is_mismatched(tester: EbpfTester) -> None:
    expect(tester, 0, rx_port=2)
    send(PORT_1, [bytes(stream_frame(TesterHeader(stream_id=0, seq=0)))])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_MISMATCHED, 1)
    assert tester.stream_counter("rx_mismatched", 0).packets == 1
    assert tester.port_counter("rx", 1).packets == 1


def test_ipv6_look_alike_is_mismatched(tester: EbpfTester) -> None:
    expect(tester, 0, ip_version=IP_VERSION_4)
    send(PORT_2, [bytes(stream_frame(TesterHeader(stream_id=0, seq=0), frame_size=84,
                                     ipv6=True, udp_checksum=None))])
    settle(tester, 1)
    kinds_only(tester, RX_KIND_MISMATCHED, 1)


def test_ipv6_stream_takes_ipv6(tester: EbpfTester) -> None:
    expect(tester, 1, ip_version=IP_VERSION_6)
    send(PORT_2, [bytes(stream_frame(TesterHeader(stream_id=1, seq=seq), frame_size=84,
                                     ipv6=True, udp_checksum=None)) for seq in range(3)])
    settle(tester, 3)
    kinds_only(tester, RX_KIND_STREAM, 3)
    assert figures(tester, 1) == Figures(received=3, next_expected=3, lost=0, gap_events=0,
                                         reordered=0, duplicates=0)


def test_a_port_whose_cache_cell_another_ifindex_holds_is_looked_up(
        tester: EbpfTester, pipeline: EbpfPipeline) -> None:
    """Two ifindexes that share a cell of the ingress port cache: the second port's
    frames go by the `ports` table, with the same figures."""
    ifindex = pipeline.ifindex("p4eb2a")
    cache, slot = "TesterIngress_port_cache", ifindex % PORT_CACHE_CELLS
    own = pipeline.maps.read_register(cache, slot)
    assert own == port_cache_cell(ifindex, PORT_KIND_TESTER, 2)  # the fixture cached it
    other = port_cache_cell(ifindex + PORT_CACHE_CELLS, PORT_KIND_TESTER, 7)
    pipeline.maps.write_register(cache, slot, other)
    try:
        tester.set_tester_port(ifindex, 2)
        assert pipeline.maps.read_register(cache, slot) == other  # not taken back
        expect(tester, 0)
        send_seqs(tester, PORT_2, 0, list(range(3)))
        assert figures(tester, 0) == Figures(received=3, next_expected=3, lost=0,
                                             gap_events=0, reordered=0, duplicates=0)
        assert tester.port_counter("rx", 2).packets == 3
        assert tester.port_counter("rx", 7).packets == 0
    finally:
        pipeline.maps.write_register(cache, slot, own)
