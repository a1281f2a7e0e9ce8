"""BMv2 settings that P4Runtime does not reach, through thrift.

Egress queue depth and rate are per port; the tester paces each stream's
generator loop with a queue rate, and the reference DUT gets its buffer and
bottleneck the same way. Most settings go through simple_switch_CLI; queue rates,
which a shaped trial changes every step (issue 24), go over a thrift connection
from this process: a CLI process costs a few hundred milliseconds of a busy host.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


# Reads of the switch's clock to find its start: the tightest of them bounds it.
CLOCK_TRIES = 50


@dataclass(frozen=True, slots=True)
class ClockStart:
    """The host's realtime clock (us since the epoch) when the switch's clock was 0,
    and how far off that may be (half the tightest read's span)."""

    epoch_us: int
    within_us: int


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
        self.set_queue_rates({port: pps})

    def set_queue_rates(self, rates: Mapping[int, int]) -> None:
        """Several ports' egress queue rates (0 = unlimited) over one thrift
        connection (none for no ports)."""
        if not rates:
            return
        negative = {port: pps for port, pps in rates.items() if pps < 0}
        if negative:
            raise ValueError(f"queue rates {negative} pps must not be negative")

        def write(client: Any) -> None:
            for port, pps in rates.items():
                client.set_egress_queue_rate(port, pps)

        self._with_client(write, f"setting queue rates {dict(rates)}")

    def clock_start_us(self, tries: int = CLOCK_TRIES) -> ClockStart:
        """When the switch's clock (us since the switch started, its timestamps) was 0,
        on this host's realtime clock: each try reads the switch's time since it
        started on both sides of its time since the epoch; the tightest pair wins."""
        best: list[ClockStart] = []

        def read(client: Any) -> None:
            for _ in range(tries):
                before = client.get_time_elapsed_us()
                epoch = client.get_time_since_epoch_us()
                after = client.get_time_elapsed_us()
                start = ClockStart(epoch - (before + after) // 2, (after - before + 1) // 2)
                if not best or start.within_us < best[0].within_us:
                    best[:] = [start]

        self._with_client(read, "reading the switch's clock")
        return best[0]

    def _with_client(self, use: Callable[[Any], None], what: str) -> None:
        """One thrift connection to the switch's simple_switch service for `use`."""
        from thrift.protocol import TBinaryProtocol, TMultiplexedProtocol
        from thrift.Thrift import TException
        from thrift.transport import TSocket, TTransport

        socket = TSocket.TSocket(THRIFT_IP, self.thrift_port)
        socket.setTimeout(self.timeout_s * 1000)
        transport = TTransport.TBufferedTransport(socket)
        protocol = TMultiplexedProtocol.TMultiplexedProtocol(
            TBinaryProtocol.TBinaryProtocol(transport), "simple_switch")
        client = _simple_switch_client()(protocol)
        try:
            transport.open()
            use(client)
        except (TException, OSError) as exc:
            raise ThriftError(
                f"thrift port {self.thrift_port}: {what} failed ({exc}); is the switch "
                "running with its thrift server on that port?"
            ) from exc
        finally:
            transport.close()

    def set_queue_depth(self, port: int, packets: int) -> None:
        if packets <= 0:
            raise ValueError(f"queue depth {packets} must be at least 1 packet")
        self.run([f"set_queue_depth {packets} {port}"])


def _simple_switch_client() -> Any:
    """BMv2's generated thrift client for simple_switch (sswitch_runtime), loaded from
    where BMv2 installed it without putting that directory on sys.path (it also holds
    packages, `p4` and `google`, that would shadow this environment's)."""
    loaded = sys.modules.get("sswitch_runtime.SimpleSwitch")
    if loaded is not None:
        return loaded.Client
    modules = bmv2_python_dir()
    package = None if modules is None else modules / "sswitch_runtime"
    if package is None or not (package / "__init__.py").is_file():
        raise ThriftError(
            f"BMv2's thrift modules (sswitch_runtime) not found under /usr/local/lib/"
            f"python3*/: reinstall BMv2 or set {PYTHONPATH_OVERRIDE} to their directory"
        )
    spec = importlib.util.spec_from_file_location(
        "sswitch_runtime", package / "__init__.py", submodule_search_locations=[str(package)])
    if spec is None or spec.loader is None:
        raise ThriftError(f"cannot load {package}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["sswitch_runtime"] = module
    spec.loader.exec_module(module)
    return importlib.import_module("sswitch_runtime.SimpleSwitch").Client
