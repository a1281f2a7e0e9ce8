"""`POST /api/validate`: `p4tester validate` over HTTP. The files come as YAML text;
errors are the CLI's, split into the file, the field path and the message."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import load_profile
from p4tester.config.topology import Topology, load_topology
from p4tester.runs.describe import describe

# ConfigError messages read "<file>: <where>: <where>: <what>"; a "where" is a key,
# an indexed key (streams[0]) or "stream N" / "port N".
_PATH_PART: Final = re.compile(r"^([A-Za-z_][\w]*(\[\d+\])?|stream \d+|port \d+)$")


@dataclass(frozen=True, slots=True)
class ValidationError:
    file: str  # "topology" or "profile"
    path: str  # "streams[0].share"; "" when the error is about the whole file
    message: str  # the CLI's full message, file name included


def split_error(message: str, file: str, source: str) -> ValidationError:
    # The texts were written to a temporary file: name it as the user knows it.
    message = message.replace(source, Path(source).name)
    source = Path(source).name
    rest = message[len(source) + 2:] if message.startswith(f"{source}: ") else message
    parts = rest.split(": ")
    path = []
    for part in parts[:-1]:
        if not _PATH_PART.match(part):
            break
        path.append(part)
    return ValidationError(file, ".".join(path), message)


def validate_texts(topology_yaml: str, profile_yaml: str | None,
                   default_topology: Topology) -> dict[str, Any]:
    """The `validate --json` document; ValidationError-carrying ConfigError otherwise.

    Without a topology text the server's own topology is used. The texts are written to
    files named topology.yaml / profile.yaml so messages name them as a user would.
    """
    with tempfile.TemporaryDirectory(prefix="p4tester-validate-") as tmp:
        topology = default_topology
        if topology_yaml:
            path = Path(tmp) / "topology.yaml"
            path.write_text(topology_yaml)
            try:
                topology = load_topology(path)
            except ConfigError as exc:
                raise InvalidConfigError(split_error(str(exc), "topology", str(path))) from exc
        if profile_yaml is None:
            return {"valid": True, "topology": topology.name, "profile": None, "streams": []}
        path = Path(tmp) / "profile.yaml"
        path.write_text(profile_yaml)
        try:
            profile = load_profile(path, topology)
        except ConfigError as exc:
            raise InvalidConfigError(split_error(str(exc), "profile", str(path))) from exc
        document, _text = describe(topology, profile)
        return document


class InvalidConfigError(ValueError):
    def __init__(self, error: ValidationError) -> None:
        super().__init__(error.message)
        self.error = error
