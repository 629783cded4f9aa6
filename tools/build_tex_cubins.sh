#!/bin/sh
# Builds the texture and surface test kernels (fixtures/nvidia/tex/*.ptx) with ptxas 12 for
# sm_50 and sm_86; crates/decoder/tests/nv_surface.rs lifts and runs them.
set -e
cd "$(dirname "$0")/../fixtures/nvidia/tex"
PTXAS=${PTXAS:-/opt/oracles/ptxas12}
for p in *.ptx; do
  for sm in 50 86; do
    "$PTXAS" -arch=sm_$sm "$p" -o "${p%.ptx}.sm$sm.cubin"
  done
done
