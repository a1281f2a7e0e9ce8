"""One entry of the generator's variation table (p4src/v1model/generator.p4
tx_vary_fields): what it writes into a varying stream's frame."""

from __future__ import annotations

from typing import NamedTuple


class VariedFields(NamedTuple):
    """L4 ports, the VxLAN VNI and the outer Ethernet MACs (48-bit numbers)."""

    src_port: int
    dst_port: int
    vni: int
    src_mac: int
    dst_mac: int
