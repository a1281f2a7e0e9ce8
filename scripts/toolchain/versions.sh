# The P4 toolchain versions the project is built and tested with, in one place. Sourced by
# the install, source-build and check scripts, so "installed at the expected version" and
# "what a source build checks out" can never disagree.

# BMv2 toolchain (under /usr/local): p4c's BMv2 backend and p4test, BMv2 with
# simple_switch_grpc and its thrift server, PI (the P4Runtime server library).
P4C_REF=v1.2.4.8            # newest p4c tag that builds against Debian 12's protobuf 3.21
P4C_VERSION=1.2.4.8         # what `p4c-bm2-ss --version` prints for it
BMV2_REF=1.15.5             # BMv2 release tag
BMV2_VERSION=1.15.5         # what `simple_switch_grpc --version` starts with
PI_REF=f96af95e0906         # PI has no release tags; BMv2's own CI builds PI's main branch

# BMv2 built for measurement (under /opt/bmv2-perf): the same BMv2 release configured as BMv2's
# docs/performance.md advises (-O3, no logging macros, no event logger), against the PI above.
# Labs, the demo, the bench and the e2e tests run it; the /usr/local build stays for PTF and
# `lab up --log` (this one writes no per-primitive log lines).
BMV2_PERF_PREFIX=/opt/bmv2-perf

# p4c's eBPF backend (p4c-ebpf, under /opt/p4c-ebpf): p4c at P4C_REF above, configured with
# -DENABLE_EBPF=ON and -DENABLE_BMV2=ON (its PSA code includes the BMv2 backend's expression
# converter: without it the build fails on IR::IntMod). With it, the backend's runtime
# (share/p4c/ebpf-runtime: psa.h, kernel.mk) that the C it writes compiles against, with
# Debian's clang, llvm and libbpf-dev; bpftool for the loaded programs and maps.
EBPF_PREFIX=/opt/p4c-ebpf

# p4c's Tofino backend (bf-p4c, under /opt/p4tofino): p4c main with -DENABLE_TOFINO=ON, which
# wants Z3 4.8.14..4.11 and fetches abseil/protobuf/spdlog at the versions below.
TOFINO_P4C_REF=34b86e9bac   # what `bf-p4c --version` prints as SHA
TOFINO_PREFIX=/opt/p4tofino
Z3_REF=z3-4.11.2
ABSEIL_REF=20240722.1
PROTOBUF_REF=v25.3
SPDLOG_REF=v1.8.3

# The archive names of prebuilt toolchains (a directory of them: P4_TOOLCHAIN_DIR).
BMV2_ARCHIVE=p4lang-bmv2-$BMV2_VERSION-p4c-$P4C_VERSION-debian12-amd64
BMV2_PERF_ARCHIVE=p4lang-bmv2-$BMV2_VERSION-perf-debian12-amd64
EBPF_ARCHIVE=p4c-ebpf-$P4C_VERSION-debian12-amd64
TOFINO_ARCHIVE=p4c-tofino-${TOFINO_P4C_REF:0:7}-debian12-amd64
