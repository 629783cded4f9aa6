#!/bin/sh
# On the device: the Vulkan loader from debs, then both conform runs --via spirv on the NVIDIA driver.
cd "$(dirname "$0")"
for d in debs/*.deb; do dpkg -x "$d" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
LOG=${OUT:-/tmp}/conform.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$LOG"
t() { echo "== $*" >> "$LOG"; s=$(date +%s%3N); timeout 200 "$@" >> "$LOG" 2>&1; r=$?; echo "exit $r in $(( $(date +%s%3N) - s )) ms" >> "$LOG"; }
t bin/isabridge --vk-device 0 conform rdna fx/vectors.jsonl --via spirv
t bin/isabridge --vk-device 0 conform ptx-rows fx/ptx_ops_sm90_seed1.txt.gz --cubin fx/capture.sm86.cubin --via spirv
t bin/isabridge --vk-device 0 conform ptx-rows fx/ptx_ops_sm90_seed1.txt.gz --cubin fx/capture.sm50.cubin --via spirv
tail -5 "$LOG"
