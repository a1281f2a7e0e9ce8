"""BMv2 settings that P4Runtime does not reach, through simple_switch_CLI (thrift).

Egress queue depth and rate are per port; the tester paces each stream's
generator loop with a queue rate, and the reference DUT gets its buffer and
bottleneck the same way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

CLI_NAME = "simple_switch_CLI"
# BMv2's `make install` puts the CLI's Python modules under the prefix's
# site-packages, where neither Debian's python3 nor a venv looks.
CLI_MODULE = "sswitch_CLI.py"
PYTHONPATH_OVERRIDE = "P4T_BMV2_PYTHONPATH"
THRIFT_IP = "127.0.0.1"


def bmv2_python_dir() -> Path | None:
    """Directory holding BMv2's CLI modules (sswitch_CLI, bm_runtime), if found."""
    override = os.environ.get(PYTHONPATH_OVERRIDE)
    if override:
        return Path(override)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for prefix in ("/usr/local", "/usr"):
        for sub in ("site-packages", "dist-packages"):
            candidate = Path(prefix) / "lib" / version / sub
            if (candidate / CLI_MODULE).is_file():
                return candidate
    return None


class ThriftError(RuntimeError):
    """simple_switch_CLI failed or refused a command."""


@dataclass(frozen=True, slots=True)
class Bmv2Thrift:
    """One BMv2 switch's thrift server."""

    thrift_port: int = 9090
    timeout_s: float = 10.0

    def run(self, commands: list[str]) -> str:
        """Run CLI commands in one session; returns what the CLI printed."""
        cli = shutil.which(CLI_NAME)
        if cli is None:
            raise ThriftError(
                f"{CLI_NAME} not found on PATH: it comes with BMv2 (README, 'P4 toolchain')"
            )
        modules = bmv2_python_dir()
        if modules is None:
            raise ThriftError(
                f"BMv2's CLI modules ({CLI_MODULE}) not found under /usr/local/lib/python3*/: "
                f"reinstall BMv2 or set {PYTHONPATH_OVERRIDE} to their directory"
            )
        # This interpreter runs the CLI: it has the thrift module (requirements.txt).
        env = dict(os.environ, PYTHONPATH=str(modules))
        try:
            done = subprocess.run(
                # A numeric address: the CLI's default, "localhost", needs a hosts entry
                # that a minimal system may lack, and may resolve to ::1 first.
                [sys.executable, cli, "--thrift-ip", THRIFT_IP, "--thrift-port",
                 str(self.thrift_port)],
                env=env,
                input="\n".join(commands) + "\n",
                capture_output=True,
                text=True,
                timeout=self.timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise ThriftError(
                f"{CLI_NAME} on thrift port {self.thrift_port} did not answer in "
                f"{self.timeout_s} s"
            ) from exc
        output = done.stdout + done.stderr
        if done.returncode != 0 or "Could not connect" in output:
            raise ThriftError(
                f"{CLI_NAME} on thrift port {self.thrift_port} failed: {output.strip()[-400:]}; "
                "is the switch running with its thrift server on that port?"
            )
        for line in output.splitlines():
            if "Error" in line or "Invalid" in line:
                raise ThriftError(f"{CLI_NAME}: {line.strip()} (commands: {commands})")
        return output

    def set_queue_rate(self, port: int, pps: int) -> None:
        """Egress queue rate of a port in packets per second (0 = unlimited)."""
        if pps < 0:
            raise ValueError(f"queue rate {pps} pps must not be negative")
        self.run([f"set_queue_rate {pps} {port}"])

    def set_queue_rates(self, rates: dict[int, int]) -> None:
        """Several ports in one CLI session (one process start, not one per port;
        none for no ports)."""
        if rates:
            self.run([f"set_queue_rate {pps} {port}" for port, pps in rates.items()])

    def set_queue_depth(self, port: int, packets: int) -> None:
        if packets <= 0:
            raise ValueError(f"queue depth {packets} must be at least 1 packet")
        self.run([f"set_queue_depth {packets} {port}"])
