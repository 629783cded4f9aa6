#!/usr/bin/env bash
# `isabridge disasm` against `llvm-objdump-22 -d` as whole processes on the same files
# (goal: >= 50x faster). Needs hyperfine (Debian package) and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p isabridge-cli
for f in fixtures/amd/bin/cl_math.gfx1013-w32.o fixtures/amd/bin/cl_math.gfx1201-w32.o; do
  n=$(llvm-objdump-22 -d "$f" | grep -c '// ')
  echo "== $f ($n instructions)"
  hyperfine -N --warmup 2 --runs "${RUNS:-10}" \
    "target/release/isabridge disasm $f" \
    "llvm-objdump-22 -d $f" 2>&1 | grep -E "Time|±|faster|isabridge|llvm-objdump"
done
