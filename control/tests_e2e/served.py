"""A server the tests start as a user does (`p4tester otg`, `p4tester.server`): a
subprocess on a free loopback port, its output in a log file, stopped at the end
(only this process, never by name)."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

START_S = 30.0
STOP_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """`command` with `--bind 127.0.0.1:<port>` added, run in `cwd`."""

    def __init__(self, command: Sequence[str], cwd: Path, log_path: Path,
                 env: Mapping[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = log_path.open("w")
        self.process = subprocess.Popen(
            [*command, "--bind", f"127.0.0.1:{self.port}"], cwd=cwd, stdout=self._log,
            stderr=subprocess.STDOUT, env=dict(env) if env is not None else None)

    def wait_listening(self) -> None:
        deadline = time.monotonic() + START_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"server did not start: {self.log()}") from None
                time.sleep(0.1)

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._log.close()
