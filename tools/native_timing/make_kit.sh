#!/usr/bin/env bash
# Make the kit for timing translated kernels against natively compiled ones on the GPU machine
# (issue 29): devkit/ with the release CLI, the Vulkan loader packages (the machine has the
# driver but no loader: ../shared/oracles/NOTES.md), the sm_86 corpus cubins, the same sources
# built for sm_90 (clang-22 -> PTX -> ptxas 12.9), random inputs, ntime.c (CUDA driver API
# timing) and run_on_device.sh. devkit/ is git-ignored (generated, ~18 MiB); the device tool
# takes it with `carry: ["devkit"]`, and the working tree it copies must stay under 64 MiB:
# `git sparse-checkout set --no-cone /devkit` first, `git sparse-checkout disable` after. Then: `sh devkit/run_on_device.sh` (timing) and `sh devkit/conform_on_device.sh` (conform rdna and
# ptx-rows --via spirv on the device's Vulkan driver)
# (writes $OUT/timing.txt: per kernel the GPU time of `isabridge run --via spirv --time N`
# and of the native launch, and how many output words of the two runs are equal).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
K=$ROOT/devkit
TOOLS=${TOOLS:-/opt/oracles}
rm -rf "$K" && mkdir -p "$K"/{bin,debs,native,in,cubins}
cargo build --release -q -p isabridge-cli
cp "${CARGO_TARGET_DIR:-$ROOT/target}/release/isabridge" "$K/bin/"
(cd "$K/debs" && apt-get download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2)
for n in fp32 int control special fp64; do
  cp "$ROOT/fixtures/nvidia/bin/$n.sm86.cubin" "$K/cubins/"
  clang-22 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_90 \
    -Xclang -target-feature -Xclang +ptx81 -O2 -S "$ROOT/fixtures/nvidia/src/$n.cu" -o "$K/native/$n.sm90.ptx"
  "$TOOLS/ptxas12" -arch=sm_90 -O3 "$K/native/$n.sm90.ptx" -o "$K/native/$n.sm90.cubin"
done
python3 - "$K/in" <<'PY'
import random, struct, sys
d = sys.argv[1]; random.seed(7)
def w(name, fmt, vals): open(f"{d}/{name}", "wb").write(struct.pack(f"<{len(vals)}{fmt}", *vals))
T, T2 = 16384, 65536
for x in "ABC":
    w("f" + x, "f", [random.uniform(-100, 100) for _ in range(T)])
    w("i" + x, "i", [random.randint(-2**31, 2**31 - 1) for _ in range(T)])
    w("d" + x, "d", [random.uniform(-100, 100) for _ in range(T)])
w("loops_in", "i", [random.randint(1, 1000) for _ in range(T)])
w("div_in", "f", [random.uniform(-10, 10) for _ in range(T2)])
w("div_sel", "i", [random.randint(0, 31) for _ in range(T2)])
w("pa", "i", [random.randint(-50, 50) for _ in range(T2)])
w("pb", "i", [random.randint(-50, 50) for _ in range(T2)])
PY
cp "$ROOT/tools/native_timing/ntime.c" "$ROOT/tools/native_timing/run_on_device.sh" "$ROOT/tools/native_timing/conform_on_device.sh" "$K/"
# The conform runs on the device's Vulkan driver (conform_on_device.sh).
mkdir -p "$K/fx"
cp "$ROOT/fixtures/rdna/vectors.jsonl" "$ROOT/fixtures/hw/ptx_ops_sm90_seed1.txt.gz" "$ROOT/fixtures/hw/capture.sm86.cubin" "$ROOT/fixtures/hw/capture.sm50.cubin" "$K/fx/"
echo "kit in $K (git-ignored; the device tool carries it with carry: devkit)"
