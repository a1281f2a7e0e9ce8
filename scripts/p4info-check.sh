#!/usr/bin/env bash
# Recompiles p4src and fails when the committed BMv2 JSON or P4Info differ from
# what the sources give now (the controller and its tests use the committed ones).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
source scripts/p4-programs.sh
source scripts/toolchain/require.sh
if ! command -v p4c-bm2-ss >/dev/null 2>&1; then
  skip_or_fail p4info-check "p4c-bm2-ss is not installed"
fi
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
bash scripts/p4-compile.sh "$fresh" >/dev/null
stale=0
while read -r name _source; do
  for out in "$name.json" "$name.p4info.txt"; do
    if ! cmp -s "$fresh/$out" "p4src/build/$out"; then
      echo "p4info-check: p4src/build/$out is stale or missing: run 'make build' and commit it"
      stale=1
    fi
  done
done <<<"$P4_PROGRAMS"
if [ "$stale" -eq 0 ]; then echo "p4info-check: p4src/build is up to date"; fi
exit "$stale"
