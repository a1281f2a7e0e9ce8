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
# First, whether this host carries the lab: the tester's own loss-free rate at 64 B against
# what the lab needs (twice its DUT's limit, its ports' line rate); too slow: say so and stop.
"$venv/bin/python" -m p4tester.lab up topologies/loopback.yaml >/dev/null
rm -rf "$out-calibrate"
"$venv/bin/p4tester" calibrate -t topologies/loopback.yaml -o "$out-calibrate" --push-pipeline \
  --store "$out-calibrate/stored.json" --frame-sizes 64 --repetitions 3 --require-for "$topology"
"$venv/bin/python" -m p4tester.lab up "$topology"
rm -rf "$out"
"$venv/bin/p4tester" throughput -t "$topology" -p "$profile" -o "$out" --push-pipeline \
  --frame-sizes 64,512,1518 --duration 1
