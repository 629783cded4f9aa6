#!/usr/bin/env bash
# Builds tools/empty_process.rs (a program that does nothing) like the release command, static
# musl where that target is installed, and prints its path: the benchmark scripts time it
# beside the two disassemblers as the host's process floor.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/bench/empty_process
mkdir -p target/bench
if [ ! -x "$out" ] || [ tools/empty_process.rs -nt "$out" ]; then
  if rustup target list --installed 2>/dev/null | grep -qx x86_64-unknown-linux-musl; then
    rustc -O --edition 2021 --target x86_64-unknown-linux-musl -C target-feature=+crt-static \
      -C relocation-model=static tools/empty_process.rs -o "$out" >&2
  else
    rustc -O --edition 2021 -C target-feature=+crt-static tools/empty_process.rs -o "$out" >&2
  fi
fi
echo "$PWD/$out"
