"""The reference stream of a latency trial (issue 21.7): which stream it is, what it
sends, and how its figures mark a trial (results.reference, tester.reference_stream)."""

from __future__ import annotations

from typing import Any

import pytest

from p4tester.config.profile import profile_from_dict
from p4tester.dataplane.constants import REFERENCE_LOOP_PORT
from p4tester.dataplane.headers import StreamRegisters
from p4tester.results.reference import SPIKE_FLOOR_US, ReferenceLatency, spiked
from p4tester.tester.reference_stream import (
    lost_reason,
    reference_latency,
    reference_stream,
    reference_stream_id,
)


def profile(*streams: dict[str, Any]) -> Any:
    return profile_from_dict({"name": "p", "frame_sizes": [128], "streams": list(streams)},
                             "p.yaml")


def registers(samples: int, minimum: int, maximum: int, total: int) -> StreamRegisters:
    return StreamRegisters(stream_id=63, rx_next_expected=samples, rx_last_seq=samples - 1,
                           rx_samples=samples, rx_lost=0, latency_min=minimum,
                           latency_max=maximum, latency_sum=total, jitter_sum=0,
                           last_latency=minimum, generated=samples, tx_next_seq=samples,
                           switch_time=5_000_000)


def test_reference_takes_the_highest_free_stream_id() -> None:
    assert reference_stream_id(profile({"id": 0, "tx_port": 1, "rx_port": 2})) == 63
    assert reference_stream_id(profile({"id": 63, "tx_port": 1, "rx_port": 2},
                                       {"id": 62, "tx_port": 2, "rx_port": 1})) == 61
    every = [{"id": i, "tx_port": 1, "rx_port": 2, "share": 1 / 64} for i in range(64)]
    assert reference_stream_id(profile(*every)) is None


def test_reference_is_the_first_stream_looped_inside_the_switch() -> None:
    prof = profile({"id": 4, "tx_port": 1, "rx_port": 2, "ipv6": True, "share": 0.25,
                    "vlan_id": 7, "udp_src_port": 40000,
                    "vary": {"src_port": [40000, 40001]}},
                   {"id": 5, "tx_port": 2, "rx_port": 1})
    looped = reference_stream(prof, 63)
    assert (looped.id, looped.tx_port, looped.rx_port) == (63, REFERENCE_LOOP_PORT,
                                                          REFERENCE_LOOP_PORT)
    # The same frames as stream 4 (same parser path), at its own rate and never varied.
    assert (looped.ipv6, looped.vlan_id, looped.addresses) == (True, 7, prof.streams[0].addresses)
    assert (looped.share, looped.vary, looped.field_cycle) == (1.0, (), ())


def test_reference_latency_from_the_registers() -> None:
    figures = reference_latency(63, 200, 200, registers(200, 15, 268, 11_080), 4_199.0)
    assert figures == ReferenceLatency(stream_id=63, tx_frames=200, rx_frames=200, min_us=15.0,
                                       avg_us=55.4, max_us=268.0, spiked=False)
    assert figures is not None and figures.spike_us == 253.0
    assert figures.describe() == "tester's own latency 15..268 us (avg 55.4)"
    assert reference_latency(63, 200, 0, registers(0, 0, 0, 0), None) is None


def test_a_spike_marks_the_trial_only_where_it_can_account_for_the_figures() -> None:
    # Below the floor: the loop's own variation, never a spike.
    assert not spiked(15.0, 15.0 + SPIKE_FLOOR_US, 1_500.0)
    # 3.6 ms of the tester's own beside a stream whose max is 4 ms: marked.
    assert spiked(15.0, 3_615.0, 4_041.0)
    # The same 3.6 ms beside a DUT that held frames for 50 ms: the DUT's figures stand.
    assert not spiked(15.0, 3_615.0, 50_000.0)
    assert spiked(15.0, 3_615.0, 35_999.0)
    # No stream measured latency: a spike above the floor is one.
    assert spiked(15.0, 1_016.0, None)
    figures = reference_latency(63, 200, 200, registers(200, 15, 3_615, 20_000), 4_041.0)
    assert figures is not None and figures.spiked
    assert figures.describe() == "tester's own latency 15..3615 us (avg 100.0), tester spiked"


def test_a_reference_frame_lost_is_the_testers_own() -> None:
    assert lost_reason(200, 200) == ""
    assert lost_reason(200, 197) == ("the reference stream, looped inside the tester switch, "
                                     "lost 3 of 200 frames: the switch dropped frames itself")
    assert lost_reason(200, 0).startswith("the reference stream, looped inside the tester "
                                          "switch, lost 200 of 200 frames")


def test_reference_figures_are_checked() -> None:
    with pytest.raises(ValueError, match="201 frames received of 200 sent"):
        ReferenceLatency(63, 200, 201, 15.0, 20.0, 30.0, False)
    with pytest.raises(ValueError, match=r"min 15\.0 avg 40\.0 max 30\.0 us are not in order"):
        ReferenceLatency(63, 200, 200, 15.0, 40.0, 30.0, False)
