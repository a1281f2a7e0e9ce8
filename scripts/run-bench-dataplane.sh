#!/usr/bin/env bash
# `make bench`, data-plane part, on BMv2:
# 1. capacity (p4tester.bench.capacity): the tester's loopback loss-free rate with the
#    measurement build (64/512/1518 B) and the "before" set-up (64 B), and plain
#    forwarding's loss-free rate, side by side in this run, with the ratios (each side
#    5 times);
# 2. with the measurement build (what the labs run): checker vs plain forwarding's
#    loss-free rates, the generator's rate error, and the tester's capacity from step 1
#    next to it;
# 3. the eBPF tester's loopback (p4tester.bench.ebpf_loopback);
# 4. the eBPF sender's rate through the trial loop (p4tester.bench.ebpf_sender);
# 5. what varying a stream's fields costs the BMv2 tester (p4tester.bench.flows_cost).
set -euo pipefail
venv=${1:-.venv}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
if ! command -v p4c-bm2-ss >/dev/null 2>&1 || ! command -v simple_switch_grpc >/dev/null 2>&1; then
  echo "bench (data plane) SKIPPED: p4c-bm2-ss and simple_switch_grpc are not installed"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (veth pairs, raw sockets)" >&2; exit 1; }
capacity=$here/run/bench-capacity
rundir=$here/run/bench
cleanup() {
  "$venv/bin/python" -m p4tester.lab --rundir "$capacity/lab" down >/dev/null
  "$venv/bin/python" -m p4tester.lab --rundir "$rundir" down >/dev/null
}
trap cleanup EXIT
rm -rf "$capacity"
# The capacity legs bring their labs up and down one at a time (they share interface names).
"$venv/bin/python" -m p4tester.bench.capacity --rundir "$capacity" --repetitions 5
# 5. (its own bench-loopback lab, before the forwarding lab takes the interfaces)
"$venv/bin/python" -m p4tester.bench.flows_cost --rundir "$here/run/bench-flows" --rounds 3
"$venv/bin/python" -m p4tester.lab --rundir "$rundir" up topologies/bench.yaml
"$venv/bin/python" -m p4tester.bench.dataplane --grpc 127.0.0.1:59561 \
  --thrift-port 59091 --iface-in p4lh1 --iface-out p4lh2 \
  --calibration "$capacity/calibrate-measurement/stored.json" "${@:2}"
# 3. the eBPF tester's loopback loss-free rate next to the host's ceiling for the same path
#    and to step 1's BMv2 figure (issue 23).
if [ -x /opt/p4c-ebpf/bin/p4c-ebpf ]; then
  "$venv/bin/python" -m p4tester.bench.ebpf_loopback \
    --bmv2-calibration "$capacity/calibrate-measurement/stored.json"
  # 4. whether the eBPF sender holds 26 000 and 200 000 frames/s through the trial loop
  #    (issue 41): run it under ../shared/busy-host.sh too.
  bash scripts/p4-build-ebpf.sh build/ebpf
  "$venv/bin/python" -m p4tester.bench.ebpf_sender
else
  echo "bench (eBPF) SKIPPED: p4c-ebpf is not installed (make setup-ebpf)"
fi
