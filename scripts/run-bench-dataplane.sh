#!/usr/bin/env bash
# `make bench`, data-plane part: BMv2 with two veth pairs; prints measured ratios.
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
cleanup() { "$venv/bin/python" -m p4tester.lab --rundir "$rundir" down >/dev/null; }
trap cleanup EXIT
"$venv/bin/python" -m p4tester.lab --rundir "$rundir" up topologies/bench.yaml
"$venv/bin/python" -m p4tester.bench.dataplane --grpc 127.0.0.1:59561 \
  --thrift-port 59091 --iface-in p4lh1 --iface-out p4lh2 "${@:2}"
