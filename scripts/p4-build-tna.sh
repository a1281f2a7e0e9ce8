#!/usr/bin/env bash
# p4-build-tna.sh [--update]: compiles the Tofino program (p4src/tna/tester.p4) with
# bf-p4c, p4c's open-source Tofino backend, for Tofino 1 (tna) and Tofino 2 (t2na)
# into build-tna/tofino and build-tna/tofino2, prints each build's resource table,
# and checks:
#   - p4test type-checks the program against the TNA include files;
#   - each target compiles, Tofino 1 within MAX_STAGES_TOFINO (11 of its 12 MAU
#     stages since ARP/ND: one stage left for users), Tofino 2 within MAX_STAGES_TOFINO2
#     (13 of its 20: the 11 it takes, as docs/tofino.md's resource table says, plus a
#     margin of 2 stages, so a program change that costs stages is seen, not absorbed);
#   - the committed schema p4src/build/tna/<target>.bfrt.json (what the BfRt driver's
#     names are tested against) equals the fresh one; --update rewrites it instead;
#   - docs/tofino.md's resource table holds each build's row as measured.
# The last line is "build-tna: N passed, N failed"; the exit status is 0 iff none failed.
# Without bf-p4c the checks are skipped (one line says why), unless CI=true or
# REQUIRE_P4_TOOLCHAIN=1, where that is a failure.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
program=p4src/tna/tester.p4
out=build-tna
committed=p4src/build/tna
MAX_STAGES_TOFINO=${MAX_STAGES_TOFINO:-11}
MAX_STAGES_TOFINO2=${MAX_STAGES_TOFINO2:-13}
update=0
[ "${1:-}" = --update ] && update=1

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "build-tna: ok: $*"; }
fail() { failed=$((failed + 1)); echo "build-tna: FAILED: $*"; }
finish() {
  echo "build-tna: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}
required() { [ "${CI:-}" = true ] || [ "${REQUIRE_P4_TOOLCHAIN:-0}" = 1 ]; }

# bf-p4c: the user's choice, then PATH, then where install-p4-toolchain.sh puts it.
bf_p4c=${BF_P4C:-}
if [ -z "$bf_p4c" ]; then
  if command -v bf-p4c >/dev/null 2>&1; then bf_p4c=$(command -v bf-p4c)
  elif [ -x /opt/p4tofino/bin/bf-p4c ]; then bf_p4c=/opt/p4tofino/bin/bf-p4c
  fi
fi
if [ -z "$bf_p4c" ] || [ ! -x "$bf_p4c" ]; then
  reason="bf-p4c (p4c's Tofino backend) is not installed: not in \$BF_P4C, on PATH or in /opt/p4tofino/bin"
  fix="install it with 'make setup-tofino' (builds it from source) or 'P4_TOOLCHAIN_DIR=<archive dir> make setup'"
  if required; then
    fail "$reason; CI=true / REQUIRE_P4_TOOLCHAIN=1 require it: $fix"
  else
    echo "build-tna SKIPPED: $reason ($fix)"
  fi
  finish
fi
tools=$(dirname "$bf_p4c")
python=.venv/bin/python
[ -x "$python" ] || python=python3
export PYTHONPATH="$here/control${PYTHONPATH:+:$PYTHONPATH}"

mkdir -p "$out"

# ---- p4test: language errors, against the TNA files that come with bf-p4c ----------
tna_include=""
for dir in "${TNA_P4INCLUDE:-}" "$tools/../share/p4c/p4include" \
           "${SDE_INSTALL:+$SDE_INSTALL/share/p4c/p4include}"; do
  if [ -n "$dir" ] && [ -f "$dir/tna.p4" ]; then tna_include=$dir; break; fi
done
p4test=$(command -v p4test || true)
[ -n "$p4test" ] || { [ -x "$tools/p4test" ] && p4test=$tools/p4test; }
if [ -z "$p4test" ] || [ -z "$tna_include" ]; then
  echo "build-tna: type-check not run: no p4test, or no tna.p4 (set TNA_P4INCLUDE)"
else
  # p4test's flow analysis does not follow values into RegisterAction bodies: its
  # uninitialized-use warnings here are all of that kind, so they are silenced.
  if "$p4test" -D__TARGET_TOFINO__=1 -I "$tna_include" --Wdisable=uninitialized_use \
       "$program" >"$out/p4test.log" 2>&1; then
    pass "p4test type-checks $program against $tna_include/tna.p4"
  else
    cat "$out/p4test.log"
    fail "p4test rejects $program"
  fi
fi

# ---- bf-p4c: compile, fit, resources, schema ----------------------------------------
built=()
budgets=()
for spec in "tofino tna $MAX_STAGES_TOFINO" "tofino2 t2na $MAX_STAGES_TOFINO2"; do
  read -r target arch max_stages <<<"$spec"
  flags=()
  # This backend's assembler rejects its own Tofino 2 CLOT layout ("No length for clot 0").
  [ "$target" = tofino2 ] && flags+=(-Xp4c=--no-clot)
  rm -rf "${out:?}/$target"
  echo "build-tna: $bf_p4c --target $target --arch $arch ${flags[*]} -g --verbose 2 -I p4src -o $out/$target $program"
  if ! "$bf_p4c" --target "$target" --arch "$arch" "${flags[@]}" -g --verbose 2 -I p4src \
         -o "$out/$target" "$program" >"$out/$target.log" 2>&1; then
    grep -E "error|Error|rror:" "$out/$target.log" | head -20
    fail "$target: bf-p4c does not compile $program (log: $out/$target.log)"
    continue
  fi
  built+=("$target=$out/$target")
  budgets+=(--max-stages "$target=$max_stages")

  fresh=$out/$target/bfrt.json
  schema=$committed/$target.bfrt.json
  # Rewritten only when it differs in substance: the compiler renumbers its snapshot
  # tables from one compile to the next (schema.py), which is no change to commit.
  if [ "$update" = 1 ] && ! "$python" -m p4tester.targets.tofino.schema same "$fresh" "$schema"; then
    mkdir -p "$committed"
    cp "$fresh" "$schema"
    echo "build-tna: wrote $schema"
  fi
  if "$python" -m p4tester.targets.tofino.schema same "$fresh" "$schema"; then
    pass "$target: $schema is up to date"
  else
    fail "$target: $schema is stale or missing: run 'bash scripts/p4-build-tna.sh --update' and commit it"
  fi
done

if [ "${#built[@]}" -gt 0 ]; then
  # One row per build; a build over its stage budget fails here.
  # The tester's own program: docs/tofino.md's resource table must be what was measured.
  doc_check=()
  [ "$program" = p4src/tna/tester.p4 ] && doc_check=(--doc docs/tofino.md)
  report=$("$python" -m p4tester.targets.tofino.resources "${budgets[@]}" "${doc_check[@]}" \
           "${built[@]}")
  status=$?
  echo "$report"
  if [ "${#doc_check[@]}" -gt 0 ] && [ "$status" -ne 2 ]; then
    if grep -q "^resources: docs/tofino.md does not state" <<<"$report"; then
      fail "docs/tofino.md's resource table is not what was measured: copy the rows above"
    else
      pass "docs/tofino.md states the resources measured"
    fi
  fi
  for item in "${built[@]}"; do
    target=${item%%=*}
    if [ "$status" -eq 2 ]; then
      fail "$target: no resource logs to check the stage budget"
    elif grep -q "^resources: $target uses" <<<"$report"; then
      fail "$target: compiles but exceeds its MAU stage budget"
    else
      pass "$target: compiles within its MAU stage budget"
    fi
  done
fi
finish
