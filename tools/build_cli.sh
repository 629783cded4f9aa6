#!/usr/bin/env bash
# Builds the release `isabridge` command and prints its path.
#
# The fast build is static musl (x86_64-unknown-linux-musl, settings in .cargo/config.toml):
# glibc's start-up asks the CPU for its features and caches some forty times, and on a VM each
# of those `cpuid` instructions traps to the hypervisor: an empty static glibc program takes
# 0.46 ms from fork to exit on the development VM, a musl one 0.19 ms. The CLI brings its own
# memcpy and allocator there (crates/cli/src/musl_mem.rs, alloc.rs), as musl's cost more than
# the start-up saves. The musl target is added with rustup when missing; where that is not
# possible the host's target is used (target/dist/isabridge). Either way the build profile is
# `dist`: `release` with whole-program LTO and one code unit (Cargo.toml). The output is the
# same as the `release` build's (tools/check_release_build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
musl=x86_64-unknown-linux-musl
if [ "$(uname -m)" = x86_64 ] && command -v rustup >/dev/null; then
  if ! rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
    rustup target add "$musl" >&2 || true
  fi
  if rustup target list --installed 2>/dev/null | grep -qx "$musl" \
     && cargo build --profile dist -q -p isabridge-cli --target "$musl" >&2; then
    echo "$PWD/target/$musl/dist/isabridge"
    exit 0
  fi
fi
cargo build --profile dist -q -p isabridge-cli >&2
echo "$PWD/target/dist/isabridge"
