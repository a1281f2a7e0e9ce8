"""Poisson thinning (16): the generator's packets of one pipe dropped by the random
draw at a threshold, against the same application's packets in a pipe that keeps
all, at three thresholds. A uniform 16-bit draw drops threshold / 65536 of them."""

from __future__ import annotations

import math
from typing import Final

from p4tester.targets.tofino import names
from p4tester.targets.tofino.apps import pipe_budgets
from p4tester.targets.tofino.first_contact.bench import Bench, Setup
from p4tester.targets.tofino.first_contact.findings import (
    Finding,
    not_checked,
    refuted,
    verified,
)
from p4tester.targets.tofino.first_contact.loop import ENDLESS, looped_target
from p4tester.targets.tofino.first_contact.timer_checks import one_packet, start_timed
from p4tester.targets.tofino.hardware import pipe_of
from p4tester.targets.tofino.poisson import DRAWS
from p4tester.targets.tofino.ports import resolve_dev_ports
from p4tester.targets.tofino.state import read_generated

PERIOD_NS: Final = 1000
PACKETS: Final = 1 << 16  # per threshold
THRESHOLDS: Final = (DRAWS // 4, DRAWS // 2, 3 * DRAWS // 4)
SIGMAS: Final = 5.0  # a binomial count further off than this is not chance
NAME: Final = "Poisson thinning"


def check_thinning(bench: Bench, setup: Setup) -> list[Finding]:
    dev = resolve_dev_ports(bench.client, setup.front_panel.values())
    firsts: dict[int, int] = {}
    for port in setup.ports:
        firsts.setdefault(pipe_of(dev[setup.front_panel[port]]), port)
    if len(firsts) < 2:
        return [not_checked(16, NAME, "the topology's ports are all in one pipe",
                            "name ports of two pipes in the topology")]
    thinned_port, kept_port = sorted(firsts.values())[:2]
    target = looped_target(bench, setup, (thinned_port, kept_port))
    start_timed(bench, target, [one_packet(PERIOD_NS)])
    app = target.apps[0]
    thinned = pipe_of(target.dev_ports[thinned_port])
    kept = pipe_of(target.dev_ports[kept_port])
    budget = pipe_budgets(app, ENDLESS)[thinned]
    shares = []
    for threshold in THRESHOLDS:
        bench.client.modify_entry(
            names.GEN_APPS, {names.GEN_APPS_PIPE_KEY: thinned, names.GEN_APPS_KEY: app.app_id},
            {names.GEN_RUN_GROUP: app.mcast_group, names.GEN_RUN_BUDGET: budget,
             names.GEN_RUN_DROP_BELOW: threshold}, action=names.GEN_RUN)
        before = read_generated(bench.client, [app.app_id])[app.app_id]
        bench.wait_ns(PACKETS * PERIOD_NS)
        after = read_generated(bench.client, [app.app_id])[app.app_id]
        offered = after[kept].made - before[kept].made
        dropped = offered - (after[thinned].made - before[thinned].made)
        share = threshold / DRAWS
        allowed = SIGMAS * math.sqrt(share * (1 - share) / max(offered, 1))
        shares.append(f"{100 * dropped / max(offered, 1):.1f} %")
        if abs(dropped / max(offered, 1) - share) > allowed:
            target.stop_trial()
            return [refuted(16, NAME, f"at a threshold of {threshold} of {DRAWS} the draw "
                            f"dropped {100 * dropped / max(offered, 1):.1f} % of {offered} "
                            f"packets, not {100 * share:.1f} % (+- {100 * allowed:.1f} %)",
                            "the random unit is not uniform: Poisson trials' rates and "
                            "gaps are wrong on this switch; use constant-rate shapes")]
    target.stop_trial()
    wanted = ", ".join(f"{100 * t / DRAWS:.0f} %" for t in THRESHOLDS)
    return [verified(16, NAME, f"thresholds of {wanted} dropped {', '.join(shares)} of "
                     f"{PACKETS} packets each, within {SIGMAS:g} sigma; the gaps' spacing "
                     "needs a capture of a Poisson trial")]
