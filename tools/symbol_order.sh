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
  echo "# while listing the bundled corpus, grouped by the ISAs whose listings run them, the most"
  echo "# run first)."
  for t in "$tmp"/cg.*; do
    # The rows of the functions that ran, without their instruction counts, after the run's
    # number and ISA.
    isa=$(cat "$tmp/isa.${t##*.}")
    callgrind_annotate --threshold=100 "$t" 2>/dev/null | sed -nE "s/^ *[0-9,]+ \([^)]*\) +(.*)\$/${t##*.} $isa \1/p"
  done | python3 -c '
import sys
# Groups by the ISAs whose listings run a function: code every ISA runs, both NVIDIA ISAs,
# sm50, sm86, both AMD ISAs, gfx1013, gfx1201, then any other mix. Within a group the functions
# that more of the corpus runs come first, so that what every small listing runs lies at the
# head of each group (the start-up code that callgrind does not name is added there).
sys.path.insert(0, "tools")
from rodata_order import GROUPS as order  # the same groups, in the same order, as the data layout
isas, runs = {}, {}
for line in sys.stdin:
    run, isa, name = line.strip().split(" ", 2)
    if name.endswith("]"):
        name = name[: name.rfind(" [")]
    name = name.split(":", 1)[-1]  # "file:function" (names are not demangled: no colons)
    if name.startswith("0x") or name in ("PROGRAM TOTALS", "(below main)") or " " in name:
        continue
    isas.setdefault(name, set()).add(isa)
    runs.setdefault(name, set()).add(run)
every = set(order[0])
# The assembly functions of musl (no symbol size: callgrind names them by address) and _Exit (run
# after the last dump of callgrind) run in every listing too.
for name in ("_start", "__libc_start_main", "__set_thread_area", "memset", "_Exit"):
    isas[name] = every
    runs[name] = set(x for r in runs.values() for x in r)
def key(name):
    g = tuple(sorted(isas[name]))
    return (order.index(g) if g in order else len(order), g, -len(runs[name]), name)
for name in sorted(isas, key=key):
    print(name)
'
} > tools/symbol-order.txt
echo "symbol_order: $(grep -vc '^#' tools/symbol-order.txt) functions in tools/symbol-order.txt"
