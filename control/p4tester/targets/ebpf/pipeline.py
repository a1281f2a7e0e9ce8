"""Loads the compiled eBPF tester onto interfaces and unloads it (tc_objects.py:
how tc loads it and where its maps are pinned)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from p4tester.targets.ebpf.layout import ProgramLayout
from p4tester.targets.ebpf.maps import ProgramMaps
from p4tester.targets.ebpf.tc_objects import TcLoadError, TcObjects, run_tool

# The initializer runs once (below) from a filter of this priority, then goes.
_INITIALIZER_PREF = 1
_PIPELINE_PREF = 49152


class EbpfPipeline:
    """One tester program: its object, its private bpffs, the interfaces it is on."""

    def __init__(self, object_file: Path, c_source: Path, pin_root: Path) -> None:
        self.object_file = object_file
        self.layout = ProgramLayout.read(object_file, c_source)
        self._objects = TcObjects(pin_root)
        self._attached: list[str] = []
        self.maps = ProgramMaps(self._objects, self.layout)

    def mount(self) -> None:
        self._objects.mount()

    def attach(self, interface: str) -> None:
        """The ingress and egress pipelines on `interface`."""
        for hook in ("ingress", "egress"):
            self._objects.attach(interface, hook, self.object_file, f"classifier/tc-{hook}",
                                 _PIPELINE_PREF)
        self._attached.append(interface)

    def program_id(self, interface: str, hook: str) -> int:
        """The kernel's id of the pipeline attached to `interface` at `hook`."""
        return self._objects.program_id(interface, hook, _PIPELINE_PREF)

    def initialize(self) -> None:
        """Runs the program's map initializer once: default actions and constant
        entries, which p4c-ebpf writes from a program of its own (psabpf-ctl's job)."""
        if not self._attached:
            raise TcLoadError("attach the program to an interface before initializing it")
        interface = self._attached[0]
        self._objects.attach(interface, "egress", self.object_file,
                             "classifier/map-initializer", _INITIALIZER_PREF)
        try:
            program = self._objects.program_id(interface, "egress", _INITIALIZER_PREF)
            with tempfile.NamedTemporaryFile(suffix=".bin") as frame:
                frame.write(bytes(64))
                frame.flush()
                run_tool(["bpftool", "prog", "run", "id", str(program), "data_in", frame.name],
                         "run the map initializer")
        finally:
            self._objects.detach(interface, "egress", _INITIALIZER_PREF)

    @staticmethod
    def ifindex(interface: str) -> int:
        return int(Path(f"/sys/class/net/{interface}/ifindex").read_text())

    def close(self) -> None:
        """Detaches from every interface, closes the maps, unmounts the pins."""
        self.maps.close()
        self._objects.close()
        self._attached.clear()
