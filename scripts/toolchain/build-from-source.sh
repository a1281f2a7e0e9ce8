#!/usr/bin/env bash
# build-from-source.sh bmv2|bmv2-perf|ebpf|tofino [STEP ...]: builds p4lang's toolchain from its sources at the
# versions pinned in versions.sh, as root, on Debian 12.
#
#   bmv2:   PI -> BMv2 (simple_switch_grpc with thrift) -> p4c (p4c-bm2-ss, p4test), into /usr/local.
#           ~45 min on 2 cores under load, ~25 min idle.
#   bmv2-perf: BMv2 again, built for measurement (-O3, no logging macros, no event logger) into
#           /opt/bmv2-perf, against the PI of `bmv2` (built first). ~20 min on 2 cores.
#   ebpf:   p4c (same tag as bmv2's) with its eBPF backend (p4c-ebpf) and the backend's runtime,
#           into /opt/p4c-ebpf, plus Debian's clang, llvm, libbpf-dev and bpftool. ~60 min on 2 cores.
#   tofino: Z3 -> p4c with its Tofino backend (bf-p4c), into /opt/p4tofino. ~100 min on 2 cores.
#
# Sources are cloned from P4LANG_GIT (default https://github.com/p4lang): a URL base under which
# <name> is each p4lang repository, or a local directory of mirrors holding <owner>+<name>/repo,
# <owner>/<name>, <name>.git or <name> (the other projects the build needs, such as
# openconfig/gnmi or Z3Prover/z3, are looked up there too; with a URL base they come from
# OTHER_GIT, default https://github.com).
#
# One progress line per step; each step's full output goes to $P4_BUILD_DIR/logs/<step>.log
# (default /var/tmp/p4tester-toolchain). A step that finished is stamped and skipped when the
# script runs again, so an interrupted build resumes where it stopped (FORCE=1 redoes all).
# STEP names run only those steps (in the given order).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
source "$here/scripts/toolchain/versions.sh"

component=${1:?usage: build-from-source.sh bmv2|bmv2-perf|ebpf|tofino [STEP ...]}
shift
P4LANG_GIT=${P4LANG_GIT:-https://github.com/p4lang}
OTHER_GIT=${OTHER_GIT:-https://github.com}
build=${P4_BUILD_DIR:-/var/tmp/p4tester-toolchain}
jobs=${JOBS:-$(nproc)}
# Debian's interpreter, not a pyenv/venv python3 that may come first in PATH: BMv2's thrift
# CLIs need Debian's python3-thrift.
system_python=/usr/bin/python3
src=$build/src
mkdir -p "$build/logs" "$build/stamps" "$src"

case "$component" in
  bmv2) all_steps=(reach deps-bmv2 sources-bmv2 pi bmv2 p4c) ;;
  bmv2-perf) all_steps=(reach deps-bmv2 sources-bmv2-perf bmv2-perf) ;;
  ebpf) all_steps=(reach deps-ebpf sources-ebpf p4c-ebpf) ;;
  tofino) all_steps=(reach deps-tofino sources-tofino z3 p4c-tofino) ;;
  *) echo "build-from-source: unknown component '$component' (bmv2, bmv2-perf, ebpf or tofino)" >&2; exit 2 ;;
