#!/usr/bin/env bash
# The main job in one command: bring up the default lab (tester + BMv2 DUT with a
# 3000 frames/s bottleneck), search NDR and PDR at three frame sizes with short
# trials, print the table, keep results and plots, and always take the lab down.
set -euo pipefail
venv=${1:-.venv}
out=${2:-results/demo}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
topology=topologies/bmv2-dut.yaml
profile=topologies/profiles/one-stream.yaml
trap '"$venv/bin/python" -m p4tester.lab down >/dev/null' EXIT
# First, what the tester carries on this host: its own loss-free rate at 64 B on the
# loopback lab, stored for the search below, which goes no higher than 90 % of it. Where
# that is less than the lab's DUT needs (its limit with a margin), the calibration says
# so and the search reports "NDR >= the tester's capacity here" instead of a DUT figure.
"$venv/bin/python" -m p4tester.lab up topologies/loopback.yaml >/dev/null
rm -rf "$out-calibrate"
status=0
"$venv/bin/p4tester" calibrate -t topologies/loopback.yaml -o "$out-calibrate" --push-pipeline \
  --store "$out-calibrate/stored.json" --frame-sizes 64 --repetitions 3 \
  --require-for "$topology" || status=$?
if [ "$status" -eq 1 ]; then
  echo "demo: this host's tester cannot measure the lab's DUT limit; searching up to its capacity" >&2
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi
"$venv/bin/python" -m p4tester.lab up "$topology"
rm -rf "$out"
"$venv/bin/p4tester" throughput -t "$topology" -p "$profile" -o "$out" --push-pipeline \
  --calibration "$out-calibrate/stored.json" --frame-sizes 64,512,1518 --duration 1
