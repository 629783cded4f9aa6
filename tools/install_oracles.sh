#!/usr/bin/env bash
# Installs the reference tools isabridge compares against, on Debian 12 (x86-64, no GPU).
#   LLVM 22 (llvm-mc-22, llvm-objdump-22, clang-22, llc-22): AMD decode/print/encode oracle.
#   spirv-tools (spirv-val), mesa-vulkan-drivers (lavapipe) and libvulkan1: SPIR-V backend.
#   NVIDIA ptxas 12.9 and nvdisasm 12.8 (tools/install_nvidia_oracles.sh): set WITH_NVIDIA=1.
# Idempotent; needs root for apt.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if ! command -v llvm-mc-22 >/dev/null || ! command -v llvm-objdump-22 >/dev/null; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends llvm-22 clang-22 lld-22 >/dev/null
fi
llvm-mc-22 --version | sed -n 2p
# spirv-tools: spirv-val checks every SPIR-V module the SPIR-V backend emits (crates/targets).
if ! command -v spirv-val >/dev/null; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends spirv-tools >/dev/null
fi
spirv-val --version | sed -n 1p
# Mesa lavapipe (a CPU Vulkan driver) and the Vulkan loader: the SPIR-V backend's tests run the
# emitted kernels on it.
if ! dpkg -s mesa-vulkan-drivers libvulkan1 >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers libvulkan1 >/dev/null
fi
# Headless Chromium renders the census HTML report in crates/cli/tests/census.rs.
if ! command -v chromium >/dev/null; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
if [ "${WITH_NVIDIA:-0}" = 1 ]; then
  "$(dirname "$0")/install_nvidia_oracles.sh"
fi
