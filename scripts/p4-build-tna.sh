#!/usr/bin/env bash
# Type-checks the Tofino program (p4src/tna/tester.p4) with p4test against the TNA
# architecture files, and compiles it for Tofino 1 with bf-p4c where that is
# installed, printing its resource summary. Each step says so when its tool is absent.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
program=p4src/tna/tester.p4

# Where the TNA architecture files (tna.p4 and what it includes) may be: the user's
# choice, the SDE, or p4c's include directory (p4c's Tofino backend installs them there).
tna_include=""
for dir in "${TNA_P4INCLUDE:-}" "${SDE_INSTALL:+$SDE_INSTALL/share/p4c/p4include}" \
           /usr/local/share/p4c/p4include /usr/share/p4c/p4include; do
  if [ -n "$dir" ] && [ -f "$dir/tna.p4" ]; then tna_include=$dir; break; fi
done

if ! command -v p4test >/dev/null 2>&1; then
  echo "build-tna type-check SKIPPED: p4test is not installed (README, 'P4 toolchain')"
elif [ -z "$tna_include" ]; then
  echo "build-tna type-check SKIPPED: no tna.p4 found; set TNA_P4INCLUDE to a directory" \
       "holding tna.p4 and tofino1_*.p4 (p4c's backends/tofino/bf-p4c/p4include, or the SDE's)"
else
  # p4test's flow analysis does not follow values into RegisterAction bodies or
  # header validity out of sub-parsers: its uninitialized-use warnings here are all
  # of that kind, so they are silenced. Other warnings stay visible; the egress
  # parser's udp_residual state draws invalid-header warnings of the same kind (it
  # is entered only once the sub-parser has made the tester header valid).
  p4test -D__TARGET_TOFINO__=1 -I "$tna_include" --Wdisable=uninitialized_use "$program"
  echo "build-tna: $program type-checks against $tna_include/tna.p4 (Tofino 1)"
fi

if ! command -v bf-p4c >/dev/null 2>&1; then
  echo "build-tna compile SKIPPED: bf-p4c (the p4c Tofino backend, from the SDE) is not installed"
  exit 0
fi
out=build-tna
rm -rf "$out"
bf-p4c --target tofino --arch tna -o "$out" "$program"
echo "build-tna: compiled into $out/"
# The resource summary bf-p4c writes: stages, SRAM, TCAM, PHV.
summary=$(find "$out" -name 'mau.resources.log' -print -quit)
if [ -n "$summary" ]; then
  cat "$summary"
else
  find "$out" -name 'metrics.json' -exec cat {} \;
fi
