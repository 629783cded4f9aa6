#!/usr/bin/env bash
# Build the sm_50 generic-address kernels: fixtures/nvidia/generic/generic.sm50.ptx (written by
# hand), ptxas 12.9 -> generic.sm50.cubin, nvdisasm 12.8 -> generic.sm50.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${TOOLS:-/opt/oracles}
D=$ROOT/fixtures/nvidia/generic
"$TOOLS/ptxas12" -arch=sm_50 -O3 "$D/generic.sm50.ptx" -o "$D/generic.sm50.cubin"
"$TOOLS/nvdisasm12" -c "$D/generic.sm50.cubin" > "$D/generic.sm50.txt"
