"""The `linux` DUT's ECMP paths as a topology gives them (dut: {kind: linux, ecmp:
"2:1,3:3"}): the DUT ports a multipath route spreads the streams over, and their
weights (lab.linux_ecmp builds the route)."""

from __future__ import annotations

from p4tester.config.errors import ConfigError

# What an ecmp route may hash (lab.linux_ecmp): addresses, protocol and L4 ports; or
# the addresses alone.
ECMP_HASHES = ("l4", "l3")


def ecmp_paths(text: str, where: str) -> tuple[tuple[int, int], ...]:
    """"2:1,3:3" -> ((2, 1), (3, 3)): each path's DUT port and weight (1..256); a port
    without a weight weighs 1. Two paths at least."""
    paths = []
    for item in text.split(","):
        port, _, weight = item.strip().partition(":")
        if not port.isdigit() or (weight and not weight.isdigit()):
            raise ConfigError(f"{where}: ecmp {text!r}: {item.strip()!r} is not PORT or "
                              "PORT:WEIGHT; e.g. ecmp: \"2:1,3:3\"")
        paths.append((int(port), int(weight) if weight else 1))
    if len(paths) < 2:
        raise ConfigError(f"{where}: ecmp {text!r} names one path; give two or more, e.g. "
                          "ecmp: \"2,3\"")
    if len({port for port, _ in paths}) != len(paths):
        raise ConfigError(f"{where}: ecmp {text!r} names a port twice")
    if any(not 1 <= weight <= 256 for _, weight in paths):
        raise ConfigError(f"{where}: ecmp {text!r}: weights are 1..256")
    return tuple(paths)
