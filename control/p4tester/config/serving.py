"""What a served API (`p4tester serve`, `p4tester otg`) listens on and the bearer token
state changes need: checked before anything listens."""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from p4tester.config.errors import ConfigError

MIN_TOKEN_CHARS: Final = 16


@dataclass(frozen=True, slots=True)
class Bind:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False  # a host name: it may resolve anywhere


def parse_bind(text: str) -> Bind:
    """'127.0.0.1:8080', '[::1]:8080' or '0.0.0.0:80' -> Bind."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--bind {text!r}: give HOST:PORT, e.g. 127.0.0.1:8080")
    return Bind(host.strip("[]"), int(port))


def read_token(path: Path | None) -> str | None:
    """The bearer token from a file (first line), or None without a file."""
    if path is None:
        return None
    try:
        lines = path.read_text().split()
    except OSError as exc:
        raise ConfigError(f"--token-file {path}: cannot read it ({exc.strerror})") from exc
    token = lines[0] if lines else ""
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(f"--token-file {path}: the token must be at least {MIN_TOKEN_CHARS} "
                          "characters (e.g. `python -c 'import secrets; "
                          "print(secrets.token_urlsafe())'`)")
    return token


def new_token() -> str:
    return secrets.token_urlsafe(24)
