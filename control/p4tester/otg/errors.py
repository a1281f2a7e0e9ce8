"""Errors in the OTG models' shape: {code, kind, errors[]}.

kind is "validation" for a request the server refuses as written (HTTP 400) and
"internal" for a failure of the tester behind it (HTTP 500).
"""

from __future__ import annotations

from typing import Final

VALIDATION: Final = "validation"
INTERNAL: Final = "internal"
_STATUS: Final = {VALIDATION: 400, INTERNAL: 500}


class OtgError(Exception):
    """An OTG Error object; raised anywhere in the server, answered as JSON."""

    def __init__(self, kind: str, errors: list[str] | tuple[str, ...]) -> None:
        if kind not in _STATUS:
            raise ValueError(f"OTG error kind {kind!r}: use {VALIDATION!r} or {INTERNAL!r}")
        super().__init__("; ".join(errors))
        self.kind = kind
        self.errors = tuple(errors)

    @property
    def status(self) -> int:
        return _STATUS[self.kind]

    def document(self) -> dict[str, object]:
        return {"code": self.status, "kind": self.kind, "errors": list(self.errors)}


def validation(*errors: str) -> OtgError:
    return OtgError(VALIDATION, errors)


def internal(*errors: str) -> OtgError:
    return OtgError(INTERNAL, errors)
