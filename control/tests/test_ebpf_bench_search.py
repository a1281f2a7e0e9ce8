"""The eBPF loopback bench's trial verdict and rate search, on made-up trials."""

from __future__ import annotations

from collections.abc import Callable

from p4tester.bench.bpf_cost import ProgramRuns
from p4tester.bench.ebpf_loopback import Leg, Round, Trial, render, search


def trial_at(ceiling_fps: float) -> Callable[[float], Trial]:
    """A path that carries everything up to ceiling_fps and sends no faster."""
    def run(asked: float) -> Trial:
        sent_fps = min(asked, ceiling_fps)
        return Trial(asked, int(sent_fps), int(sent_fps), 1.0, 0, 0.0)
    return run


def test_a_trial_passes_only_at_the_rate_it_asked_for() -> None:
    assert Trial(100_000, 100_000, 100_000, 1.0, 0, 0.0).passed
    assert not Trial(100_000, 100_000, 99_999, 1.0, 0, 0.0).passed  # one frame lost
    assert not Trial(100_000, 97_000, 97_000, 1.0, 0, 0.0).passed  # sent 3 % slow
    assert Trial(100_000, 98_000, 98_000, 1.0, 0, 0.0).passed  # within 2 %
    assert not Trial(100_000, 0, 0, 1.0, 0, 0.0).passed


def test_search_doubles_then_halves_the_interval() -> None:
    rate, trials = search(trial_at(700_000), 200_000)
    assert [t.asked_fps for t in trials] == [200_000, 400_000, 800_000, 600_000, 700_000,
                                             750_000, 725_000, 712_500, 718_750]
    # 712 500 asked, 700 000 sent: within the 2 % a trial may fall short of its rate.
    assert rate == 712_500


def _leg(loss_free_fps: float) -> Leg:
    return Leg(loss_free_fps, [Trial(loss_free_fps, int(loss_free_fps), int(loss_free_fps),
                                     1.0, 0, 0.0)],
               {"checker ingress, per frame": ProgramRuns(1000, 301_000)})


def _summary(rounds: list[Round], bmv2_fps: float | None = None) -> list[str]:
    """The lines after the trials and the program costs."""
    return render(32, rounds, bmv2_fps).splitlines()[-4 if bmv2_fps else -3:]


def test_the_share_of_the_plain_ceiling_is_taken_round_by_round() -> None:
    rounds = [Round(_leg(800_000), _leg(1_600_000)), Round(_leg(825_000), _leg(1_500_000)),
              Round(_leg(450_000), _leg(1_550_000))]
    assert _summary(rounds, 4400) == [
        "  tester loss-free frames/s: median 800000 (800000, 825000, 450000; spread 83%); "
        "target >= 500000: met",
        "  plain replicate+redirect loss-free frames/s: median 1550000 (1600000, 1500000, "
        "1550000; spread 7%)",
        "  share of the plain ceiling, round by round: median 0.50 (0.50, 0.55, 0.29); "
        "target >= 0.5: met",
        "  BMv2 tester loopback (this run's calibrate, measurement build) 4400 frames/s: the "
        "eBPF tester carries 182x as much"]


def test_a_plain_ceiling_that_swung_gives_no_share() -> None:
    """The issue's bench: plain forwarding 11 k in one run, 58 k in another; here
    1 300 000 and 1 600 000 in two rounds (23 %)."""
    rounds = [Round(_leg(525_000), _leg(1_300_000)), Round(_leg(800_000), _leg(1_600_000))]
    assert _summary(rounds)[1:] == [
        "  plain replicate+redirect loss-free frames/s: median 1450000 (1300000, 1600000; "
        "spread 23%)",
        "  share of the plain ceiling: not measured (the plain ceiling swung 23.1% between "
        "repetitions, more than 20%)"]
    assert _summary([Round(_leg(400_000), _leg(0.0))])[0].endswith("target >= 500000: NOT met")
    assert _summary([Round(_leg(400_000), _leg(0.0))])[2] == (
        "  share of the plain ceiling: not measured (the plain ceiling measured nothing in a "
        "repetition)")
