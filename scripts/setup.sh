#!/usr/bin/env bash
# One-command set-up on Debian 12, as root: system packages, a venv with the controller's
# Python dependencies, then the P4 toolchain (scripts/install-p4-toolchain.sh: nothing when it
# is installed, prebuilt archives when P4_TOOLCHAIN_DIR names a directory of them, otherwise a
# build of p4lang's sources at pinned versions): BMv2 and p4c, BMv2 built for measurement, and
# p4c's eBPF backend. bf-p4c (Tofino) comes along when the archive directory holds it;
# `make setup-tofino` installs it on its own.
#
# The Python set-up always finishes. A toolchain that could not be installed is an error under
# CI=true (CI must run everything) and a warning otherwise: the unit tests still run without it.
set -euo pipefail
venv=${1:-.venv}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
source scripts/toolchain/versions.sh

# tcpreplay offers the bench's frames (a Python sender would cost a core). python3-six: Debian
# 12's python3-thrift imports six without depending on it, and simple_switch_CLI (run by
# Debian's python3) needs both.
# chromium and its driver: the dashboard's browser test (control/tests/test_server_browser.py).
# mininet (its Python package and mnexec), bridge-utils, iputils-ping: the Mininet labs, which
# use Linux bridges: Open vSwitch, which mininet recommends, is held off ("openvswitch-switch-").
# linuxptp: pmc reads PTP's state on a tester's host (tester/ptp_state.py); the several-testers
# lab runs ptp4l on a link of its own (never adjusting the host's clock).
debian_packages=(python3-venv python3-pip python3-thrift python3-six iproute2 tcpdump tcpreplay
  ethtool procps git xz-utils chromium chromium-driver mininet bridge-utils iputils-ping net-tools
  linuxptp)
missing=()
for pkg in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" openvswitch-switch-
fi

# Debian's python3 (not a pyenv one): BMv2's thrift modules and Debian's
# python3-* packages install there, and the venv sees them.
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r requirements.txt
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r requirements-nodeps.txt
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps -e .
echo "setup: Python dependencies installed ($venv)"

# bmv2-perf: the BMv2 build the labs measure with; ebpf: p4c-ebpf under /opt/p4c-ebpf
# (scripts/toolchain/versions.sh).
components=(bmv2 bmv2-perf ebpf)
if [ -n "${P4_TOOLCHAIN_DIR:-}" ] && compgen -G "$P4_TOOLCHAIN_DIR/$TOFINO_ARCHIVE.tar.xz*" >/dev/null; then
  components+=(tofino)
fi
failed=()
for component in "${components[@]}"; do
  bash scripts/install-p4-toolchain.sh "$component" || failed+=("$component")
done
if ((${#failed[@]})); then
  echo "setup: the P4 toolchain (${failed[*]}) is not installed; the unit tests run without it," \
       "the PTF suite, the labs and the demo need it (README, 'Install')" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 0
fi
echo "setup: done ($venv; P4 toolchain: ${components[*]})"
