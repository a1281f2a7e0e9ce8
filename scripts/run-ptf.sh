#!/usr/bin/env bash
# Runs the PTF suite on BMv2: veth pairs, a simple_switch_grpc, ptf; cleans up
# whatever happens. Skips, saying so in one line, when the toolchain is absent (fails under CI=true).
set -euo pipefail
venv=${1:-.venv}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

source scripts/toolchain/require.sh
if ! command -v p4c-bm2-ss >/dev/null 2>&1 || ! command -v simple_switch_grpc >/dev/null 2>&1; then
  skip_or_fail "PTF suite" "p4c-bm2-ss and simple_switch_grpc are not installed"
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ptf: needs root (veth pairs, raw sockets); run: sudo make ptf" >&2
  exit 1
fi

topology=topologies/ptf.yaml
rundir=$here/run/ptf
grpc_port=59559
thrift_port=59090
ports=4
PTF_TIMEOUT_S=${PTF_TIMEOUT_S:-600}
cleanup() { "$venv/bin/python" -m p4tester.lab --rundir "$rundir" down >/dev/null; }
trap cleanup EXIT
"$venv/bin/python" -m p4tester.lab --rundir "$rundir" up "$topology"
ptf_ifaces=()
for ((i = 1; i <= ports; i++)); do
  # PTF hangs, silently, when one of its interfaces cannot be opened: check them first.
  state=$(cat "/sys/class/net/p4lh$i/operstate" 2>/dev/null || echo absent)
  if [ "$state" != up ]; then
    echo "ptf: interface p4lh$i is $state after the lab came up; not starting PTF" >&2
    echo "ptf: 0 passed, 1 failed"
    exit 1
  fi
  ptf_ifaces+=(--interface "0-$i@p4lh$i")
done

params="grpcaddr='127.0.0.1:$grpc_port';thrift_port=$thrift_port"
params+=";tester_p4info='p4src/build/tester.p4info.txt';tester_json='p4src/build/tester.json'"
params+=";dut_p4info='p4src/build/dut.p4info.txt';dut_json='p4src/build/dut.json'"
set +e
# Bounded: the suite takes about half a minute; a hung PTF must end, and say so.
timeout --signal=TERM --kill-after=10 "$PTF_TIMEOUT_S" "$venv/bin/ptf" --test-dir ptf-tests --pypath "$here/control" --pypath "$here/ptf-tests" \
  "${ptf_ifaces[@]}" --log-file "$rundir/ptf.log" --socket-recv-size 10240 \
  --test-params="$params" "${@:2}" 2>&1 | tee "$rundir/ptf.out"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -eq 124 ]; then echo "ptf: stopped after ${PTF_TIMEOUT_S} s (PTF_TIMEOUT_S)" >&2; fi
# One summary line in the form CI reads ("N passed, N failed").
ran=$(sed -nE 's/^Ran ([0-9]+) tests?.*/\1/p' "$rundir/ptf.out" | tail -n1)
failed=$({ grep -oE '(failures|errors)=[0-9]+' "$rundir/ptf.out" || true; } | awk -F= '{n += $2} END {print n + 0}')
ran=${ran:-0}; failed=${failed:-0}
if [ "$ran" -eq 0 ] || [ "$status" -ne 0 ]; then
  # PTF writes its own errors (an interface it could not open, a crashed dataplane thread)
  # to its log, not to the terminal: show them, and what the switch said.
  echo "ptf: exit status $status after $ran test(s); the end of $rundir/ptf.log:" >&2
  tail -n 30 "$rundir/ptf.log" >&2 || true
  echo "ptf: the switch's output ($rundir/tester.out):" >&2
  tail -n 10 "$rundir/tester.out" >&2 || true
fi
if [ "$ran" -eq 0 ]; then failed=$((failed + 1)); fi
echo "ptf: $((ran - failed < 0 ? 0 : ran - failed)) passed, $failed failed"
if [ "$ran" -eq 0 ]; then exit 1; fi
exit "$status"