esac
steps=("$@")
((${#steps[@]})) || steps=("${all_steps[@]}")

progress() { echo "p4-toolchain source build ($component): $*"; }

# repo_url OWNER NAME: where to clone OWNER/NAME from.
repo_url() {
  local owner=$1 name=$2 candidate
  if [ -d "$P4LANG_GIT" ]; then
    for candidate in "$P4LANG_GIT/$owner+$name/repo" "$P4LANG_GIT/$owner/$name" \
                     "$P4LANG_GIT/$name.git" "$P4LANG_GIT/$name"; do
      [ -d "$candidate" ] && { echo "$candidate"; return 0; }
    done
    echo "$P4LANG_GIT/$name"  # does not exist: the clone says so
  elif [ "$owner" = p4lang ]; then
    echo "$P4LANG_GIT/$name"
  else
    echo "$OTHER_GIT/$owner/$name"
  fi
}

# git that gives up on a dead network instead of hanging, and accepts local submodule URLs.
git_bounded() {
  git "${git_options[@]}" "$@"
}
git_options=(-c http.lowSpeedLimit=1000 -c http.lowSpeedTime=30 -c protocol.file.allow=always)

# checkout OWNER NAME DEST REF: a work tree of OWNER/NAME at REF in DEST. --no-checkout first:
# a mirror may lack its largest blobs (p4c's docs/*.pptx), which a plain clone's checkout of
# the default branch would trip over; the files the build needs are all there at REF.
checkout() {
  local owner=$1 name=$2 dest=$3 ref=$4 url missing
  url=$(repo_url "$owner" "$name")
  if [ ! -d "$dest/.git" ]; then
    rm -rf "$dest"
    git_bounded clone -q --no-checkout "$url" "$dest"
  fi
  git -C "$dest" rev-parse -q --verify "$ref^{commit}" >/dev/null || git_bounded -C "$dest" fetch -q --tags origin
  missing=$(git -C "$dest" ls-tree -r -l "$ref" | awk '$4 == "BAD" {print ":!" $5}')
  # shellcheck disable=SC2086 # one pathspec per missing blob
  git -C "$dest" -c advice.detachedHead=false checkout -q "$ref" -- . $missing
  git -C "$dest" update-ref --no-deref HEAD "$(git -C "$dest" rev-parse "$ref^{commit}")"
  echo "$owner/$name at $(git -C "$dest" rev-parse --short HEAD) ($ref) from $url"
}

# submodule REPO PATH OWNER NAME: one submodule of REPO at the commit REPO pins, from our source.
submodule() {
  git -C "$1" config "submodule.$2.url" "$(repo_url "$3" "$4")"
  git_bounded -C "$1" submodule update --init -q "$2"
  echo "$1/$2 at $(git -C "$1/$2" rev-parse --short HEAD)"
}

apt_install() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  ((${#missing[@]})) || { echo "all $# Debian packages installed"; return 0; }
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    -o DPkg::Lock::Timeout=600 "${missing[@]}"
}

# ---- steps ------------------------------------------------------------------------------

# Fails within a minute, naming the ways out, when the sources cannot be reached.
step_reach() {
  local url
  url=$(repo_url p4lang p4runtime)
  if ! timeout 50 git "${git_options[@]}" ls-remote -q "$url" HEAD >/dev/null; then
    cat >&2 <<TXT
cannot reach p4lang's sources at $url (P4LANG_GIT=$P4LANG_GIT).
Two ways out:
  - install prebuilt archives: P4_TOOLCHAIN_DIR=/path/to/archives make setup
  - point P4LANG_GIT at a reachable copy of p4lang's repositories, e.g. a local directory of
    mirrors (<owner>+<name>/repo, <owner>/<name>, <name>.git or <name>): P4LANG_GIT=/srv/git make setup
TXT
    return 1
  fi
  echo "reached $url"
}

step_deps-bmv2() {
  apt_install build-essential autoconf automake libtool libtool-bin pkg-config bison flex cmake \
    g++ git libboost-dev libboost-iostreams-dev libboost-graph-dev libboost-system-dev \
    libboost-filesystem-dev libboost-thread-dev libboost-program-options-dev libboost-test-dev \
    libgc-dev libgmp-dev libfl-dev libprotobuf-dev libprotoc-dev protobuf-compiler \
    libgrpc++-dev libgrpc-dev protobuf-compiler-grpc libthrift-dev thrift-compiler libpcap-dev \
    libnanomsg-dev libjudy-dev libreadline-dev libssl-dev libxxhash-dev libjsoncpp-dev \
    googletest python3 python3-dev python3-thrift
}

step_sources-bmv2() {
  checkout p4lang PI "$src/PI" "$PI_REF"
  submodule "$src/PI" proto/p4runtime p4lang p4runtime
  submodule "$src/PI" proto/openconfig/gnmi openconfig gnmi
  submodule "$src/PI" third_party/uthash troydhanson uthash
  checkout p4lang behavioral-model "$src/bmv2" "$BMV2_REF"
  p4c_sources
}

# p4c at P4C_REF in $src/p4c, shared by bmv2 and ebpf (each configures a build directory of its
# own in it). p4c fetches p4runtime at configure time from a tag its CMakeLists pins: give it
# that tag from our source instead (FETCHCONTENT_SOURCE_DIR_P4RUNTIME), so a mirror is enough.
p4c_sources() {
  checkout p4lang p4c "$src/p4c" "$P4C_REF"
  local tag
  tag=$(sed -n '/FetchContent_Declare(/,/)/p' "$src/p4c/CMakeLists.txt" | awk '/GIT_TAG/ {print $2; exit}')
  [ -n "$tag" ] || { echo "no p4runtime GIT_TAG in p4c's CMakeLists.txt" >&2; return 1; }
  checkout p4lang p4runtime "$src/p4c-p4runtime" "$tag"
}

step_pi() {
  cd "$src/PI"
  # PI's configure only checks that a googletest tree exists (it builds it for `make check`):
  # Debian's googletest sources serve instead of one more clone.
  if [ ! -f third_party/googletest/googletest/src/gtest.cc ]; then
    rm -rf third_party/googletest
    cp -r /usr/src/googletest third_party/googletest
  fi
  [ -x configure ] || ./autogen.sh
  ./configure --with-proto --without-internal-rpc --without-cli --without-bmv2 PYTHON=$system_python
  make -j"$jobs"
  make install
  ldconfig
}

step_bmv2() {
  cd "$src/bmv2"
  [ -x configure ] || ./autogen.sh
  # --with-pi builds simple_switch_grpc; --with-thrift gives it the thrift server the lab uses
  # for queue rates. --disable-static: libtool would otherwise compile every source twice.
  ./configure --with-pi --with-thrift --disable-static 'CXXFLAGS=-O2' PYTHON=$system_python
  grep -Eq '^[^#]*-DWITH_THRIFT' targets/simple_switch_grpc/Makefile ||
    { echo "simple_switch_grpc was configured without thrift" >&2; return 1; }
  make -j"$jobs"
  make install
  ldconfig
  # The CLIs start with '#!/usr/bin/env python3', which may find a python3 without thrift.
  local cli
  for cli in simple_switch_CLI simple_switch_grpc_CLI bm_CLI; do
    [ -f "/usr/local/bin/$cli" ] && sed -i "1s|^#!/usr/bin/env python3\$|#!$system_python|" "/usr/local/bin/$cli"
  done
}

# A tree of its own: configuring the /usr/local build's tree again would rebuild that one.
step_sources-bmv2-perf() {
  checkout p4lang behavioral-model "$src/bmv2-perf" "$BMV2_REF"
}

# As BMv2's docs/performance.md advises: the logging macros and the event logger compiled out,
# -O3. PI comes from /usr/local (the bmv2 component), so P4Runtime works as with the other build.
step_bmv2-perf() {
  [ -f /usr/local/lib/libpi.so ] ||
    { echo "PI is not installed under /usr/local: install the bmv2 component first" >&2; return 1; }
  cd "$src/bmv2-perf"
  [ -x configure ] || ./autogen.sh
  ./configure --prefix="$BMV2_PERF_PREFIX" --with-pi --with-thrift --disable-static \
    --disable-logging-macros --disable-elogger 'CXXFLAGS=-O3 -DNDEBUG' PYTHON=$system_python \
    CPPFLAGS=-I/usr/local/include LDFLAGS=-L/usr/local/lib
  make -j"$jobs"
  make install
  ldconfig
}

step_p4c() {
  mkdir -p "$src/p4c/build"
  cd "$src/p4c/build"
  # Only the BMv2 backend and p4test.
  configure_p4c /usr/local -DENABLE_BMV2=ON -DENABLE_P4TEST=ON -DENABLE_EBPF=OFF
  make -j"$jobs"
  make install
}

# configure_p4c PREFIX BACKEND-FLAGS...: cmake in the current build directory of $src/p4c, every
# optional part off but the backends named; FULLY_DISCONNECTED makes any other download fail fast.
configure_p4c() {
  local prefix=$1
  shift
  cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" "$@" \
    -DENABLE_GTESTS=OFF -DENABLE_UBPF=OFF \
    -DENABLE_DPDK=OFF -DENABLE_P4TC=OFF -DENABLE_P4C_GRAPHS=OFF -DENABLE_TEST_TOOLS=OFF \
    -DENABLE_DOCS=OFF -DENABLE_LTO=OFF -DCMAKE_UNITY_BUILD=ON -DP4C_USE_PREINSTALLED_PROTOBUF=ON \
    -DFETCHCONTENT_SOURCE_DIR_P4RUNTIME="$src/p4c-p4runtime" -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
    -DPYTHON_EXECUTABLE=$system_python
}

# p4c's build dependencies; clang and llc (llvm) compile the C that p4c-ebpf writes against
# libbpf-dev's headers, bpftool shows the loaded programs and maps.
step_deps-ebpf() {
  apt_install build-essential cmake g++ git bison flex pkg-config libboost-dev \
    libboost-iostreams-dev libboost-graph-dev libgc-dev libgmp-dev libfl-dev libprotobuf-dev \
    libprotoc-dev protobuf-compiler python3 cpp clang llvm libbpf-dev bpftool
}

step_sources-ebpf() {
  p4c_sources
}

# p4c's PSA-eBPF code includes the BMv2 backend's expression converter: without ENABLE_BMV2 the
# build fails on IR::IntMod. The eBPF CMakeLists would download libbpf's sources (for p4c's
# kernel tests; FETCHCONTENT_FULLY_DISCONNECTED skips that) and build them unless it finds a
# libbpf: Debian's libbpf-dev (deps-ebpf) is found, so nothing is fetched or built for it.
step_p4c-ebpf() {
  local runtime=$EBPF_PREFIX/share/p4c/ebpf-runtime
  mkdir -p "$src/p4c/build-ebpf"
  cd "$src/p4c/build-ebpf"
  configure_p4c "$EBPF_PREFIX" -DENABLE_EBPF=ON -DENABLE_BMV2=ON -DENABLE_P4TEST=OFF
  make -j"$jobs"
  make install
  # The BMv2 compilers built along are the bmv2 component's business (/usr/local): only
  # p4c-ebpf and the p4c driver stay here, as in the prebuilt archive.
  rm -f "$EBPF_PREFIX"/bin/p4c-bm2-*
  # p4c installs no runtime for the C p4c-ebpf writes (psa.h, kernel.mk, ...): the backend's
  # tracked runtime files, not whatever a configure left in its contrib/ directory.
  rm -rf "$runtime"
  mkdir -p "$runtime"
  git -C "$src/p4c" archive HEAD:backends/ebpf/runtime | tar -x -C "$runtime"
}

step_deps-tofino() {
  apt_install build-essential cmake g++ git bison flex pkg-config libboost-dev \
    libboost-iostreams-dev libboost-graph-dev libgc-dev libgmp-dev libfl-dev rapidjson-dev \
    python3 python3-venv cpp
}

step_sources-tofino() {
  checkout p4lang p4c "$src/p4c-tofino" "$TOFINO_P4C_REF"
  local tag
  tag=$(sed -n '/FetchContent_Declare(/,/)/p' "$src/p4c-tofino/CMakeLists.txt" | awk '/GIT_TAG/ {print $2; exit}')
  checkout p4lang p4runtime "$src/tofino-p4runtime" "$tag"
  checkout Z3Prover z3 "$src/z3" "$Z3_REF"
  checkout abseil abseil-cpp "$src/abseil" "$ABSEIL_REF"
  checkout protocolbuffers protobuf "$src/protobuf" "$PROTOBUF_REF"
  # The backend takes spdlog from its own third_party/ directory.
  checkout gabime spdlog "$src/p4c-tofino/backends/tofino/third_party/spdlog" "$SPDLOG_REF"
}

step_z3() {
  mkdir -p "$src/z3/build"
  cd "$src/z3/build"
  cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$TOFINO_PREFIX" \
    -DZ3_BUILD_LIBZ3_SHARED=OFF -DZ3_BUILD_TEST_EXECUTABLES=OFF -DZ3_BUILD_PYTHON_BINDINGS=OFF \
    -DZ3_ENABLE_EXAMPLE_TARGETS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  make -j"$jobs"
  make install
}

step_p4c-tofino() {
  local tree=$src/p4c-tofino
  # The backend packages its log tools with pyinstaller and checks its JSON with jsonschema 2.6.
  if [ ! -x "$TOFINO_PREFIX/venv/bin/pyinstaller" ]; then
    $system_python -m venv "$TOFINO_PREFIX/venv"
    "$TOFINO_PREFIX/venv/bin/pip" install -q pyinstaller jsonschema==2.6.0 jsl XlsxWriter packaging pyyaml
  fi
  export PATH=$TOFINO_PREFIX/venv/bin:$PATH
  # Two known build breaks at this commit: gcc 12's std::erase_if hands the predicate a const
  # pair; the driver passes pathlib.Path objects where str.find is called on them.
  sed -i 's/\[this\](flow_join_points_t::value_type &el)/[this](const flow_join_points_t::value_type \&el)/' \
    "$tree/ir/visitor.cpp"
  sed -i -E "s/self\.add_command\('(assembler|bf-rt-verifier|p4c-gen-conf)', (bfas|bfrt_schema|p4c_gen_conf)\)/self.add_command('\1', str(\2))/" \
    "$tree/backends/tofino/bf-p4c/driver/barefoot.py"
  mkdir -p "$tree/build"
  cd "$tree/build"
  cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$TOFINO_PREFIX" -DENABLE_TOFINO=ON \
    -DENABLE_BMV2=OFF -DENABLE_EBPF=OFF -DENABLE_UBPF=OFF -DENABLE_DPDK=OFF -DENABLE_P4TC=OFF \
    -DENABLE_P4FMT=OFF -DENABLE_P4C_GRAPHS=OFF -DENABLE_GTESTS=OFF -DENABLE_TEST_TOOLS=OFF \
    -DENABLE_LTO=OFF -DCMAKE_UNITY_BUILD=ON -DENABLE_DOCS=OFF -DUSE_PREINSTALLED_Z3=ON \
    -DCMAKE_PREFIX_PATH="$TOFINO_PREFIX" -DP4C_USE_PREINSTALLED_BDWGC=ON \
    -DFETCHCONTENT_SOURCE_DIR_P4RUNTIME="$src/tofino-p4runtime" \
    -DFETCHCONTENT_SOURCE_DIR_ABSEIL="$src/abseil" -DFETCHCONTENT_SOURCE_DIR_PROTOBUF="$src/protobuf" \
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON
  make -j"$jobs"
  make install
  # The SDE's name for the driver with the Tofino backend.
  ln -sf p4c "$TOFINO_PREFIX/bin/bf-p4c"
}

# ---- runner -----------------------------------------------------------------------------

run_step() {
  local number=$1 name=$2 log=$build/logs/$2.log stamp=$build/stamps/$component-$2.done started rc
  if [ -e "$stamp" ] && [ "${FORCE:-0}" != 1 ] && [ "$name" != reach ]; then
    progress "[$number/${#steps[@]}] $name: done before, skipped (FORCE=1 redoes it)"
    return 0
  fi
  started=$(date +%s)
  progress "[$number/${#steps[@]}] $name (log: $log)"
  set +e
  ( set -euo pipefail; "step_$name" ) >"$log" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    progress "$name FAILED after $(( $(date +%s) - started )) s; the end of $log:" >&2
    tail -n 25 "$log" >&2
    exit 1
  fi
  touch "$stamp"
  progress "[$number/${#steps[@]}] $name done in $(( $(date +%s) - started )) s"
}

number=0
for step in "${steps[@]}"; do
  number=$((number + 1))
  declare -F "step_$step" >/dev/null ||
    { echo "build-from-source: unknown step '$step' (${all_steps[*]})" >&2; exit 2; }
  run_step "$number" "$step"
done
progress "finished: ${steps[*]}"
