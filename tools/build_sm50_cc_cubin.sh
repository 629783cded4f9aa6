#!/usr/bin/env bash
# Build the sm_50 condition-code and conversion kernels: tools/sm50_cc_kernels.py -> PTX,
# ptxas 12.9 -> cubin, nvdisasm 12.8 -> listing (fixtures/nvidia/lift/cc.sm50.{ptx,cubin,txt},
# and cc.sm86.{cubin,txt} from the same PTX).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${TOOLS:-/opt/oracles}
D=$ROOT/fixtures/nvidia/lift
python3 "$ROOT/tools/sm50_cc_kernels.py" > "$D/cc.sm50.ptx"
"$TOOLS/ptxas12" -arch=sm_50 -O3 "$D/cc.sm50.ptx" -o "$D/cc.sm50.cubin"
"$TOOLS/nvdisasm12" -c "$D/cc.sm50.cubin" > "$D/cc.sm50.txt"
# The same PTX for sm_86: its f32 atomic add kernels (ATOMG / RED .F32.FTZ.RN) run there too.
"$TOOLS/ptxas12" -arch=sm_86 -O3 "$D/cc.sm50.ptx" -o "$D/cc.sm86.cubin"
"$TOOLS/nvdisasm12" -c "$D/cc.sm86.cubin" > "$D/cc.sm86.txt"
