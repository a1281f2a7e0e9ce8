"""Reading the JSON files users bring (tutorials topology.json, p4-utils p4app.json) with
errors that name the file and the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from p4tester.config.errors import ConfigError


def read_json(path: Path, where: str) -> Any:
    """The parsed document; a ConfigError naming `where` and `path` when it cannot be."""
    try:
        return json.loads(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read {path} ({exc.strerror})") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: {path} is not valid JSON: {exc}") from exc
