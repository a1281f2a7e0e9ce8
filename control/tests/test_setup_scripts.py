"""The set-up scripts' decisions that a new user meets first: an unreachable source says so
at once with the ways out, a local mirror directory is used as one, and a missing toolchain
is a skip for a user but a failure for CI."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "scripts" / "toolchain" / "build-from-source.sh"
REQUIRE = REPO / "scripts" / "toolchain" / "require.sh"


def run_script(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env}, check=False)


def test_unreachable_sources_fail_fast_naming_both_ways_out(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_script([str(BUILD), "bmv2"], {"P4LANG_GIT": str(tmp_path / "no-such-mirror"),
                                             "P4_BUILD_DIR": str(tmp_path / "build")})
    assert done.returncode == 1
    assert time.monotonic() - started < 60
    assert "cannot reach p4lang's sources at " + str(tmp_path / "no-such-mirror") in done.stderr
    assert "P4_TOOLCHAIN_DIR=/path/to/archives make setup" in done.stderr
    assert "P4LANG_GIT=" in done.stderr
    # The steps after the failed one did not run.
    assert sorted(p.name for p in (tmp_path / "build" / "logs").iterdir()) == ["reach.log"]


def test_a_directory_of_mirrors_serves_as_p4lang_git(tmp_path: Path) -> None:
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "init", "-q", "--bare", str(mirrors / "p4lang+p4runtime" / "repo")],
                   check=True)
    done = run_script([str(BUILD), "bmv2", "reach"], {"P4LANG_GIT": str(mirrors),
                                                      "P4_BUILD_DIR": str(tmp_path / "build")})
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "build" / "logs" / "reach.log").read_text()
    assert log == f"reached {mirrors / 'p4lang+p4runtime' / 'repo'}\n"
    assert "[1/1] reach done" in done.stdout


def test_an_unknown_step_is_named(tmp_path: Path) -> None:
    done = run_script([str(BUILD), "bmv2", "compile-everything"],
                      {"P4_BUILD_DIR": str(tmp_path / "build")})
    assert done.returncode == 2
    steps = "reach deps-bmv2 sources-bmv2 pi bmv2 p4c"
    assert f"unknown step 'compile-everything' ({steps})" in done.stderr


def skip_or_fail(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = f'source {REQUIRE}; skip_or_fail "PTF suite" "simple_switch_grpc is not installed"'
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10,
                          env={**os.environ, "CI": "", "REQUIRE_P4_TOOLCHAIN": "", **env},
                          check=False)


def test_a_missing_toolchain_is_a_skip_for_a_user() -> None:
    done = skip_or_fail({})
    assert done.returncode == 0
    assert done.stdout.startswith("PTF suite SKIPPED: simple_switch_grpc is not installed")


def test_a_missing_toolchain_fails_ci() -> None:
    for env in ({"CI": "true"}, {"REQUIRE_P4_TOOLCHAIN": "1"}):
        done = skip_or_fail(env)
        assert done.returncode == 1
        assert done.stderr.startswith("PTF suite FAILED: simple_switch_grpc is not installed;")
