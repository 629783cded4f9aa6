#!/usr/bin/env bash
# Capture the divergence kernels' expected outputs on an NVIDIA GPU (the committed ones come
# from an H200 with CUDA 13.0: nvcc -arch=sm_90). Run from the repository root on the GPU
# machine: tools/capture_divergence.sh OUTDIR, then copy OUTDIR/*.bin to
# fixtures/hw/divergence/expected/. ARCH overrides the GPU arch (default sm_90).
set -euo pipefail
OUT=${1:?usage: tools/capture_divergence.sh OUTDIR}
D=fixtures/hw/divergence
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT"
"$NVCC" -O2 -arch="${ARCH:-sm_90}" -I"$D" -o "$OUT/capture_divergence" "$D/capture_divergence.cu"
"$OUT/capture_divergence" "$D/input.bin" "$OUT"
rm "$OUT/capture_divergence"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" || true
"$NVCC" --version | tail -2 >> "$OUT/device.txt"
