"""Reading YAML configuration files with errors that name the file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import yaml

from p4tester.config.errors import ConfigError


def load_yaml_mapping(path: str | Path) -> dict[str, Any]:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror})") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


def require_keys(data: Mapping[str, Any], where: str, required: Iterable[str],
                 optional: Iterable[str]) -> None:
    """Every required key present; no key outside required + optional (typos caught)."""
    required = tuple(required)
    allowed = set(required) | set(optional)
    for key in required:
        if key not in data:
            # A typo of a required key is both missing and unknown: name it as the typo.
            unknown = [str(k) for k in data if k not in allowed]
            typo = get_close_matches(key, unknown, n=1)
            instead = f"; did you mean '{key}' instead of '{typo[0]}'?" if typo else ""
            raise ConfigError(f"{where}: missing '{key}'{instead}")
    for key in data:
        if key not in allowed:
            hint = get_close_matches(str(key), sorted(allowed), n=1)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else f"; known: {sorted(allowed)}"
            raise ConfigError(f"{where}: unknown key '{key}'{suggestion}")
