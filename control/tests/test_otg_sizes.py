"""OTG flow sizes (otg.sizes) and flows of several sizes (otg.mapping): the sizes and
weights read, the flow's rate and budget split over one stream per size in whole
frames, the flow's latency over its streams, and what is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from p4tester.config.topology import Topology, load_topology
from p4tester.otg.errors import OtgError
from p4tester.otg.mapping import map_config
from p4tester.otg.readings import Latency, combined_latency
from p4tester.otg.sizes import RandomSizes, SizeMix, flow_sizes, split_whole

LOOPBACK = Path(__file__).resolve().parents[2] / "topologies" / "loopback.yaml"


@pytest.fixture
def topology() -> Topology:
    return load_topology(LOOPBACK)


def sizes(data: object, max_sizes: int = 64) -> tuple[SizeMix, list[str]]:
    warnings: list[str] = []
    return flow_sizes(data, "flows[0].size", max_sizes, warnings), warnings


def refused(data: object, max_sizes: int = 64) -> str:
    with pytest.raises(OtgError) as caught:
        sizes(data, max_sizes)
    (message,) = caught.value.errors
    return message


def flow(size: dict[str, Any], **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "mix", "size": size,
        "tx_rx": {"choice": "port", "port": {"tx_name": "p1", "rx_names": ["p2"]}},
        "rate": {"choice": "pps", "pps": 300},
        "duration": {"choice": "fixed_packets", "fixed_packets": {"packets": 1200}},
        "packet": [{"choice": "ethernet", "ethernet": {}}, {"choice": "ipv4", "ipv4": {}},
                   {"choice": "udp", "udp": {}}]}
    base.update(fields)
    return base


def document(*flows: dict[str, Any]) -> dict[str, Any]:
    return {"ports": [{"name": "p1", "location": "1"}, {"name": "p2", "location": "2"}],
            "flows": list(flows)}


def mapping_errors(data: dict[str, Any], topology: Topology) -> list[str]:
    with pytest.raises(OtgError) as caught:
        map_config(data, topology)
    return list(caught.value.errors)


def test_split_whole_is_exact_and_gives_remainders_to_the_largest() -> None:
    assert split_whole(1000, [7, 4, 1]) == [584, 333, 83]
    assert split_whole(1200, [7, 4, 1]) == [700, 400, 100]
    assert split_whole(1000, [60.67, 23.66, 15.67]) == [607, 236, 157]
    assert split_whole(5, [1, 1, 1]) == [2, 2, 1]
    assert split_whole(2, [1, 1, 1]) == [1, 1, 0]


def test_fixed_and_absent_sizes_are_one_size() -> None:
    assert sizes({"choice": "fixed", "fixed": 256}) == (SizeMix((256,), (1.0,)), [])
    assert sizes(None) == (SizeMix((64,), (1.0,)), [])


def test_increment_is_every_size_from_start_to_end_in_equal_numbers() -> None:
    mix, warnings = sizes({"choice": "increment",
                           "increment": {"start": 128, "end": 512, "step": 128}})
    assert (mix.sizes, mix.weights, warnings) == ((128, 256, 384, 512), (1.0,) * 4, [])
    assert mix.average_size == 320.0
    # end need not be reached by a whole step
    assert sizes({"choice": "increment",
                  "increment": {"start": 100, "end": 130, "step": 20}})[0].sizes == (100, 120)


def test_an_increment_of_more_sizes_than_streams_names_the_step_that_fits() -> None:
    # OTG's defaults: 64..1518 B by 1, 1455 sizes; a step of 23 gives 64 of them.
    assert refused({"choice": "increment", "increment": {}}) == (
        "flows[0].size.increment: 1455 frame sizes, and the tester sends each size as a "
        "stream of its own: 64 streams are left for this flow; give a step of at least 23")
    assert len(sizes({"choice": "increment", "increment": {"step": 23}})[0].sizes) == 64
    assert refused({"choice": "increment", "increment": {"start": 64, "end": 96, "step": 8}},
                   max_sizes=4).endswith("4 streams are left for this flow; give a step of "
                                         "at least 9")
    assert refused({"choice": "increment", "increment": {"start": 200, "end": 100}}) == (
        "flows[0].size.increment: start 200, end 100, step 1: give start <= end and a step "
        "of at least 1")


def test_predefined_weight_pairs_are_the_otg_models() -> None:
    mix, warnings = sizes({"choice": "weight_pairs",
                           "weight_pairs": {"choice": "predefined", "predefined": "imix"}})
    assert (mix.sizes, mix.weights, warnings) == ((64, 570, 1518), (7.0, 4.0, 1.0), [])
    assert mix.average_size == pytest.approx(4246 / 12)
    mix, warnings = sizes({"choice": "weight_pairs",
                           "weight_pairs": {"choice": "predefined", "predefined": "tcp_imix"}})
    assert (mix.sizes, mix.weights) == ((90, 92, 594, 1518), (58.67, 2.0, 23.66, 15.67))


def test_predefined_sizes_under_the_ethernet_minimum_are_sent_at_it() -> None:
    mix, warnings = sizes({"choice": "weight_pairs", "weight_pairs": {
        "choice": "predefined", "predefined": "standard_imix"}})
    # 58 and 62 B both become 64 B: one size, their weights together.
    assert mix.sizes == (64, 594, 1518)
    assert mix.weights == pytest.approx((60.67, 23.66, 15.67))
    assert warnings == ["flows[0].size.weight_pairs.predefined standard_imix: its 58, 62 B "
                        "frames are sent as 64 B, the Ethernet minimum"]


def test_custom_weight_pairs_merge_repeated_sizes() -> None:
    mix, _ = sizes({"choice": "weight_pairs", "weight_pairs": {"choice": "custom", "custom": [
        {"size": 512, "weight": 1}, {"size": 128, "weight": 2.5}, {"size": 512, "weight": 0.5}]}})
    assert (mix.sizes, mix.weights) == ((128, 512), (2.5, 1.5))


@pytest.mark.parametrize(("data", "message"), [
    ({"choice": "random", "random": {"min": 300, "max": 200}},
     "flows[0].size.random: min 300 is above max 200; give min <= max"),
    ({"choice": "weight_pairs", "weight_pairs": {"choice": "predefined", "predefined": "cisco"}},
     "flows[0].size.weight_pairs.predefined: 'cisco' is not one of imix, ipsec_imix, "
     "ipv6_imix, standard_imix, tcp_imix"),
    ({"choice": "weight_pairs", "weight_pairs": {"choice": "custom", "custom": [
        {"size": 128, "weight": 0}]}},
     "flows[0].size.weight_pairs.custom[0].weight: 0 must be a positive number"),
    ({"choice": "weight_pairs", "weight_pairs": {"choice": "custom", "custom": []}},
     "flows[0].size.weight_pairs.custom: expected a list of {size, weight}"),
    ({"choice": "fixed", "fixed": "big"}, "flows[0].size.fixed: expected an integer, got 'big'"),
    ({"choice": "increment", "increment": {"start": 64, "end": 10000}},
     "flows[0].size.increment.end: 10000 is not a frame size (1..9216 B)"),
    ({"choice": "jumbo"}, "flows[0].size: size choice 'jumbo' is not an OTG size (fixed, "
                          "increment, random, weight_pairs)"),
])
def test_sizes_refused_name_the_field_and_the_fix(data: object, message: str) -> None:
    assert refused(data) == message


def test_a_mix_flow_is_a_stream_per_size_with_rate_and_budget_split_by_weight(
        topology: Topology) -> None:
    imix = {"choice": "weight_pairs", "weight_pairs": {"choice": "predefined",
                                                       "predefined": "imix"}}
    mapped = map_config(document(
        flow({"choice": "fixed", "fixed": 100}, name="first", rate={"choice": "pps", "pps": 10}),
        flow(imix, rate={"choice": "pps", "pps": 1000})), topology)
    first, mix = mapped.flows
    assert first.stream_ids == (0,)
    assert [(m.stream_id, m.frame_size, m.rate_pps, m.budget) for m in mix.members] == [
        (1, 64, 584, 700), (2, 570, 333, 400), (3, 1518, 83, 100)]
    assert (mix.rate_pps, mix.budget) == (1000, 1200)
    assert {(m.stream.tx_port, m.stream.rx_port) for m in mix.members} == {(1, 2)}
    assert mapped.warnings == (
        "flows[1].size: sent as 3 streams, one per size (64 B x 584/s, 570 B x 333/s, "
        "1518 B x 83/s); the counts of each size keep the mix, but sizes interleave by "
        "their rates rather than in OTG's order",)


def test_a_mix_at_a_share_of_line_rate_takes_its_mean_frame_size(topology: Topology) -> None:
    # OTG's imix averages 353.83 B: 5 Mbit/s / ((353.83 + 20) x 8) = 1671.87 frames/s.
    imix = {"choice": "weight_pairs", "weight_pairs": {"choice": "predefined",
                                                       "predefined": "imix"}}
    mapped = map_config(document(flow(imix, rate={"choice": "percentage", "percentage": 100},
                                      duration={"choice": "continuous"})), topology)
    (mix,) = mapped.flows
    # Rounded down: 1672/s would be above line rate.
    assert [(m.frame_size, m.rate_pps, m.budget) for m in mix.members] == [
        (64, 975, None), (570, 557, None), (1518, 139, None)]
    assert mapped.warnings[0] == ("flows[0].rate: 1671.868 frames/s is sent as 1671 frames/s "
                                  "(the tester paces whole frames per second)")
    # Each size's frames count at their own size against the port's line rate.
    doubled = flow(imix, rate={"choice": "pps", "pps": 3344})
    assert mapping_errors(document(doubled), topology) == [
        "flows: the flows from port 'p1' offer 199.9% of its line rate; lower their rates"]


def test_fixed_seconds_of_a_mix_run_every_size_the_same_seconds(topology: Topology) -> None:
    increment = {"choice": "increment", "increment": {"start": 128, "end": 512, "step": 128}}
    mapped = map_config(document(flow(increment, rate={"choice": "pps", "pps": 40}, duration={
        "choice": "fixed_seconds", "fixed_seconds": {"seconds": 3}})), topology)
    assert [(m.frame_size, m.rate_pps, m.budget) for m in mapped.flows[0].members] == [
        (128, 10, 30), (256, 10, 30), (384, 10, 30), (512, 10, 30)]
    uneven = flow(increment, rate={"choice": "pps", "pps": 42}, duration={
        "choice": "fixed_seconds", "fixed_seconds": {"seconds": 0.5}})
    assert mapping_errors(document(uneven), topology) == [
        "flows[0].duration.fixed_seconds: the seconds at each size's rate (128 B x 11/s, "
        "256 B x 11/s, 384 B x 10/s, 512 B x 10/s) are not whole frames; choose seconds x "
        "rate whole for every size"]


@pytest.mark.parametrize(("fields", "message"), [
    ({"rate": {"choice": "pps", "pps": 3}},
     "flows[0].rate: 3 frames/s cannot carry the flow's 4 frame sizes at their weights in "
     "whole frames/s (each size is a stream of its own); raise the rate"),
    ({"duration": {"choice": "fixed_packets", "fixed_packets": {"packets": 3}}},
     "flows[0].duration.fixed_packets.packets: 3 frames cannot carry the flow's 4 frame "
     "sizes at their weights; send more"),
    ({"duration": {"choice": "burst", "burst": {"packets": 4}}},
     "flows[0].duration.burst: a burst is frames of one size back to back; give size.fixed, "
     "or a rate for a mix of sizes"),
])
def test_a_mix_refuses_what_its_sizes_cannot_share(topology: Topology, fields: dict[str, Any],
                                                  message: str) -> None:
    increment = {"choice": "increment", "increment": {"start": 128, "end": 512, "step": 128}}
    assert mapping_errors(document(flow(increment, **fields)), topology) == [message]


def test_sizes_too_small_for_the_flows_headers_name_the_size(topology: Topology) -> None:
    vlan = [{"choice": "ethernet", "ethernet": {}}, {"choice": "vlan", "vlan": {}},
            {"choice": "ipv4", "ipv4": {}}, {"choice": "udp", "udp": {}}]
    increment = {"choice": "increment", "increment": {"start": 64, "end": 80, "step": 16}}
    (message,) = mapping_errors(document(flow(increment, packet=vlan)), topology)
    assert message.startswith("flows[0].size: frame size 64 B is outside 68..9216 B")


def test_the_streams_left_bound_a_flows_sizes(topology: Topology) -> None:
    # 64 streams: 62 one-size flows leave two for the last flow's three sizes.
    single = [flow({"choice": "fixed", "fixed": 128}, name=f"f{i}",
                   rate={"choice": "pps", "pps": 1}) for i in range(62)]
    three = flow({"choice": "increment", "increment": {"start": 128, "end": 384, "step": 128}},
                 name="last")
    assert mapping_errors(document(*single, three), topology) == [
        "flows[62].size.increment: 3 frame sizes, and the tester sends each size as a stream "
        "of its own: 2 streams are left for this flow; give a step of at least 129"]


def test_a_flows_latency_over_its_streams_weights_averages_by_frames() -> None:
    assert combined_latency([(Latency(3000.0, 9000.0, 5000.0), 30),
                             (Latency(1000.0, 20000.0, 9000.0), 10),
                             (None, 0), (Latency(1.0, 2.0, 1.5), 0)]) == \
        Latency(1000.0, 20000.0, 6000.0)
    assert combined_latency([(None, 0)]) is None


def test_random_sizes_are_one_stream_cut_frame_by_frame(topology: Topology) -> None:
    assert sizes({"choice": "random", "random": {}}) == (RandomSizes(64, 1518), [])
    # 64..1518 B average 791 B: 100 % of 5 Mbit/s is 5e6 / (811 x 8) = 770.65 frames/s.
    mapped = map_config(document(flow({"choice": "random", "random": {"min": 64, "max": 1518}},
                                      rate={"choice": "percentage", "percentage": 100},
                                      duration={"choice": "continuous"})), topology)
    ((member,),) = [f.members for f in mapped.flows]
    assert (member.frame_size, member.stream.size_cut, member.mean_frame_size) == \
        (1518, 1454, 791.0)
    # Rounded down: 771/s would be above line rate.
    assert (member.rate_pps, member.budget) == (770, None)
    assert mapped.warnings == ("flows[0].rate: 770.654 frames/s is sent as 770 frames/s (the "
                               "tester paces whole frames per second)",)
    # The line rate counts random frames at their mean size: 770/s of 791 B fit, 771 not.
    over = flow({"choice": "random", "random": {"min": 64, "max": 1518}},
                rate={"choice": "pps", "pps": 771})
    assert mapping_errors(document(over), topology) == [
        "flows: the flows from port 'p1' offer 100.0% of its line rate; lower their rates"]


@pytest.mark.parametrize(("fields", "message"), [
    ({"packet": [{"choice": "ethernet", "ethernet": {}}, {"choice": "vlan", "vlan": {}},
                 {"choice": "ipv6", "ipv6": {}}, {"choice": "tcp", "tcp": {}}]},
     "flows[0].size.random.min: frame size 64 B is outside 100..9216 B"),
    ({"packet": [{"choice": "ethernet", "ethernet": {}},
                 {"choice": "ipv4", "ipv4": {"src": {"choice": "value", "value": "10.0.0.1"},
                                             "dst": {"choice": "value", "value": "10.0.0.2"}}},
                 {"choice": "udp", "udp": {}}, {"choice": "vxlan", "vxlan": {}},
                 {"choice": "ethernet", "ethernet": {}}, {"choice": "ipv4", "ipv4": {}},
                 {"choice": "udp", "udp": {}}]},
     "flows[0].size.random: random sizes cut a frame's lengths in its outer headers only; a "
     "tunnelled flow takes size.fixed, increment or weight_pairs"),
    ({"duration": {"choice": "burst", "burst": {"packets": 4}}},
     "flows[0].duration.burst: a burst is frames of one size back to back; give size.fixed, "
     "or a rate for a mix of sizes"),
])
def test_random_sizes_refuse_what_the_cut_cannot_do(topology: Topology, fields: dict[str, Any],
                                                    message: str) -> None:
    random = {"choice": "random", "random": {"min": 64, "max": 512}}
    (error,) = mapping_errors(document(flow(random, **fields)), topology)
    assert error.startswith(message), error
