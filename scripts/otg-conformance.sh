#!/usr/bin/env bash
# The OTG conformance suite's data-plane back-to-back tests (udp, tcp, vxlan) against a
# running `p4tester otg`:
#
#   OTG_HOST=http://127.0.0.1:8443 scripts/otg-conformance.sh [PYTEST ARGS...]
#   scripts/otg-conformance.sh --venv-only     # only make the client venv
#
# The suite is checked out at the pinned commit into run/otg-conformance from
# OTG_CONFORMANCE_GIT (default: the local mirror when present, else GitHub), and run
# with the client venv run/otg-client/venv (snappi and the suite's imports, from
# scripts/otg-requirements.txt). Nothing is installed outside run/. Its test config:
# ports "1" and "2" of the topology; capture checks off unless OTG_CAPTURE_CHECK=true
# (the suite reads that variable itself too).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PINNED=b6d8068
MIRROR=/work/.mirror/open-traffic-generator+conformance/repo
SUITE=$REPO/run/otg-conformance
VENV=$REPO/run/otg-client/venv
PYTHON_FOR_VENV=${PYTHON_FOR_VENV:-python3}
TESTS=(feature/b2b/packet/udp feature/b2b/packet/tcp feature/b2b/packet/vxlan)
# Only what those tests import (a partial mirror may lack other large blobs).
PATHS=(feature/b2b/packet helpers/otg helpers/plot helpers/table helpers/testconfig)

if [[ -z "${OTG_CONFORMANCE_GIT:-}" ]]; then
    if [[ -d $MIRROR ]]; then OTG_CONFORMANCE_GIT=$MIRROR
    else OTG_CONFORMANCE_GIT=https://github.com/open-traffic-generator/conformance; fi
fi

make_venv() {
    local stamp=$VENV/.requirements
    if [[ -x $VENV/bin/python ]] && cmp -s "$REPO/scripts/otg-requirements.txt" "$stamp"; then
        return
    fi
    rm -rf "$VENV"
    "$PYTHON_FOR_VENV" -m venv "$VENV"
    timeout 900 "$VENV/bin/pip" install -q -r "$REPO/scripts/otg-requirements.txt"
    cp "$REPO/scripts/otg-requirements.txt" "$stamp"
}

checkout() {
    if [[ ! -d $SUITE/.git ]]; then
        rm -rf "$SUITE"
        timeout 600 git clone -q --no-checkout "$OTG_CONFORMANCE_GIT" "$SUITE"
    fi
    git -C "$SUITE" sparse-checkout set --cone "${PATHS[@]}"
    if ! git -C "$SUITE" cat-file -e "$PINNED^{commit}" 2>/dev/null; then
        timeout 600 git -C "$SUITE" fetch -q "$OTG_CONFORMANCE_GIT"
    fi
    git -C "$SUITE" checkout -q --force "$PINNED"
    git -C "$SUITE" clean -q -fdx -e test-config.yaml
}

make_venv
if [[ ${1:-} == --venv-only ]]; then
    echo "otg-conformance: client venv $VENV"
    exit 0
fi
: "${OTG_HOST:?set OTG_HOST to the p4tester otg URL, e.g. http://127.0.0.1:8443}"
checkout
cat > "$SUITE/test-config.yaml" <<YAML
otg_host: $OTG_HOST
otg_ports: ["1", "2"]
otg_speed: ${OTG_SPEED:-speed_1_gbps}
otg_capture_check: ${OTG_CAPTURE_CHECK:-false}
otg_grpc_transport: false
YAML
cd "$SUITE"
exec timeout "${OTG_CONFORMANCE_TIMEOUT_S:-900}" "$VENV/bin/python" -m pytest -p no:cacheprovider \
    "${TESTS[@]}" "$@"
