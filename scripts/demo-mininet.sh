#!/usr/bin/env bash
# `make demo-mininet`: a Mininet network as the DUT. Brings the network up (default: the
# tutorials-format exercise topologies/tutorials/basic with the tester in place of hosts
# h1 and h2), searches NDR and PDR, runs a latency test below the NDR, prints the tables,
# keeps results and plots, always takes the network down, and then checks that no link,
# namespace or process of the lab is left (exit 1 if one is).
# Usage: scripts/demo-mininet.sh [VENV] [OUT] [TOPOLOGY] [PROFILE]
set -euo pipefail
venv=${1:-.venv}
out=${2:-results/demo-mininet}
topology=${3:-topologies/mininet-tutorials-basic.yaml}
profile=${4:-topologies/tutorials/basic/profile.yaml}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
py="$venv/bin/python"
rundir=run/lab-mininet

links() { ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort; }
namespaces() { ip netns list | awk '{print $1}' | sort; }
lab_processes() { pgrep -f 'simple_switch_grpc|mininet:|p4tester.lab.mininet.keeper' | sort || true; }

links >"${TMPDIR:-/tmp}/demo-mininet.links.before"
namespaces >"${TMPDIR:-/tmp}/demo-mininet.netns.before"
processes_before=$(lab_processes)

check_clean() {
  local dirty=0
  if ! links | diff -q - "${TMPDIR:-/tmp}/demo-mininet.links.before" >/dev/null; then
    echo "demo-mininet: links left behind:"; links | diff - "${TMPDIR:-/tmp}/demo-mininet.links.before" || true
    dirty=1
  fi
  if ! namespaces | diff -q - "${TMPDIR:-/tmp}/demo-mininet.netns.before" >/dev/null; then
    echo "demo-mininet: namespaces left behind"; dirty=1
  fi
  local left
  left=$(comm -23 <(lab_processes) <(echo "$processes_before"))
  if [ -n "$left" ]; then
    echo "demo-mininet: processes left behind: $left"; dirty=1
  fi
  [ $dirty = 0 ] && echo "demo-mininet: machine as found (links, namespaces, processes)"
  return $dirty
}

finish() {
  local status=$?
  "$py" -m p4tester.lab --rundir "$rundir" down >/dev/null || status=1
  check_clean || status=1
  exit $status
}
trap finish EXIT

"$py" -m p4tester.lab --rundir "$rundir" up "$topology"
rm -rf "$out"
"$venv/bin/p4tester" throughput -t "$topology" -p "$profile" -o "$out/throughput" \
  --push-pipeline --frame-sizes 64 --duration 2
"$venv/bin/p4tester" latency -t "$topology" -p "$profile" -o "$out/latency" \
  --frame-size 64 --load 30% --trials 2 --duration 1
echo "plots: $(ls "$out"/*/*.png | tr '\n' ' ')"
