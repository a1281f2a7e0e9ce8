#!/usr/bin/env bash
# from-archives.sh bmv2|bmv2-perf|ebpf|tofino DIR: installs a prebuilt toolchain from a directory of archives
# (Debian 12 amd64, built from p4lang's sources at the versions of versions.sh), as root.
# A directory that brings its own installer (install-p4-toolchain.sh, as the project's CI
# archive directory does) knows its archives best: it is used. Otherwise the archive
# <name>.tar.xz (or split parts <name>.tar.xz.*) is unpacked into / after the Debian
# runtime libraries listed one per line in <name>.deps are installed (for ebpf the list also
# names clang, llvm, libbpf-dev and bpftool, which compile and load the C that p4c-ebpf writes).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
source "$here/scripts/toolchain/versions.sh"
component=$1
dir=$2
say() { echo "p4-toolchain ($component): $*"; }

[ -d "$dir" ] || { say "P4_TOOLCHAIN_DIR=$dir is not a directory" >&2; exit 1; }
dir=$(cd "$dir" && pwd)

if [ -f "$dir/install-p4-toolchain.sh" ]; then
  say "installing with $dir/install-p4-toolchain.sh"
  bash "$dir/install-p4-toolchain.sh" "$component"
  exit 0
fi

case "$component" in
  bmv2) name=$BMV2_ARCHIVE ;;
  bmv2-perf) name=$BMV2_PERF_ARCHIVE ;;
  ebpf) name=$EBPF_ARCHIVE ;;
  tofino) name=$TOFINO_ARCHIVE ;;
esac
parts=("$dir/$name".tar.xz*)
if [ ! -f "${parts[0]}" ]; then
  say "no $name.tar.xz in $dir: put the archive there, or unset P4_TOOLCHAIN_DIR to build from source" >&2
  exit 1
fi
if [ -f "$dir/$name.deps" ]; then
  mapfile -t deps < "$dir/$name.deps"
  missing=()
  for pkg in "${deps[@]}" cpp python3 python3-thrift; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    say "apt-get install ${missing[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
  fi
fi
say "unpacking $name into /"
cat "${parts[@]}" | tar -xJ -C / --no-same-owner
ldconfig
