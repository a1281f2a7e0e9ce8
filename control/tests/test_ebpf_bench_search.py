"""The eBPF loopback bench's trial verdict and rate search, on made-up trials."""

from __future__ import annotations

from collections.abc import Callable

from p4tester.bench.ebpf_loopback import Trial, search


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
