#!/usr/bin/env bash
# Build the call kernels (fixtures/nvidia/calls/calls.cu) for sm_86 and sm_50:
# clang-22 -> PTX, ptxas 12.9 -> cubin, nvdisasm 12.8 -> listing. The input is the divergence
# kernels' (fixtures/hw/divergence/input.bin).
#   fixtures/nvidia/calls/calls.sm<XX>.cubin   kernels k_* (extern "C" names)
#   fixtures/nvidia/calls/calls.sm<XX>.txt     nvdisasm -c listing
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${TOOLS:-/opt/oracles}
CLANG=${CLANG:-clang-22}
PTXAS=${PTXAS:-$TOOLS/ptxas12}
NVDISASM=${NVDISASM:-$TOOLS/nvdisasm12}
D=$ROOT/fixtures/nvidia/calls
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cat > "$W/prelude.h" <<'PRE'
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
PRE
for sm in 86 50; do
  ptx=ptx81
  if [ "$sm" = 50 ]; then ptx=ptx70; fi
  cat "$W/prelude.h" "$D/calls.cu" > "$W/c.cu"
  "$CLANG" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_$sm \
    -Xclang -target-feature -Xclang +$ptx -O2 -S "$W/c.cu" -o "$W/c.sm$sm.ptx"
  "$PTXAS" -arch=sm_$sm -O3 "$W/c.sm$sm.ptx" -o "$D/calls.sm$sm.cubin"
  "$NVDISASM" -c "$D/calls.sm$sm.cubin" > "$D/calls.sm$sm.txt"
  echo "sm_$sm: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$D/calls.sm$sm.txt") instructions"
done
