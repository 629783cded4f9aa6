#!/usr/bin/env bash
# Build the H200 capture kernels (fixtures/hw/capture.cu + ops.inc) for sm_86 and sm_50:
# clang-22 -> PTX, ptxas 12.9 -> cubin, nvdisasm 12.8 -> listing. Each op of ops.inc is tried
# alone first; an op that clang or ptxas rejects for an arch is left out of that arch's cubin
# and named in fixtures/hw/capture.sm<XX>.absent.
#   fixtures/hw/capture.sm<XX>.cubin     the kernels k_<op> (C++-mangled, as nvcc names them)
#   fixtures/hw/capture.sm<XX>.txt       nvdisasm -c listing
#   fixtures/hw/capture.sm<XX>.absent    ops left out, with the first line of the tool's error
# OPS=FILE (default ops.inc) builds another op list of fixtures/hw, STEM=NAME (default capture)
# names the outputs NAME.sm<XX>.{cubin,txt,absent}: OPS=ops_atomic.inc STEM=capture_atomic.
# capture.cu's host part (main) is not compiled: only its device part, through a small prelude
# that stands in for the CUDA headers (clang -nocudainc).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${TOOLS:-/opt/oracles}
CLANG=${CLANG:-clang-22}
PTXAS=${PTXAS:-$TOOLS/ptxas12}
NVDISASM=${NVDISASM:-$TOOLS/nvdisasm12}
F=$ROOT/fixtures/hw
OPS=${OPS:-ops.inc}
STEM=${STEM:-capture}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

cat > "$W/prelude.h" <<'PRE'
#define __global__ __attribute__((global))
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
static __attribute__((device)) inline float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
static __attribute__((device)) inline double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
// Through a mov.b64: clang-22 stores `(u32)q` of a bit-cast f64 as st.b32 of the f64 register,
// which ptxas 12.9 assembles as F2I.U32.F64.TRUNC of the double rather than its low word.
static __attribute__((device)) inline long long __double_as_longlong(double x) { long long r; asm("mov.b64 %0, %1;" : "=l"(r) : "d"(x)); return r; }
struct capture_dim { unsigned x; };
#define threadIdx (capture_dim{(unsigned)__nvvm_read_ptx_sreg_tid_x()})
#define blockIdx (capture_dim{(unsigned)__nvvm_read_ptx_sreg_ctaid_x()})
#define blockDim (capture_dim{(unsigned)__nvvm_read_ptx_sreg_ntid_x()})
PRE
# The device part of capture.cu: its typedefs and kernel macros, up to the first include of ops.inc.
sed -n '/^typedef uint32_t u32;/,/^#include "ops.inc"/p' "$F/capture.cu" | grep -v '^#include "ops.inc"' > "$W/macros.h"
# One op per line: the top-level macro calls of ops.inc.
python3 - "$F/$OPS" > "$W/ops.list" <<'PY'
import sys
src = "\n".join(l for l in open(sys.argv[1]).read().splitlines() if not l.lstrip().startswith("//"))
depth, start, quote = 0, None, False
for i, ch in enumerate(src):
    if quote:
        if ch == '"' and src[i - 1] != "\\": quote = False
        continue
    if ch == '"': quote = True
    elif ch == "(":
        if depth == 0:
            j = i
            while j > 0 and (src[j - 1].isalnum() or src[j - 1] == "_"): j -= 1
            start = j
        depth += 1
    elif ch == ")":
        depth -= 1
        if depth == 0: print(src[start:i + 1].replace("\n", " "))
PY
ptxver() { case $1 in 50) echo ptx70 ;; *) echo ptx81 ;; esac; }
compile() {  # $1 sm, $2 .cu, $3 out stem
  "$CLANG" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_$1 \
    -Xclang -target-feature -Xclang +"$(ptxver "$1")" -O2 -S "$2" -o "$3.ptx" &&
  "$PTXAS" -arch=sm_$1 -O3 "$3.ptx" -o "$3.cubin"
}
for sm in 86 50; do
  : > "$W/keep.$sm"
  : > "$F/$STEM.sm$sm.absent"
  n=0
  while IFS= read -r op; do
    n=$((n + 1))
    name=$(printf '%s' "$op" | sed -E 's/^[A-Z0-9_]+\(([a-z0-9_]+).*/\1/')
    { cat "$W/prelude.h" "$W/macros.h"; printf '%s\n' "$op"; } > "$W/op$n.cu"
    if compile "$sm" "$W/op$n.cu" "$W/op$n.sm$sm" 2> "$W/err"; then
      printf '%s\n' "$op" >> "$W/keep.$sm"
    else
      printf '%s\t%s\n' "$name" "$(grep -m1 -iE 'error|fatal' "$W/err" | sed -E 's/^.*error +: //')" >> "$F/$STEM.sm$sm.absent"
    fi
  done < "$W/ops.list"
  cat "$W/prelude.h" "$W/macros.h" "$W/keep.$sm" > "$W/capture.sm$sm.cu"
  compile "$sm" "$W/capture.sm$sm.cu" "$W/capture.sm$sm"
  cp "$W/capture.sm$sm.cubin" "$F/$STEM.sm$sm.cubin"
  "$NVDISASM" -c "$F/$STEM.sm$sm.cubin" > "$F/$STEM.sm$sm.txt"
  echo "sm_$sm: $(wc -l < "$W/keep.$sm") ops built, $(wc -l < "$F/$STEM.sm$sm.absent") absent"
done
