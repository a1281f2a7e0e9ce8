#!/usr/bin/env bash
# install-p4-toolchain.sh bmv2|bmv2-perf|ebpf|tofino: makes the P4 toolchain of scripts/toolchain/versions.sh
# present, the cheapest way that works:
#   1. already installed at the pinned versions: nothing to do;
#   2. P4_TOOLCHAIN_DIR names a directory of prebuilt archives: install from there;
#   3. otherwise: build p4lang's sources at the pinned versions (scripts/toolchain/build-from-source.sh,
#      cloned from P4LANG_GIT; ~45 min for bmv2 on 2 cores, ~60 min for ebpf, ~100 min for tofino).
# Exits 0 when the toolchain is usable afterwards, 1 with the reason and the ways out otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/toolchain/versions.sh"
source "$here/scripts/toolchain/installed.sh"
component=${1:?usage: install-p4-toolchain.sh bmv2|bmv2-perf|ebpf|tofino}
case "$component" in
  bmv2 | bmv2-perf | ebpf | tofino) ;;
  *) echo "install-p4-toolchain: unknown component '$component' (bmv2, bmv2-perf, ebpf or tofino)" >&2; exit 2 ;;
esac

say() { echo "p4-toolchain ($component): $*"; }

if ! reason=$(toolchain_missing "$component"); then
  say "already installed at the pinned versions"
  exit 0
fi
say "$reason"

if [ "$(id -u)" -ne 0 ]; then
  say "installing needs root (it writes /usr/local, $BMV2_PERF_PREFIX, $EBPF_PREFIX or $TOFINO_PREFIX): run 'sudo make setup'" >&2
  exit 1
fi

if [ -n "${P4_TOOLCHAIN_DIR:-}" ]; then
  bash "$here/scripts/toolchain/from-archives.sh" "$component" "$P4_TOOLCHAIN_DIR"
else
  say "no P4_TOOLCHAIN_DIR given: building p4lang's sources at the pinned versions"
  bash "$here/scripts/toolchain/build-from-source.sh" "$component"
fi

if reason=$(toolchain_missing "$component"); then
  say "still not usable after the install: $reason" >&2
  exit 1
fi
say "installed"
