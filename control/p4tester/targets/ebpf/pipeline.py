"""Loads the compiled eBPF tester onto interfaces and unloads it.

`tc` (iproute2) loads the object: p4c-ebpf's PSA programs keep the legacy map
sections that tc's loader understands (bpftool's refuses them). Every map is
pinned in a BPF file system this pipeline mounts for itself (TC_BPF_MNT), so two
testers on one host never share a register, and unmounting frees them."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

from p4tester.targets.ebpf.layout import ProgramLayout
from p4tester.targets.ebpf.maps import ProgramMaps

# The initializer runs once (below) from a filter of this priority, then goes.
_INITIALIZER_PREF = 1
_PIPELINE_PREF = 49152


class PipelineError(RuntimeError):
    """The program could not be loaded or attached."""


def _run(command: list[str], what: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        # The verifier's log can be long: its last lines say why.
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise PipelineError(f"{what}: {' '.join(command)} failed:\n{tail}")
    return done.stdout


class EbpfPipeline:
    """One tester program: its object, its private bpffs, the interfaces it is on."""

    def __init__(self, object_file: Path, c_source: Path, pin_root: Path) -> None:
        self.object_file = object_file
        self.pin_root = pin_root
        self.layout = ProgramLayout.read(object_file, c_source)
        self._attached: list[str] = []
        self._mounted = False
        self.maps = ProgramMaps(pin_root / "tc" / "globals", self.layout)

    def _tc_env(self) -> dict[str, str]:
        return {**os.environ, "TC_BPF_MNT": str(self.pin_root)}

    def mount(self) -> None:
        self.pin_root.mkdir(parents=True, exist_ok=True)
        _run(["mount", "-t", "bpf", "bpf", str(self.pin_root)],
             f"mount a BPF file system at {self.pin_root} (needs root)")
        self._mounted = True

    def attach(self, interface: str) -> None:
        """The ingress and egress pipelines on `interface` (a clsact qdisc of its own)."""
        _run(["tc", "qdisc", "add", "dev", interface, "clsact"],
             f"add a clsact qdisc to {interface}")
        self._attached.append(interface)
        for hook in ("ingress", "egress"):
            _run(["tc", "filter", "add", "dev", interface, hook, "pref", str(_PIPELINE_PREF),
                  "bpf", "da", "obj", str(self.object_file), "sec", f"classifier/tc-{hook}"],
                 f"load the tester's {hook} pipeline on {interface}", self._tc_env())

    def initialize(self) -> None:
        """Runs the program's map initializer once: default actions and constant
        entries, which p4c-ebpf writes from a program of its own (psabpf-ctl's job)."""
        if not self._attached:
            raise PipelineError("attach the program to an interface before initializing it")
        interface = self._attached[0]
        _run(["tc", "filter", "add", "dev", interface, "egress", "pref", str(_INITIALIZER_PREF),
              "bpf", "da", "obj", str(self.object_file), "sec", "classifier/map-initializer"],
             "load the map initializer", self._tc_env())
        try:
            shown = _run(["tc", "filter", "show", "dev", interface, "egress", "pref",
                          str(_INITIALIZER_PREF)], "find the map initializer")
            found = re.search(r"\bid (\d+)\b", shown)
            if found is None:
                raise PipelineError(f"tc shows no program id for the initializer: {shown!r}")
            with tempfile.NamedTemporaryFile(suffix=".bin") as frame:
                frame.write(bytes(64))
                frame.flush()
                _run(["bpftool", "prog", "run", "id", found.group(1), "data_in", frame.name],
                     "run the map initializer")
        finally:
            _run(["tc", "filter", "del", "dev", interface, "egress", "pref",
                  str(_INITIALIZER_PREF)], "remove the map initializer")

    def ifindex(self, interface: str) -> int:
        return int(Path(f"/sys/class/net/{interface}/ifindex").read_text())

    def close(self) -> None:
        """Detaches from every interface, closes the maps, unmounts the pins."""
        self.maps.close()
        for interface in reversed(self._attached):
            subprocess.run(["tc", "qdisc", "del", "dev", interface, "clsact"],
                           capture_output=True, check=False)
        self._attached.clear()
        if self._mounted:
            subprocess.run(["umount", str(self.pin_root)], capture_output=True, check=False)
            self._mounted = False
