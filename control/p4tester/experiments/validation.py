"""Checks shared by the experiment configs. Every message names the config, the field,
the value and what would be accepted, so a bad config file is fixed in one go."""

from __future__ import annotations

import math
from collections.abc import Sequence

from p4tester.streams.frame_sizes import FrameSizeError
from p4tester.streams.rates import validate_frame_size


def check_fraction(owner: str, name: str, value: float) -> None:
    """A load as a share of line rate: (0, 1]."""
    if isinstance(value, bool) or not 0.0 < value <= 1.0:
        raise ValueError(
            f"{owner}: {name} must be a share of line rate in (0, 1] (0.5 = 50 %), got {value!r}"
        )


def check_positive(owner: str, name: str, value: float, unit: str) -> None:
    if isinstance(value, bool) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{owner}: {name} must be a positive number of {unit}, got {value!r}")


def check_count(owner: str, name: str, value: int, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{owner}: {name} must be a whole number >= {minimum}, got {value!r}")


def check_frame_size(owner: str, name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{owner}: {name} must be a whole number of bytes, got {value!r}")
    try:
        validate_frame_size(value)
    except FrameSizeError as error:
        raise ValueError(f"{owner}: {name}: {error}") from None


def check_frame_sizes(owner: str, sizes: Sequence[int]) -> None:
    if not sizes:
        raise ValueError(
            f"{owner}: frame_sizes is empty; give at least one, e.g. the RFC 2544 sizes "
            "(64, 128, 256, 512, 1024, 1280, 1518)"
        )
    for size in sizes:
        check_frame_size(owner, "frame_sizes", size)
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"{owner}: frame_sizes {tuple(sizes)} lists a size twice; list each once")


def check_name(owner: str, name: str, value: str) -> None:
    if not value:
        raise ValueError(f"{owner}: {name} must not be empty (it names the trials in the log)")


def check_labels(owner: str, labels: tuple[tuple[str, str], ...]) -> None:
    keys = [key for key, _ in labels]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{owner}: labels {labels} repeat a name; give each name once")
