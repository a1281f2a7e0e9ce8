"""Starting and programming the BMv2 switches of a Mininet lab: the reference DUT
(as lab.bmv2_dut starts it in the veth labs) and a user's P4 program with its entries."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Final

from p4tester.config.network import NodeSpec
from p4tester.config.topology import Topology
from p4tester.lab.mininet.nodes import ProcessSwitch
from p4tester.lab.mininet.runtime import runtime_entities
from p4tester.lab.netdev import LabError
from p4tester.lab.processes import start_switch, stop_process
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.targets.bmv2_thrift import Bmv2Thrift

COMPILE_TIMEOUT_S: Final = 300.0


def start_reference_dut(topology: Topology, rundir: Path, log: bool) -> int:
    from p4tester.lab.bmv2_dut import start_bmv2_dut

    return start_bmv2_dut(topology, rundir, log=log)


def program_starter(node: NodeSpec, grpc_port: int, thrift_port: int, rundir: Path,
                    log: bool) -> Callable[[ProcessSwitch], int]:
    """Start simple_switch_grpc on the node's ports, push the program over P4Runtime,
    write its runtime entries, then run its thrift CLI commands (queue rates...)."""
    def start(switch: ProcessSwitch) -> int:
        bmv2_json, p4info = program_files(node, rundir)
        pid = start_switch(node.name, switch.data_ports(), grpc_port, thrift_port, rundir,
                           log=log)
        try:
            schema = P4InfoSchema.from_text_file(p4info)
            with P4RuntimeClient(f"127.0.0.1:{grpc_port}") as client:
                client.set_pipeline(schema, bmv2_json)
                if node.runtime:
                    entities = runtime_entities(schema, Path(node.runtime))
                    if entities.inserts:
                        client.insert(*entities.inserts)
                    if entities.defaults:
                        client.modify(*entities.defaults)
            if node.cli:
                commands = [line.strip() for line in Path(node.cli).read_text().splitlines()
                            if line.strip() and not line.lstrip().startswith("#")]
                Bmv2Thrift(thrift_port).run(commands)
        except BaseException:
            stop_process(pid)
            raise
        return pid

    return start


def program_files(node: NodeSpec, rundir: Path) -> tuple[str, str]:
    """(BMv2 JSON, P4Info) of a node: as given, or compiled from a .p4 source into the
    run directory (p4-utils' p4_src), or the P4Info found beside the JSON."""
    if node.bmv2_json.endswith(".p4"):
        out = rundir / node.name
        out.mkdir(parents=True, exist_ok=True)
        stem = Path(node.bmv2_json).stem
        done = subprocess.run(
            ["p4c-bm2-ss", "--p4runtime-files", str(out / f"{stem}.p4info.txt"),
             "-o", str(out / f"{stem}.json"), node.bmv2_json],
            capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False)
        if done.returncode != 0:
            raise LabError(f"{node.name}: p4c-bm2-ss {node.bmv2_json} failed: "
                           f"{done.stderr.strip()[-800:]}")
        return str(out / f"{stem}.json"), str(out / f"{stem}.p4info.txt")
    return node.bmv2_json, node.p4info or _p4info_beside(node.bmv2_json, node.name)


def _p4info_beside(bmv2_json: str, node: str) -> str:
    """The P4Info p4c-bm2-ss wrote next to the JSON (x.json: x.p4info.txt,
    x.p4.p4info.txt or x.p4.p4info.txtpb), for a switch given only its JSON and CLI commands."""
    path = Path(bmv2_json)
    # p4lang's tutorials Makefile names it x.p4.p4info.txtpb (text protobuf either way).
    for candidate in (path.with_suffix(".p4info.txt"), path.with_suffix(".p4.p4info.txt"),
                      path.with_suffix(".p4.p4info.txtpb")):
        if candidate.exists():
            return str(candidate)
    raise LabError(f"{node}: no P4Info beside {bmv2_json} (x.p4info.txt, x.p4.p4info.txt or "
                   "x.p4.p4info.txtpb): compile with p4c-bm2-ss --p4runtime-files, or give "
                   "p4info")
