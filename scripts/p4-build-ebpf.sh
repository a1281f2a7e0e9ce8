#!/usr/bin/env bash
# p4-build-ebpf.sh [OUTDIR]: compiles the eBPF tester (p4src/psa/tester.p4) with p4c-ebpf
# (PSA, TC hook) into OUTDIR/tester.c, then with clang/llc into OUTDIR/tester.o, the object
# `tc ... bpf obj` loads. The compile flags follow p4c's ebpf-runtime/kernel.mk (target psa).
# Also the bench's plain replicator, OUTDIR/replicate.o.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
out=${1:-build/ebpf}
source scripts/toolchain/versions.sh
p4c_ebpf=${EBPF_PREFIX:-/opt/p4c-ebpf}/bin/p4c-ebpf
runtime=${EBPF_PREFIX:-/opt/p4c-ebpf}/share/p4c/ebpf-runtime
for tool in "$p4c_ebpf" clang llc bpftool; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "p4-build-ebpf: $tool is not installed: run make setup (the ebpf component)" >&2
    exit 1
  fi
done
mkdir -p "$out"
rm -f "$out/tester.c" "$out/tester.o"
# No tunnels: the kernel's verifier bounds the paths a program may have, and the frame
# parser's tunnel states exceed it (p4src/psa/platform.p4). Key order in the histogram
# tables is the other targets' (P4Runtime names): p4c-ebpf only warns of its padding.
"$p4c_ebpf" --arch psa --target kernel -o "$out/tester.c" p4src/psa/tester.p4 \
  -DTESTER_NO_TUNNELS -DTESTER_NO_IPV6_TUNNELS --Wdisable=ordering --Wdisable=uninitialized_use \
  --Wdisable=invalid 2>&1 | grep -v "^Setting XDP2TC" || true
test -s "$out/tester.c"
# The deparser's length arithmetic is signed in the generated C; BPF (before cpu v4) has
# no signed division: make BYTES() unsigned (every length is non-negative).
sed -i 's|^#define BYTES(w) ((w) / 8)$|#define BYTES(w) ((unsigned int) (w) / 8)|' "$out/tester.c"
clang -O2 -g -c -D__KERNEL__ -D__ASM_SYSREG_H -DBTF -Wno-unused-value -Wno-pointer-sign \
  -Wno-compare-distinct-pointer-types -Wno-gnu-variable-sized-type-not-at-end \
  -Wno-address-of-packed-member -Wno-tautological-compare -Wno-unknown-warning-option \
  -Wno-incompatible-pointer-types -I"$runtime" \
  -emit-llvm -o "$out/tester.bc" "$out/tester.c"
llc -march=bpf -mcpu=generic -filetype=obj -o "$out/tester.o" "$out/tester.bc"
rm -f "$out/tester.bc"
echo "p4c-ebpf: p4src/psa/tester.p4 -> $out/tester.o"
# The bench's plain replicator (the host's ceiling for the same path), C, no P4.
clang -O2 -g -target bpf -I/usr/include/"$(gcc -dumpmachine)" -c p4src/bench/replicate.bpf.c \
  -o "$out/replicate.o"
echo "clang: p4src/bench/replicate.bpf.c -> $out/replicate.o"
