#!/usr/bin/env bash
# Build the NVIDIA corpus: fixtures/nvidia/src/*.cu (clang-22 -> PTX) and src/*.ptx,
# assembled by ptxas 12.9 for sm_50 and sm_86, then listed by nvdisasm 12.8.
#   fixtures/nvidia/ptx/<name>.sm<XX>.ptx        PTX made by clang-22 (for .cu sources)
#   fixtures/nvidia/bin/<name>.sm<XX>.cubin      ptxas 12.9 output
#   fixtures/nvidia/listings/<name>.sm<XX>.txt   nvdisasm 12.8 -c -hex
#   fixtures/nvidia/ref/<name>.sm<XX>.jsonl      one JSON object per instruction
# Needs tools/install_nvidia_oracles.sh (TOOLS=/opt/oracles by default) and clang-22.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${TOOLS:-/opt/oracles}
CLANG=${CLANG:-clang-22}
PTXAS=${PTXAS:-$TOOLS/ptxas12}
export TOOLS NVDISASM=${NVDISASM:-$TOOLS/nvdisasm12}
F=$ROOT/fixtures/nvidia
rm -rf "$F/ptx" "$F/bin" "$F/listings" "$F/ref"
mkdir -p "$F/ptx" "$F/bin" "$F/listings" "$F/ref"
ptxver() { case $1 in 50) echo ptx70 ;; *) echo ptx81 ;; esac; }
for sm in 50 86; do
  for src in "$F"/src/*.cu; do
    n=$(basename "$src" .cu)
    "$CLANG" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_$sm \
      -Xclang -target-feature -Xclang +"$(ptxver $sm)" -O2 -S "$src" -o "$F/ptx/$n.sm$sm.ptx"
    "$PTXAS" -arch=sm_$sm -O3 "$F/ptx/$n.sm$sm.ptx" -o "$F/bin/$n.sm$sm.cubin"
  done
  for src in "$F"/src/*.ptx; do
    n=$(basename "$src" .ptx)
    "$PTXAS" -arch=sm_$sm -O3 "$src" -o "$F/bin/$n.sm$sm.cubin"
  done
  for c in "$F"/bin/*.sm$sm.cubin; do
    n=$(basename "$c" .cubin)
    (cd "$ROOT/tools" && python3 -m nvspec.corpus_ref "$c" "$sm" "$F/ref/$n.jsonl" "$F/listings/$n.txt")
  done
done
cat "$F"/ref/*.sm50.jsonl | wc -l | sed 's/^/sm50 instructions: /'
cat "$F"/ref/*.sm86.jsonl | wc -l | sed 's/^/sm86 instructions: /'
