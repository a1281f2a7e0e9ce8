# Sourced by the scripts whose suite needs the P4 toolchain. Under CI=true (or
# REQUIRE_P4_TOOLCHAIN=1) a missing tool fails the suite: CI must run everything. Elsewhere the
# suite says in one line that it was skipped and why, so the unit tests still run.

toolchain_required() {
  [ "${CI:-}" = true ] || [ "${REQUIRE_P4_TOOLCHAIN:-0}" = 1 ]
}

# skip_or_fail SUITE REASON: ends the calling script.
skip_or_fail() {
  if toolchain_required; then
    echo "$1 FAILED: $2; CI=true requires it (install: make setup, with P4_TOOLCHAIN_DIR for prebuilt archives)" >&2
    exit 1
  fi
  echo "$1 SKIPPED: $2 (install: make setup; README, 'Install')"
  exit 0
}
