#!/usr/bin/env bash
# Assembles fixtures/amd/edges/*.s (symbols in odd places: inside instructions, at odd offsets,
# a section cut off inside an instruction) with llvm-mc-22 and writes llvm-objdump-22's listing
# of each object beside it (NAME.txt, listed from that folder). crates/cli/tests/cli.rs checks
# that `isabridge disasm` prints the same. The target processor is the file name's second part.
set -euo pipefail
cd "$(dirname "$0")/../fixtures/amd/edges"
for s in *.s; do
  stem=${s%.s}
  cpu=${stem##*.}
  llvm-mc-22 --triple=amdgcn --mcpu="$cpu" -filetype=obj "$s" -o "$stem.o"
  llvm-objdump-22 -d "$stem.o" > "$stem.txt"
done
