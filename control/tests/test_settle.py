"""The wait before a trial until the DUT has drained (tester.settle, issue 42), against
a simulated DUT that delivers a backlog at a known rate: exact waits, the bound, and
the longer wait after a trial the DUT had not drained for. Time passes only in sleep."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.config.profile import TrialConfig, load_profile
from p4tester.otg.switch_driver import DRAIN_S, MAX_DRAIN_S
from p4tester.results.settle import SettleRecord, longest_drain
from p4tester.search.trials import NOT_DRAINED_ATTEMPTS
from p4tester.tester.settle import QUIET_GROWTH, SETTLE_READ_S, next_quiet_s, wait_for_drain


class DrainingDut:
    """Delivers `backlog` frames at `rate_pps` from time 0, then nothing."""

    def __init__(self, backlog: int, rate_pps: float) -> None:
        self.backlog, self.rate_pps = backlog, rate_pps
        self.now = 0.0
        self.reads = 0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.now += seconds

    def arrived(self) -> int:
        self.reads += 1
        return min(self.backlog, int(self.now * self.rate_pps + 1e-9))


def figures(settle: SettleRecord) -> tuple[float, int, float, bool]:
    return round(settle.waited_s, 9), settle.frames, settle.quiet_s, settle.drained


def test_a_drained_dut_waits_only_the_quiet_time() -> None:
    dut = DrainingDut(0, 100.0)
    settle = wait_for_drain(dut.arrived, dut.clock, dut.sleep, quiet_s=0.5, max_s=60.0)
    assert figures(settle) == (0.5, 0, 0.5, True)
    assert dut.reads == 6  # at 0, then every 0.1 s


def test_the_time_since_the_last_trial_counts_when_nothing_arrived() -> None:
    dut = DrainingDut(0, 100.0)
    dut.now = 10.0
    settle = wait_for_drain(dut.arrived, dut.clock, dut.sleep, 0.5, 60.0, quiet_since=9.7)
    assert figures(settle) == (0.2, 0, 0.5, True)
    dut.now = 20.0
    assert wait_for_drain(dut.arrived, dut.clock, dut.sleep, 0.5, 60.0, quiet_since=19.0) \
        == SettleRecord(0.0, 0, 0.5)


def test_a_draining_dut_is_waited_for_until_it_stops_and_then_the_quiet_time() -> None:
    # 2700 frames at 100 frames/s (the deep-queue lab): the last at 27 s, seen at the
    # read at 27.0 s; then 0.5 s without any.
    dut = DrainingDut(2700, 100.0)
    settle = wait_for_drain(dut.arrived, dut.clock, dut.sleep, 0.5, 60.0)
    assert settle.drained and settle.frames == 2700
    assert settle.waited_s == pytest.approx(27.5, abs=SETTLE_READ_S + 1e-9)


def test_a_dut_still_delivering_at_the_bound_is_not_drained() -> None:
    dut = DrainingDut(10_000, 100.0)
    settle = wait_for_drain(dut.arrived, dut.clock, dut.sleep, 0.5, 30.0)
    assert figures(settle) == (30.0, 3000, 0.5, False)


def test_no_quiet_time_asked_reads_once() -> None:
    dut = DrainingDut(5, 100.0)
    assert wait_for_drain(dut.arrived, dut.clock, dut.sleep, 0.0, 60.0) == SettleRecord(0.0, 0, 0.0)
    assert dut.reads == 1


def test_after_a_trial_the_dut_had_not_drained_for_the_next_waits_twice_as_long() -> None:
    assert next_quiet_s(0.5, 0.5, 60.0, drained=False) == 1.0
    assert next_quiet_s(1.0, 0.5, 60.0, drained=False) == 2.0
    assert next_quiet_s(40.0, 0.5, 60.0, drained=False) == 60.0  # never beyond the bound
    assert next_quiet_s(0.0, 0.0, 60.0, drained=False) == 2 * SETTLE_READ_S
    assert next_quiet_s(8.0, 0.5, 60.0, drained=True) == 0.5  # back to the profile's


def test_the_readme_states_the_settle_rule_the_loop_applies() -> None:
    doc = Path(__file__).resolve().parents[2] / "docs/concepts.md"
    readme = " ".join(doc.read_text().split())
    defaults = TrialConfig()
    assert (f"`trial:`, {defaults.settle_s:g} s by default; the bundled profiles say their lab "
            "DUTs hold no more than their `drain_s`), re-reading every "
            f"{SETTLE_READ_S:g} s for at most `settle_max_s` ({defaults.settle_max_s:g} s by "
            "default)") in readme
    assert f"after {NOT_DRAINED_ATTEMPTS} tries that frame size is not measured" in readme
    assert QUIET_GROWTH == 2 and "each time after twice the quiet time" in readme
    for profile in (Path(__file__).resolve().parents[2] / "topologies/profiles").glob("*.yaml"):
        trial = load_profile(profile).trial
        if profile.name != "tofino-32x100g.yaml":  # a hardware DUT: RFC 2544's 2 s
            assert trial.settle_s == trial.drain_s, profile.name


def test_the_otg_guide_states_the_wait_before_a_start() -> None:
    guide = " ".join((Path(__file__).resolve().parents[2] / "docs/otg.md").read_text().split())
    assert (f"for the driver's drain time ({DRAIN_S:g} s; at most {MAX_DRAIN_S * 2:g} s)"
            in guide)


def test_the_longest_drain_is_the_longest_delivering_time_of_any_wait() -> None:
    # Waits of 10.4 s (2970 frames, then 0.5 s quiet) and 1.0 s (90 frames): the DUT
    # delivered for 9.9 s at 300 frames/s.
    drain = longest_drain([SettleRecord(1.0, 90, 0.5), None, SettleRecord(10.4, 2970, 0.5),
                           SettleRecord(0.5, 0, 0.5)])
    assert drain is not None
    assert (round(drain.seconds, 9), drain.frames, round(drain.rate_pps)) == (9.9, 2970, 300)
    assert drain.describe() == ("the DUT kept delivering earlier trials' frames for up to "
                                "9.9 s after their drain (2970 frames, 300 frames/s)")
    assert longest_drain([SettleRecord(0.5, 0, 0.5), None]) is None
