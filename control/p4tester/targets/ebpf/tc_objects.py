"""BPF objects loaded by `tc` onto interfaces, their maps pinned in a BPF file
system mounted for them alone.

`tc` (iproute2) loads p4c-ebpf's PSA objects: they keep the legacy map sections
its loader understands (bpftool's refuses them). Pinning in a private mount
(TC_BPF_MNT) keeps two loads on one host from sharing a map, and unmounting
frees them."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from p4tester.targets.ebpf.bpf_syscall import BpfMap


class TcLoadError(RuntimeError):
    """An object could not be loaded or attached."""


def run_tool(command: list[str], what: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        # The verifier's log can be long: its last lines say why.
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise TcLoadError(f"{what}: {' '.join(command)} failed:\n{tail}")
    return done.stdout


class TcObjects:
    """The interfaces (each with a clsact qdisc of its own) and the pin mount."""

    def __init__(self, pin_root: Path) -> None:
        self.pin_root = pin_root
        self.pin_dir = pin_root / "tc" / "globals"
        self._interfaces: list[str] = []
        self._mounted = False

    def mount(self) -> None:
        self.pin_root.mkdir(parents=True, exist_ok=True)
        run_tool(["mount", "-t", "bpf", "bpf", str(self.pin_root)],
                 f"mount a BPF file system at {self.pin_root} (needs root)")
        self._mounted = True

    def attach(self, interface: str, hook: str, object_file: Path, section: str,
               pref: int) -> None:
        """`section` of `object_file` on `interface`'s ingress or egress hook."""
        if interface not in self._interfaces:
            run_tool(["tc", "qdisc", "add", "dev", interface, "clsact"],
                     f"add a clsact qdisc to {interface}")
            self._interfaces.append(interface)
        run_tool(["tc", "filter", "add", "dev", interface, hook, "pref", str(pref), "bpf", "da",
                  "obj", str(object_file), "sec", section],
                 f"load {section} on {interface} {hook}",
                 {**os.environ, "TC_BPF_MNT": str(self.pin_root)})

    def program_id(self, interface: str, hook: str, pref: int) -> int:
        shown = run_tool(["tc", "filter", "show", "dev", interface, hook, "pref", str(pref)],
                         f"find the program on {interface} {hook}")
        found = re.search(r"\bid (\d+)\b", shown)
        if found is None:
            raise TcLoadError(f"tc shows no program id on {interface} {hook}: {shown!r}")
        return int(found.group(1))

    def detach(self, interface: str, hook: str, pref: int) -> None:
        run_tool(["tc", "filter", "del", "dev", interface, hook, "pref", str(pref)],
                 f"remove the filter of priority {pref} from {interface} {hook}")

    def pinned_map(self, name: str) -> BpfMap:
        return BpfMap.open_pinned(str(self.pin_dir / name))

    def close(self) -> None:
        """Removes every qdisc this loaded, then the pin mount."""
        for interface in reversed(self._interfaces):
            subprocess.run(["tc", "qdisc", "del", "dev", interface, "clsact"],
                           capture_output=True, check=False)
        self._interfaces.clear()
        if self._mounted:
            subprocess.run(["umount", str(self.pin_root)], capture_output=True, check=False)
            self._mounted = False
