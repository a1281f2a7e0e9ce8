#!/usr/bin/env bash
# `make bench`, data-plane part: BMv2 with two veth pairs; prints measured ratios.
set -euo pipefail
venv=${1:-.venv}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
source scripts/lib-bmv2.sh
if ! have_p4_toolchain; then
  echo "bench (data plane) SKIPPED: p4c-bm2-ss and simple_switch_grpc are not installed"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (veth pairs, raw sockets)" >&2; exit 1; }
prefix=p4tb
rundir=$here/run/bench
grpc_port=59561
thrift_port=59091
cleanup() { switch_stop "$rundir"; veth_down "$prefix" 2; }
trap cleanup EXIT
veth_up "$prefix" 2
switch_start "$rundir" "$grpc_port" "$thrift_port" "1@${prefix}1s" "2@${prefix}2s"
# The bench forks its frame sender; gRPC's fork handlers are not needed there.
GRPC_ENABLE_FORK_SUPPORT=0 "$venv/bin/python" -m p4tester.bench.dataplane --grpc "127.0.0.1:$grpc_port" \
  --thrift-port "$thrift_port" --iface-in "${prefix}1h" --iface-out "${prefix}2h" "${@:2}"
