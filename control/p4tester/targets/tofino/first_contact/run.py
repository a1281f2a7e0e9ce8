"""Every first-contact check, in the order of risk the docs give, into one report."""

from __future__ import annotations

from p4tester.targets.tofino.first_contact.bench import Bench, Setup
from p4tester.targets.tofino.first_contact.checker_checks import check_checker
from p4tester.targets.tofino.first_contact.findings import Finding, Report, sorted_report
from p4tester.targets.tofino.first_contact.random_checks import check_thinning
from p4tester.targets.tofino.first_contact.rate_checks import check_generator, check_pipes
from p4tester.targets.tofino.first_contact.static_checks import (
    check_environment,
    check_tables,
    unobservable,
)
from p4tester.targets.tofino.first_contact.timer_checks import check_timers


def run_checks(bench: Bench, setup: Setup) -> Report:
    findings: list[Finding] = []
    findings += check_checker(bench, setup)
    findings += check_pipes(bench, setup)
    findings += check_generator(bench, setup)
    findings += check_timers(bench, setup)
    findings += check_thinning(bench, setup)
    findings += check_tables(bench)
    findings += check_environment(bench)
    findings += unobservable()
    return sorted_report(setup.chip.name, setup.topology, findings)
