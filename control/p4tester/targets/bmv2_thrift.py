"""BMv2 settings that P4Runtime does not reach, through simple_switch_CLI (thrift).

Egress queue depth and rate are per port; the tester paces each stream's
generator loop with a queue rate, and the reference DUT gets its buffer and
bottleneck the same way.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

CLI_NAME = "simple_switch_CLI"


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
        try:
            done = subprocess.run(
                [cli, "--thrift-port", str(self.thrift_port)],
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
        """Several ports in one CLI session (one process start, not one per port)."""
        self.run([f"set_queue_rate {pps} {port}" for port, pps in rates.items()])

    def set_queue_depth(self, port: int, packets: int) -> None:
        if packets <= 0:
            raise ValueError(f"queue depth {packets} must be at least 1 packet")
        self.run([f"set_queue_depth {packets} {port}"])
