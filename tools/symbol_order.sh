#!/usr/bin/env bash
# Writes tools/symbol-order.txt: the functions the release command runs while listing the
# bundled corpus, in name order (the set is what matters; from run to run it differs at most
# in a wait function or two that a thread reaches only when it has to sleep).
# tools/build_cli.sh links with lld and this file (`--symbol-ordering-file`), so that the code
# a run needs lies together and fewer pages of the executable are faulted in (on the
# development VM a fault costs 2.5-4.7 us, tools/fault_cost.c; a small object took 10-15
# fewer, BENCHMARKS.md "seventh session").
# Needs valgrind. Rerun after changes that add, remove or rename many functions, or a new
# toolchain: the file names mangled symbols, and tools/check_release_build.sh says how many of
# them the current build still has. A missing name only costs speed, never correctness.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "symbol_order: needs valgrind" >&2; exit 2; }
bin=$(NO_SYMBOL_ORDER=1 tools/build_cli.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for f in fixtures/amd/bin/*.o fixtures/nvidia/bin/*.cubin; do
  i=$((i + 1))
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/cg.$i" "$bin" disasm "$f" >/dev/null 2>&1
  case $f in *gfx1013*) echo gfx1013 ;; *gfx1201*) echo gfx1201 ;; *sm50*) echo sm50 ;; *) echo sm86 ;; esac > "$tmp/isa.$i"
done
{
  echo "# DO NOT EDIT: written by tools/symbol_order.sh (the functions the release command runs"
  echo "# while listing the bundled corpus, grouped by the ISAs whose listings run them, then by"
  echo "# name)."
  for t in "$tmp"/cg.*; do
    # The rows of the functions that ran, without their instruction counts, after the ISA.
    isa=$(cat "$tmp/isa.${t##*.}")
    callgrind_annotate --threshold=100 "$t" 2>/dev/null | sed -nE "s/^ *[0-9,]+ \([^)]*\) +(.*)\$/$isa \1/p"
  done | python3 -c '
import sys
# Laid out so that each ISA runs one stretch of code (sm86 and gfx1013 sit between their
# neighbours; sm50 and gfx1201 skip one group): sm50 only, both NVIDIA ISAs, sm86 only, code
# every ISA runs, gfx1013 only, both AMD ISAs, gfx1201 only, then any other mix.
order = [("sm50",), ("sm50", "sm86"), ("sm86",), ("gfx1013", "gfx1201", "sm50", "sm86"), ("gfx1013",), ("gfx1013", "gfx1201"), ("gfx1201",)]
isas = {}
for line in sys.stdin:
    isa, _, name = line.strip().partition(" ")
    if name.endswith("]"):
        name = name[: name.rfind(" [")]
    name = name.split(":", 1)[-1]  # "file:function" (names are not demangled: no colons)
    if name.startswith("0x") or name in ("PROGRAM TOTALS", "(below main)") or " " in name:
        continue
    isas.setdefault(name, set()).add(isa)
def key(name):
    g = tuple(sorted(isas[name]))
    return (order.index(g) if g in order else len(order), g, name)
for name in sorted(isas, key=key):
    print(name)
'
} > tools/symbol-order.txt
echo "symbol_order: $(grep -vc '^#' tools/symbol-order.txt) functions in tools/symbol-order.txt"
