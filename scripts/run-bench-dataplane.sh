#!/usr/bin/env bash
# `make bench`, data-plane part: first the tester's own capacity on this host
# (p4tester calibrate on the loopback lab), then BMv2 with two veth pairs; prints
# measured ratios, the generator's rate error and, next to it, the loopback NDR.
set -euo pipefail
venv=${1:-.venv}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
if ! command -v p4c-bm2-ss >/dev/null 2>&1 || ! command -v simple_switch_grpc >/dev/null 2>&1; then
  echo "bench (data plane) SKIPPED: p4c-bm2-ss and simple_switch_grpc are not installed"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (veth pairs, raw sockets)" >&2; exit 1; }
rundir=$here/run/bench
calrun=$here/run/bench-calibrate
calibration=$rundir/calibration.json
cleanup() {
  "$venv/bin/python" -m p4tester.lab --rundir "$calrun" down >/dev/null
  "$venv/bin/python" -m p4tester.lab --rundir "$rundir" down >/dev/null
}
trap cleanup EXIT
# The loopback lab and the bench lab share interface names: one at a time.
"$venv/bin/python" -m p4tester.lab --rundir "$calrun" up topologies/loopback.yaml
rm -rf "$calrun/out"
"$venv/bin/python" -m p4tester.cli.main calibrate -t topologies/loopback.yaml \
  -o "$calrun/out" --store "$calibration" --repetitions 3 --frame-sizes 64,512,1518
"$venv/bin/python" -m p4tester.lab --rundir "$calrun" down >/dev/null
"$venv/bin/python" -m p4tester.lab --rundir "$rundir" up topologies/bench.yaml
"$venv/bin/python" -m p4tester.bench.dataplane --grpc 127.0.0.1:59561 \
  --thrift-port 59091 --iface-in p4lh1 --iface-out p4lh2 --calibration "$calibration" "${@:2}"
