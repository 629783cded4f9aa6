#!/usr/bin/env bash
# Install the two NVIDIA oracles used by tools/nvspec and tools/build_nvidia_corpus.sh:
#   ptxas 12.9   from PyPI nvidia-cuda-nvcc-cu12==12.9.86      -> $TOOLS/ptxas12
#   nvdisasm 12.8 (last release that reads SM50), bundled in the
#                triton==3.3.1 wheel (triton/backends/nvidia/bin) -> $TOOLS/nvdisasm12
# Both are x86-64 Linux CPU binaries; no GPU is needed. Idempotent.
set -euo pipefail
TOOLS=${TOOLS:-/opt/oracles}
PY=${PYTHON:-python3}
mkdir -p "$TOOLS"

if [ ! -x "$TOOLS/cu12/bin/pip" ]; then
  "$PY" -m venv "$TOOLS/cu12"
fi
if ! [ -x "$TOOLS/cu12/lib/python3"*/site-packages/nvidia/cuda_nvcc/bin/ptxas ] 2>/dev/null; then
  "$TOOLS/cu12/bin/pip" install -q nvidia-cuda-nvcc-cu12==12.9.86
fi
ptxas=$(ls "$TOOLS"/cu12/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas | head -1)
ln -sf "$ptxas" "$TOOLS/ptxas12"

if [ ! -x "$TOOLS/cuda128/bin/nvdisasm" ]; then
  dl=$(mktemp -d)
  trap 'rm -rf "$dl"' EXIT
  "$PY" -m pip download -q --no-deps -d "$dl" --python-version 3.11 \
      --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
      --only-binary=:all: triton==3.3.1
  mkdir -p "$TOOLS/cuda128/bin"
  "$PY" - "$dl" "$TOOLS/cuda128/bin" <<'PY'
import glob, os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
whl = zipfile.ZipFile(glob.glob(os.path.join(src, 'triton-3.3.1-*.whl'))[0])
for tool in ('nvdisasm', 'cuobjdump'):
    out = os.path.join(dst, tool)
    with open(out, 'wb') as f:
        f.write(whl.read('triton/backends/nvidia/bin/' + tool))
    os.chmod(out, 0o755)
PY
fi
ln -sf "$TOOLS/cuda128/bin/nvdisasm" "$TOOLS/nvdisasm12"

"$TOOLS/ptxas12" --version | tail -1
"$TOOLS/nvdisasm12" --version | tail -1
