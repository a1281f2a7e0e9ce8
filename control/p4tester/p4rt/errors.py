"""Errors raised by the P4Runtime layer, and the translation of gRPC failures into them.

Every message names the thing that went wrong and, where there is one, the likely fix:
the person reading it is usually in the middle of a test run, not in this code.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from google.rpc import code_pb2, status_pb2  # type: ignore[import-untyped, unused-ignore]
from p4.v1 import p4runtime_pb2  # type: ignore[import-untyped, unused-ignore]

# gRPC carries the rich google.rpc.Status (whose details hold one p4.v1.Error per update,
# P4Runtime spec section 12.3) in this trailing-metadata key.
_STATUS_DETAILS_KEY = "grpc-status-details-bin"

# Long lists of failures or names make a message unreadable; the rest stay on the object.
_MAX_LISTED = 5


class P4RuntimeError(Exception):
    """Base of every error of the P4Runtime layer.

    `grpc_code` is the gRPC status code name (e.g. 'FAILED_PRECONDITION') when the error
    comes from an RPC, so callers can branch on it without parsing the message.
    """

    def __init__(self, message: str, *, grpc_code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.grpc_code = grpc_code


class P4InfoLookupError(P4RuntimeError, LookupError):
    """A name (or id) that the P4Info does not define.

    `suggestion` is the full name the user most likely meant, or None.
    """

    def __init__(
        self, message: str, *, kind: str, name: str, suggestion: str | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.name = name
        self.suggestion = suggestion

    @classmethod
    def unknown_name(
        cls,
        kind: str,
        name: str,
        candidates: Mapping[str, str],
        *,
        scope: str = "",
    ) -> P4InfoLookupError:
        """`candidates` maps every accepted spelling (full name and alias) to the full
        name, so a typo of an alias still suggests the unambiguous full name."""
        suggestion = suggest(name, candidates)
        where = f" in {scope}" if scope else ""
        message = f"no {kind} named {name!r}{where}"
        if suggestion is not None:
            message += f"; did you mean {suggestion!r}?"
        elif candidates:
            message += f"; known: {_short_list(sorted(set(candidates.values())))}"
        else:
            message += f"; there is no {kind} at all"
        return cls(message, kind=kind, name=name, suggestion=suggestion)

    @classmethod
    def unknown_id(cls, kind: str, p4_id: int) -> P4InfoLookupError:
        return cls(
            f"no {kind} with id {p4_id} (0x{p4_id:08x}) in the P4Info; "
            "is the switch running another pipeline?",
            kind=kind,
            name=str(p4_id),
        )


class EncodingError(P4RuntimeError, ValueError):
    """A value that cannot be encoded for the field it is meant for."""


class SwitchUnreachableError(P4RuntimeError, ConnectionError):
    """The P4Runtime server did not answer."""

    def __init__(self, address: str, reason: str, *, grpc_code: str | None = None) -> None:
        self.address = address
        self.reason = reason
        super().__init__(
            f"cannot reach the P4Runtime server at {address}: {reason}; "
            f"is simple_switch_grpc running and listening on {address}?",
            grpc_code=grpc_code,
        )


class ArbitrationError(P4RuntimeError):
    """This client is not (or no longer) the primary controller of the device."""


class PipelineMismatchError(P4RuntimeError):
    """The P4Info on the switch is not the one this controller was built against."""

    def __init__(self, differences: Sequence[str]) -> None:
        self.differences = tuple(differences)
        super().__init__(
            "the switch's pipeline differs from the expected P4Info: "
            f"{_short_list(self.differences, sep='; ')}. Push the pipeline "
            "(P4RuntimeClient.set_pipeline) or, if the P4 source changed, rebuild the "
            "committed outputs with `make build`"
        )


@dataclass(frozen=True, slots=True)
class UpdateFailure:
    """One rejected update of a WriteRequest, as reported in the status details."""

    index: int  # position in the sequence given to write(), not within one chunk
    update_type: str  # 'INSERT', 'MODIFY' or 'DELETE'
    entity_kind: str  # e.g. 'table_entry'
    code: str  # canonical code name, e.g. 'ALREADY_EXISTS'
    message: str

    def __str__(self) -> str:
        return (
            f"update #{self.index} ({self.update_type} {self.entity_kind}): "
            f"{self.code}: {self.message}"
        )


class WriteError(P4RuntimeError):
    """A Write RPC failed; `failures` lists the rejected updates when the switch says."""

    def __init__(
        self,
        message: str,
        *,
        failures: Sequence[UpdateFailure] = (),
        grpc_code: str | None = None,
    ) -> None:
        self.failures = tuple(failures)
        super().__init__(message, grpc_code=grpc_code)


def suggest(name: str, candidates: Mapping[str, str]) -> str | None:
    """The full name the user most likely meant by `name`, or None."""
    # A short name that is the tail of exactly one full name is the commonest slip
    # ('rx_stream' for 'Ingress.checker.rx_stream' when the alias is something else).
    tails = sorted({full for full in candidates.values() if full.endswith("." + name)})
    if len(tails) == 1:
        return tails[0]
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return candidates[close[0]] if close else None


def _short_list(items: Sequence[str], sep: str = ", ") -> str:
    shown = sep.join(items[:_MAX_LISTED])
    hidden = len(items) - _MAX_LISTED
    return f"{shown}{sep}... ({hidden} more)" if hidden > 0 else shown


def _code_name(error: Any) -> str:
    code = error.code()
    return str(code.name) if code is not None else "UNKNOWN"


def translate_rpc_error(
    error: Any, *, address: str, action: str, timeout_s: float
) -> P4RuntimeError:
    """Turn a grpc.RpcError raised by `action` (e.g. 'Read') into a P4RuntimeError."""
    code = error.code()
    details = str(error.details() or "")
    name = _code_name(error)
    if code == grpc.StatusCode.UNAVAILABLE:
        return SwitchUnreachableError(address, f"{action}: {details}", grpc_code=name)
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return SwitchUnreachableError(
            address, f"no answer to {action} within {timeout_s} s", grpc_code=name
        )
    if code == grpc.StatusCode.PERMISSION_DENIED:
        # P4Runtime answers PERMISSION_DENIED to writes from a non-primary client.
        return ArbitrationError(
            f"{action} refused: this client is not the primary controller ({details})",
            grpc_code=name,
        )
    return P4RuntimeError(f"{action} failed: {name}: {details}", grpc_code=name)


def translate_write_error(
    error: Any,
    updates: Sequence[Any],
    *,
    offset: int,
    address: str,
    timeout_s: float,
) -> P4RuntimeError:
    """Turn a failed Write of `updates` (which start at `offset` of the caller's batch)
    into a WriteError listing the rejected updates, or into a connection error."""
    code = error.code()
    if code in (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.PERMISSION_DENIED,
    ):
        return translate_rpc_error(error, address=address, action="Write", timeout_s=timeout_s)
    failures = _decode_failures(_p4_errors(error), updates, offset)
    name = _code_name(error)
    if failures:
        listed = _short_list([str(f) for f in failures], sep="; ")
        message = f"write failed: {len(failures)} of {len(updates)} updates rejected: {listed}"
    else:
        message = f"write of {len(updates)} updates failed: {name}: {error.details() or ''}"
    if offset:
        message += f" (in the WriteRequest from update #{offset}; the ones before it were applied)"
    return WriteError(message, failures=failures, grpc_code=name)


def _p4_errors(error: Any) -> list[Any]:
    """The p4.v1.Error messages packed in the status details, in update order."""
    metadata = error.trailing_metadata() or ()
    for key, value in metadata:
        if key != _STATUS_DETAILS_KEY:
            continue
        status = status_pb2.Status.FromString(value)
        decoded: list[Any] = []
        for packed in status.details:
            item = p4runtime_pb2.Error()
            if packed.Unpack(item):
                decoded.append(item)
        return decoded
    return []


def _decode_failures(
    errors: Iterable[Any], updates: Sequence[Any], offset: int
) -> tuple[UpdateFailure, ...]:
    failures: list[UpdateFailure] = []
    for position, item in enumerate(errors):
        if item.canonical_code == code_pb2.OK:
            continue
        update = updates[position] if position < len(updates) else None
        failures.append(
            UpdateFailure(
                index=offset + position,
                update_type=_update_type_name(update),
                entity_kind=_entity_kind(update),
                code=canonical_code_name(int(item.canonical_code)),
                message=str(item.message),
            )
        )
    return tuple(failures)


def canonical_code_name(code: int) -> str:
    """Name of a google.rpc.Code value, e.g. 6 -> 'ALREADY_EXISTS'."""
    try:
        return str(code_pb2.Code.Name(code))
    except ValueError:  # a code newer than our google.rpc copy
        return f"code {code}"


def _update_type_name(update: Any) -> str:
    if update is None:
        return "?"
    return str(p4runtime_pb2.Update.Type.Name(update.type))


def _entity_kind(update: Any) -> str:
    if update is None:
        return "?"
    kind = update.entity.WhichOneof("entity")
    return str(kind) if kind else "empty entity"
