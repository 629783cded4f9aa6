#!/usr/bin/env bash
# Build the divergence kernels (fixtures/hw/divergence/diverge.cu) for sm_86 and sm_50:
# clang-22 -> PTX, ptxas 12.9 -> cubin, nvdisasm 12.8 -> listing; and write the kernels' input
# (input.bin: 512 u32 from splitmix64 with seed 1, every fourth masked to 16 bits).
#   fixtures/hw/divergence/diverge.sm<XX>.cubin   kernels k_* (extern "C" names)
#   fixtures/hw/divergence/diverge.sm<XX>.txt     nvdisasm -c listing
# sm_50 has no match.sync: its build leaves k_match out (DIVERGE_NO_MATCH).
# The expected outputs (fixtures/hw/divergence/expected/*.bin) come from an NVIDIA H200:
# tools/capture_divergence.sh, run on the device machine.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${TOOLS:-/opt/oracles}
CLANG=${CLANG:-clang-22}
PTXAS=${PTXAS:-$TOOLS/ptxas12}
NVDISASM=${NVDISASM:-$TOOLS/nvdisasm12}
D=$ROOT/fixtures/hw/divergence
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
python3 - "$D/input.bin" <<'PY'
import struct, sys
s, vals, M = 1, [], 2**64 - 1
for i in range(512):
    s = (s + 0x9E3779B97F4A7C15) & M
    z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    v = (z ^ (z >> 31)) & 0xffffffff
    vals.append(v & 0xffff if i % 4 == 3 else v)
open(sys.argv[1], "wb").write(struct.pack("<512I", *vals))
PY
cat > "$W/prelude.h" <<'PRE'
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
PRE
for sm in 86 50; do
  extra=""; ptx=ptx81
  if [ "$sm" = 50 ]; then extra="-DDIVERGE_NO_MATCH"; ptx=ptx70; fi
  cat "$W/prelude.h" "$D/diverge.cu" > "$W/d.cu"
  "$CLANG" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_$sm $extra \
    -Xclang -target-feature -Xclang +$ptx -O2 -S "$W/d.cu" -o "$W/d.sm$sm.ptx"
  "$PTXAS" -arch=sm_$sm -O3 "$W/d.sm$sm.ptx" -o "$D/diverge.sm$sm.cubin"
  "$NVDISASM" -c "$D/diverge.sm$sm.cubin" > "$D/diverge.sm$sm.txt"
  echo "sm_$sm: $(grep -c '^\s*\.text\.' "$D/diverge.sm$sm.txt" || true) sections, $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$D/diverge.sm$sm.txt") instructions"
done
