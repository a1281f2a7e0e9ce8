"""The `bmv2` reference DUT as an MPLS edge (p4src/dut/dut.p4 mpls_edge): settings

    mpls_push: "1:1000"      ingress port:label[,...]: IP frames in get that label
    mpls_pop: "3"            ingress port[,...]: the one label of frames in is removed
"""

from __future__ import annotations

from collections.abc import Mapping

from p4tester.dataplane import names
from p4tester.lab.netdev import LabError
from p4tester.p4rt import Exact, P4InfoSchema, build_table_entry

MAX_LABEL = (1 << 20) - 1


def mpls_entities(schema: P4InfoSchema, settings: Mapping[str, str], where: str) -> list[object]:
    entries: list[object] = []
    try:
        for item in filter(None, settings.get("mpls_push", "").split(",")):
            port, label = (int(v) for v in item.split(":"))
            if not 0 <= label <= MAX_LABEL:
                raise ValueError(f"label {label}")
            entries.append(build_table_entry(
                schema, names.DUT_MPLS_EDGE,
                {"ingress_port": Exact(port), "labelled": Exact(0)},
                names.DUT_PUSH_LABEL, {"label": label}))
        for item in filter(None, settings.get("mpls_pop", "").split(",")):
            entries.append(build_table_entry(
                schema, names.DUT_MPLS_EDGE,
                {"ingress_port": Exact(int(item)), "labelled": Exact(1)},
                names.DUT_POP_LABEL, {}))
    except ValueError as exc:
        raise LabError(f"{where}: dut.mpls_push must be 'port:label,...' (labels "
                       f"0..{MAX_LABEL}) and dut.mpls_pop 'port,...' ({exc})") from exc
    return entries
