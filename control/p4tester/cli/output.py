"""Printing for humans or, with --json, one JSON document for scripts."""

from __future__ import annotations

import json
import sys
from typing import Any


def emit(document: dict[str, Any], text: str, as_json: bool) -> None:
    if as_json:
        json.dump(document, sys.stdout, indent=2, sort_keys=True, default=str)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text.rstrip() + "\n")


def fail(message: str, as_json: bool) -> None:
    """One clear line on stderr (and a JSON error document with --json)."""
    if as_json:
        json.dump({"error": message}, sys.stdout)
        sys.stdout.write("\n")
    sys.stderr.write(f"p4tester: {message}\n")
