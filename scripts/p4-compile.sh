#!/usr/bin/env bash
# p4-compile.sh OUTDIR: compiles every program of scripts/p4-programs.sh into
# OUTDIR/<name>.json (BMv2) and OUTDIR/<name>.p4info.txt (P4Info, text).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
out=${1:-p4src/build}
source scripts/p4-programs.sh
if ! command -v p4c-bm2-ss >/dev/null 2>&1; then
  echo "p4c-bm2-ss is not installed: see README, 'P4 toolchain'" >&2
  exit 1
fi
mkdir -p "$out"
while read -r name source; do
  echo "p4c-bm2-ss: $source -> $out/$name.json, $out/$name.p4info.txt"
  p4c-bm2-ss --arch v1model --std p4-16 -o "$out/$name.json" \
    --p4runtime-files "$out/$name.p4info.txt" "$source"
done <<<"$P4_PROGRAMS"
