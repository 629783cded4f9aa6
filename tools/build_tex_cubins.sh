#!/bin/sh
# Builds the texture and surface test kernels (fixtures/nvidia/tex/*.ptx) with ptxas 12 for
# sm_86; crates/decoder/tests/nv_surface.rs lifts and runs them.
set -e
cd "$(dirname "$0")/../fixtures/nvidia/tex"
PTXAS=${PTXAS:-/opt/oracles/ptxas12}
for p in *.ptx; do
  "$PTXAS" -arch=sm_86 "$p" -o "${p%.ptx}.sm86.cubin"
done
