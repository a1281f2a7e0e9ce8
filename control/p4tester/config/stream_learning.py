"""A profile's `addresses` entry: the two streams of RFC 2889's address caching
capacity and address learning rate tests (sections 5.7 and 5.8).

    streams:
      - {addresses: 1000, between: [1, 2], id: 20}   # streams 20 and 21

`between: [L, T]`: the learning port L and the test port T. Stream `id` goes from L to
T: frame i comes from address i mod N (its source MAC varies over the N addresses,
02:89:01:00:00:00 up), so a learning switch learns them all on L. Stream `id`+1 goes
back from T to L, frame i to address i mod N (its destination MAC varies over the
same addresses): a switch that learnt them forwards those frames to L only, and
floods the ones to addresses it did not learn to its other ports (RFC 2889's
monitoring port sees them). T sends from its mesh address (config.stream_mesh), L's
stream goes to it. A trial uses the first n of the N addresses (TrialSpec.
variation_lengths), so N is the most a test can try.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.stream_mesh import FIRST_L4_SRC_PORT, MESH_DST_NET, MESH_SRC_NET, port_mac
from p4tester.streams.variation import MAX_VARY_ENTRIES, mac_text

FIRST_ADDRESS: Final = 0x02_89_01_00_00_00
_SET_BY_ENTRY: Final = ("tx_port", "rx_port", "src_mac", "dst_mac", "src_ip", "dst_ip",
                        "udp_src_port", "vary")


def learned_address(index: int) -> str:
    """The MAC of address `index` (0 up) of an addresses entry."""
    return mac_text(FIRST_ADDRESS + index)


def address_stream_entries(entry: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
    """The learning and test stream entries an `addresses` entry stands for."""
    count, ports = entry["addresses"], entry.get("between")
    if not isinstance(count, int) or isinstance(count, bool) or not count >= 1:
        raise ConfigError(f"{where}: addresses: {count!r} must be a whole number of "
                          "addresses, at least 1")
    # Both streams vary over the N addresses: 2 N of the data plane's entries.
    if 2 * count > MAX_VARY_ENTRIES:
        raise ConfigError(f"{where}: addresses: {count} addresses take {2 * count} of the "
                          f"data plane's {MAX_VARY_ENTRIES} variation entries (two streams "
                          f"vary over them); give at most {MAX_VARY_ENTRIES // 2}")
    if (not isinstance(ports, list) or len(ports) != 2 or ports[0] == ports[1]
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in ports)):
        raise ConfigError(f"{where}: addresses: give between: [learning port, test port], "
                          "two different ports, e.g. between: [1, 2]")
    clashing = sorted(key for key in entry if key in _SET_BY_ENTRY)
    if clashing:
        raise ConfigError(f"{where}: addresses: {', '.join(clashing)} are set by the entry; "
                          "drop them")
    first_id = entry.get("id")
    if not isinstance(first_id, int) or isinstance(first_id, bool):
        raise ConfigError(f"{where}: addresses: id {first_id!r} must be a whole number (the "
                          "learning stream's; the test stream's is the next)")
    learning_port, test_port = ports
    common = {key: value for key, value in entry.items()
              if key not in ("addresses", "between", "id")}
    addresses = {"start": learned_address(0), "count": count}
    return [
        {**common, "id": first_id, "tx_port": learning_port, "rx_port": test_port,
         "src_mac": learned_address(0), "dst_mac": port_mac(test_port),
         "src_ip": f"{MESH_SRC_NET}.{learning_port}", "dst_ip": f"{MESH_DST_NET}.{test_port}",
         "udp_src_port": FIRST_L4_SRC_PORT, "vary": {"src_mac": addresses}},
        {**common, "id": first_id + 1, "tx_port": test_port, "rx_port": learning_port,
         "src_mac": port_mac(test_port), "dst_mac": learned_address(0),
         "src_ip": f"{MESH_SRC_NET}.{test_port}", "dst_ip": f"{MESH_DST_NET}.{learning_port}",
         "udp_src_port": FIRST_L4_SRC_PORT + 1, "vary": {"dst_mac": addresses}},
    ]
