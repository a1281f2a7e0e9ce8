# toolchain_missing bmv2|bmv2-perf|ebpf|tofino: prints why the component is not usable at the pinned version
# and returns 0; returns 1 (printing nothing) when it is installed and works. Sourced after
# versions.sh.

toolchain_missing() {
  case "$1" in
    bmv2) _bmv2_missing ;;
    bmv2-perf) _bmv2_perf_missing ;;
    ebpf) _ebpf_missing ;;
    tofino) _tofino_missing ;;
  esac
}

_bmv2_missing() {
  local tool
  for tool in p4c-bm2-ss p4test simple_switch_grpc simple_switch_CLI; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed"; return 0; }
  done
  local version
  version=$(p4c-bm2-ss --version 2>&1 || true)
  [[ $version == *"$P4C_VERSION"* ]] || { echo "p4c-bm2-ss is not version $P4C_VERSION"; return 0; }
  version=$(simple_switch_grpc --version 2>&1 || true)
  [[ $version == "$BMV2_VERSION"* ]] || { echo "simple_switch_grpc is '$version', not $BMV2_VERSION"; return 0; }
  # The CLI is a Python script: it fails at start when its interpreter lacks the thrift module.
  simple_switch_CLI --help >/dev/null 2>&1 ||
    { echo "simple_switch_CLI does not start (its Python lacks the thrift module?)"; return 0; }
  return 1
}

_bmv2_perf_missing() {
  local switch=$BMV2_PERF_PREFIX/bin/simple_switch_grpc version
  [ -x "$switch" ] || { echo "$switch is not installed"; return 0; }
  version=$("$switch" --version 2>&1 || true)
  [[ $version == "$BMV2_VERSION"* ]] || { echo "$switch is '$version', not $BMV2_VERSION"; return 0; }
  return 1
}

# p4c-ebpf only writes C: the backend's runtime headers, clang/llc with Debian's libbpf headers
# and bpftool (in /usr/sbin, off a user's PATH) make that C a loaded program, so they count too.
_ebpf_missing() {
  local compiler=$EBPF_PREFIX/bin/p4c-ebpf runtime=$EBPF_PREFIX/share/p4c/ebpf-runtime version file tool
  [ -x "$compiler" ] || { echo "$compiler is not installed"; return 0; }
  # It prints its own path on the first line, "Version X (SHA: ...)" on the second.
  version=$("$compiler" --version 2>&1 | sed -n '/Version/p' || true)
  [[ $version == *"$P4C_VERSION"* ]] ||
    { echo "$compiler is not version $P4C_VERSION (${version:-no version})"; return 0; }
  for file in "$runtime/psa.h" "$runtime/kernel.mk" "$EBPF_PREFIX/share/p4c/p4include/core.p4" \
              /usr/include/bpf/bpf_helpers.h; do
    [ -f "$file" ] || { echo "$file is missing"; return 0; }
  done
  for tool in clang llc bpftool; do
    PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed"; return 0; }
  done
  return 1
}

_tofino_missing() {
  local compiler=$TOFINO_PREFIX/bin/bf-p4c version
  [ -x "$compiler" ] || { echo "$compiler is not installed"; return 0; }
  version=$("$compiler" --version 2>&1 || true)
  [[ $version == *"SHA: ${TOFINO_P4C_REF:0:7}"* ]] ||
    { echo "$compiler is not p4c ${TOFINO_P4C_REF:0:7} ($version)"; return 0; }
  [ -f "$TOFINO_PREFIX/share/p4c/p4include/tna.p4" ] ||
    { echo "$TOFINO_PREFIX/share/p4c/p4include/tna.p4 is missing"; return 0; }
  return 1
}
