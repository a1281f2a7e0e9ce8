"""`make bench`, search part: MLRsearch vs the RFC 2544 binary search, on simulated DUTs.

MLRsearch finds NDR and PDR (0.5 % loss) in one search with short early trials; the
baseline searches each goal on its own with every trial at the final duration. Both
aim at the same 0.5 % width and 60-s final trials. Simulated trials cost no wall time,
so the cost compared is trial seconds (traffic time); the target is MLRsearch <= 0.5 x
baseline. For each goal the bounds are set against the DUT's true limit: "lower" and
"upper" are (bound - limit) / limit, "brackets" says lower <= limit <= upper, "width"
says the interval is as narrow as the goal asks. Output is deterministic.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p4tester.search import SearchGoal, SearchResult, binary_search, mlr_search
from p4tester.search.goals import DEFAULT_RELATIVE_WIDTH, RFC2544_TRIAL_DURATION_S
from p4tester.search.simulated import CleanDut, NoisyDut

TARGET_RATIO = 0.5
# Noise below the PDR ratio: PDR sees a clean DUT, NDR trials fail now and then.
NOISE_LOSS_RATIO = 0.001
NOISE_PROBABILITY = 0.2
NOISE_SEED = 1

SimulatedDut = CleanDut | NoisyDut


@dataclass(frozen=True, slots=True)
class BenchDut:
    """A DUT to search; `make` gives a fresh one (same seed) to each search."""

    label: str
    make: Callable[[], SimulatedDut]


@dataclass(frozen=True, slots=True)
class Comparison:
    dut: BenchDut
    mlr: tuple[SearchResult, ...]
    binary: tuple[SearchResult, ...]

    @property
    def mlr_seconds(self) -> float:
        # One MLRsearch run serves every goal: its results share one trial list.
        return self.mlr[0].trial_seconds

    @property
    def binary_seconds(self) -> float:
        return sum(result.trial_seconds for result in self.binary)


def bench_duts() -> tuple[BenchDut, ...]:
    duts = [
        BenchDut(f"clean capacity {capacity:.3f}", _clean(capacity))
        for capacity in (0.1, 0.37, 0.6, 0.97)
    ]
    duts += [
        BenchDut(
            f"noisy capacity {capacity:.3f} (loss {NOISE_LOSS_RATIO:g} in "
            f"{NOISE_PROBABILITY:.0%} of trials)",
            _noisy(capacity),
        )
        for capacity in (0.37, 0.6, 0.97)
    ]
    return tuple(duts)


def _clean(capacity: float) -> Callable[[], SimulatedDut]:
    return lambda: CleanDut(capacity)


def _noisy(capacity: float) -> Callable[[], SimulatedDut]:
    return lambda: NoisyDut(capacity, NOISE_LOSS_RATIO, NOISE_PROBABILITY, seed=NOISE_SEED)


def compare(dut: BenchDut, goals: Sequence[SearchGoal]) -> Comparison:
    return Comparison(
        dut=dut, mlr=mlr_search(dut.make(), goals), binary=binary_search(dut.make(), goals)
    )


def _deviation(bound: float | None, limit: float) -> str:
    if bound is None:
        return "none"
    return f"{(bound - limit) / limit:+.3%}"


def _bound(bound: float | None) -> str:
    return "none" if bound is None else f"{bound:.6f}"


def _result_line(search: str, result: SearchResult, limit: float) -> str:
    lower, upper = result.lower_bound_fraction, result.upper_bound_fraction
    brackets = result.brackets(limit)
    return (
        f"  {result.goal.name:<4} {limit:<10.6f} {search:<9} {_bound(lower):<9} "
        f"{_bound(upper):<9} {_deviation(lower, limit):>8} {_deviation(upper, limit):>8} "
        f"{result.relative_width:>7.3%} {'yes' if brackets else 'NO':>8} "
        f"{'yes' if result.within_goal_width else 'NO':>5}"
    )


def report(comparison: Comparison) -> list[str]:
    truth = comparison.dut.make()
    ratio = comparison.mlr_seconds / comparison.binary_seconds
    lines = [
        f"{comparison.dut.label}: trial seconds MLRsearch {comparison.mlr_seconds:.1f}, "
        f"binary {comparison.binary_seconds:.1f}, ratio {ratio:.3f}",
        f"  {'goal':<4} {'limit':<10} {'search':<9} {'lower':<9} {'upper':<9} "
        f"{'lower':>8} {'upper':>8} {'width':>7} {'brackets':>8} {'width':>5}",
    ]
    for mlr, binary in zip(comparison.mlr, comparison.binary, strict=True):
        limit = truth.limit_fraction(mlr.goal.loss_ratio)
        lines.append(_result_line("MLRsearch", mlr, limit))
        lines.append(_result_line("binary", binary, limit))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--final-trial-s", type=float, default=RFC2544_TRIAL_DURATION_S)
    parser.add_argument("--width", type=float, default=DEFAULT_RELATIVE_WIDTH)
    args = parser.parse_args(argv)
    goals = (
        SearchGoal.ndr(relative_width=args.width, final_trial_duration_s=args.final_trial_s),
        SearchGoal.pdr(relative_width=args.width, final_trial_duration_s=args.final_trial_s),
    )
    print(
        f"NDR + PDR ({goals[1].loss_ratio:.1%} loss), width {args.width:.1%}, "
        f"final trials {args.final_trial_s:g} s; MLRsearch: one search, "
        f"binary: one search per goal"
    )
    mlr_total = binary_total = 0.0
    for dut in bench_duts():
        comparison = compare(dut, goals)
        print("\n".join(report(comparison)))
        mlr_total += comparison.mlr_seconds
        binary_total += comparison.binary_seconds
    overall = mlr_total / binary_total
    verdict = "meets" if overall <= TARGET_RATIO else "MISSES"
    print(
        f"overall: trial seconds MLRsearch {mlr_total:.1f} / binary {binary_total:.1f} = "
        f"{overall:.3f} ({verdict} target <= {TARGET_RATIO})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
