#!/usr/bin/env bash
# run-tests.sh VENV: `make test`. Runs every suite, even after one fails (a user wants the whole
# picture from one run), then prints one summary line per suite and, last, the total in the form
# CI reads: "total: N passed, N failed[, N skipped]". Exit status 1 when anything failed.
#
# Suites: build freshness (P4Info/BMv2 JSON), Tofino compile (bf-p4c), PTF on BMv2, the checker
# and generator on the eBPF target, end-to-end labs on BMv2, controller unit tests. Each one's full output stays in run/tests/<suite>.log.
set -uo pipefail
venv=${1:-.venv}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
logs=run/tests
mkdir -p "$logs"

suites=(p4info-check build-tna ptf ebpf e2e unit)
declare -A command=(
  [p4info-check]="bash scripts/p4info-check.sh"
  [build-tna]="bash scripts/p4-build-tna.sh"
  [ptf]="bash scripts/run-ptf.sh $venv"
  [ebpf]="$venv/bin/python -m pytest -q -p no:cacheprovider control/tests_ebpf"
  [e2e]="$venv/bin/python -m pytest -q -p no:cacheprovider control/tests_e2e"
  [unit]="$venv/bin/python -m pytest -q control/tests"
)
declare -A passed failed skipped seconds

# count WORD LINE: the number before WORD in a pytest closing line ("3 failed, 10 passed in 2s").
count() { grep -oE "[0-9]+ $1" <<<"$2" | grep -oE '^[0-9]+' || echo 0; }

# tally SUITE STATUS LOG: passed/failed/skipped of one suite from its own closing line.
tally() {
  local suite=$1 status=$2 log=$3 line
  passed[$suite]=0 failed[$suite]=0 skipped[$suite]=0
  case "$suite" in
    p4info-check)
      if grep -q SKIPPED "$log"; then skipped[$suite]=1
      elif [ "$status" -eq 0 ]; then passed[$suite]=1
      else failed[$suite]=1; fi
      return ;;
    build-tna | ptf)
      line=$(grep -E "^$suite: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
      if grep -q SKIPPED "$log"; then skipped[$suite]=1; fi ;;
    ebpf | e2e | unit)
      line=$(grep -E '^(=+ )?[0-9]+ (passed|failed|errors?|skipped)' "$log" | tail -n 1)
      skipped[$suite]=$(count skipped "$line") ;;
  esac
  passed[$suite]=$(count passed "$line")
  failed[$suite]=$(( $(count failed "$line") + $(count 'errors?' "$line") ))
  # A suite that failed without a closing line (it could not start, or crashed) counts once.
  if [ "$status" -ne 0 ] && [ "${failed[$suite]}" -eq 0 ]; then failed[$suite]=1; fi
}

for suite in "${suites[@]}"; do
  echo "==== $suite: ${command[$suite]}"
  started=$(date +%s)
  ${command[$suite]} 2>&1 | tee "$logs/$suite.log"
  status=${PIPESTATUS[0]}
  seconds[$suite]=$(( $(date +%s) - started ))
  tally "$suite" "$status" "$logs/$suite.log"
done

echo
echo "==== summary (full output in $logs/)"
total_passed=0 total_failed=0 total_skipped=0
for suite in "${suites[@]}"; do
  note=""
  [ "${skipped[$suite]}" -gt 0 ] && note=", ${skipped[$suite]} skipped"
  printf '%-13s %s passed, %s failed%s (%s s)\n' "$suite:" "${passed[$suite]}" "${failed[$suite]}" \
    "$note" "${seconds[$suite]}"
  total_passed=$((total_passed + passed[$suite]))
  total_failed=$((total_failed + failed[$suite]))
  total_skipped=$((total_skipped + skipped[$suite]))
done
note=""
[ "$total_skipped" -gt 0 ] && note=", $total_skipped skipped"
echo "total: $total_passed passed, $total_failed failed$note"
[ "$total_failed" -eq 0 ]
