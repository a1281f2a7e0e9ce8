#!/usr/bin/env bash
# One-command set-up on Debian 12: system packages, then a venv with the
# controller's Python dependencies. The P4 toolchain (p4c, BMv2) is not
# installed here: see README, "P4 toolchain".
set -euo pipefail
venv=${1:-.venv}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

# tcpreplay offers the bench's frames (a Python sender would cost a core).
debian_packages=(python3-venv python3-pip python3-thrift iproute2 tcpdump tcpreplay ethtool procps)
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
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

# Debian's python3 (not a pyenv one): BMv2's thrift modules and Debian's
# python3-* packages install there, and the venv sees them.
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r requirements.txt
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r requirements-nodeps.txt
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps -e .
echo "setup: done ($venv)"
