#!/usr/bin/env bash
# `isabridge disasm` against `llvm-objdump-22 -d` as whole processes on the same files
# (goal: >= 50x faster). Needs gcc (for tools/interleave_timer.c) and a release build; with clang-22 it
# also builds two large objects (about 450,000 and 520,000 instructions of varied generated
# OpenCL kernels) under target/bench/.
#
#   tools/bench_disasm.sh            every bundled AMD object, then the large ones
#   FILES="a.o b.o" tools/bench_disasm.sh
#   VS=path/to/isabridge tools/bench_disasm.sh  also times that build (another commit),
#                                    interleaved with the others: two columns, its median
#                                    and the reference tool's time over it
#   RUNS=20 tools/bench_disasm.sh    more runs per command (default 10)
#   BIN=path/to/isabridge tools/bench_disasm.sh   times that build instead of building one
#
# Prints one row per file: instructions, distinct instructions, median wall time of each tool
# and the ratio; the median time of a program that does nothing (tools/empty_process.rs, "floor")
# and llvm-objdump's time over it ("best"): no program can beat that ratio on this host, so
# where "best" is near 50 the goal is out of reach whatever the disassembler does; isabridge's
# page faults (perf stat, when perf is installed; on the development VM a first touch of a page
# costs about 2 us, tools/fault_cost.c, most of a small object's time), and checks that both
# listings are the same bytes. Medians, not means: on the development VM single runs of either
# tool now and then take twice as long, and a mean follows them. The tools run interleaved, one
# run of each per round (tools/bench_lib.sh says why); RUNS is the number of rounds.
#
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/bench_lib.sh         # interleaved timing (medians), ratio
bin=${BIN:-$(tools/build_cli.sh)}   # the release CLI (static musl where possible); BIN=path: that build
vs=${VS:-}
objdump=$(command -v llvm-objdump-22) || { echo "llvm-objdump-22 not found (tools/install_oracles.sh)" >&2; exit 2; }
floor=$(tools/empty_process.sh)   # a program that does nothing, built the same way
out=target/bench
mkdir -p "$out"

big() {
  # Deterministic random kernels: every line differs, so the code is varied, as in real
  # shaders (the bundled corpus repeats small kernels).
  command -v clang-22 >/dev/null || return 0
  [ -f "$out/big.cl" ] || python3 - "$out/big.cl" <<'EOF'
import random, sys
r = random.Random(7)
types = ['int', 'uint', 'float', 'double', 'short', 'long', 'half']
funcs = ['sqrt', 'fabs', 'floor', 'ceil', 'exp2', 'log2', 'rsqrt', 'sin', 'fmin', 'fmax', 'fma']
def expr(t, d):
    fl = t in ('float', 'double', 'half')
    if d == 0 or r.random() < 0.2:
        c = r.choice(['x', 'y', 'z', 'w'])
        if r.random() < 0.3:
            c = ('(%s)%d.%d' % (t, r.randint(0, 999), r.randint(0, 9))) if fl else ('(%s)%d' % (t, r.randint(-100, 100000)))
        return c
    if fl and r.random() < 0.3:
        f = r.choice(funcs)
        if f in ('fmin', 'fmax'):
            return '%s(%s, %s)' % (f, expr(t, d - 1), expr(t, d - 1))
        if f == 'fma':
            return 'fma(%s, %s, %s)' % (expr(t, d - 1), expr(t, d - 1), expr(t, d - 1))
        return '%s(%s)' % (f, expr(t, d - 1))
    if r.random() < 0.15:
        return '((%s) > (%s) ? (%s) : (%s))' % tuple(expr(t, d - 1) for _ in range(4))
    if not fl and r.random() < 0.15:
        return '((%s) >> %d)' % (expr(t, d - 1), r.randint(1, 7))
    return '(%s %s %s)' % (expr(t, d - 1), r.choice(['+', '-', '*', '/'] if fl else ['+', '-', '*', '&', '|', '^']), expr(t, d - 1))
with open(sys.argv[1], 'w') as f:
    f.write('#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n')
    for k in range(1500):
        t = r.choice(types)
        f.write('kernel void k%d(global %s *o, global const %s *a, int n) {\n  int i = get_global_id(0);\n' % (k, t, t))
        f.write('  %s x = a[i], y = a[i + 1], z = a[i + 2], w = a[i + 3];\n' % t)
        if r.random() < 0.4:
            f.write('  for (int j = 0; j < n; j++) { x = %s; y = %s; }\n' % (expr(t, 3), expr(t, 2)))
        f.write('  o[i] = %s;\n}\n' % expr(t, 6))
EOF
  for cpu in gfx1013 gfx1201; do
    [ -f "$out/big.$cpu-w32.o" ] || clang-22 -target amdgcn-amd-amdhsa -mcpu=$cpu -nogpulib -O2 \
      -cl-std=CL2.0 -fno-ident -w -c "$out/big.cl" -o "$out/big.$cpu-w32.o"
  done
  echo "$out/big.gfx1013-w32.o $out/big.gfx1201-w32.o"
}

files="${FILES:-$(ls fixtures/amd/bin/*.o) $(big)}"
printf '%-32s %9s %9s %12s %14s %8s %9s %7s %7s' file insts distinct "isabridge ms" "objdump-22 ms" ratio "floor ms" best faults
[ -n "${vs:-}" ] && printf ' %12s %7s' "VS ms" "VS x"
echo
for f in $files; do
  llvm-objdump-22 -d "$f" > "$out/ref.txt"
  "$bin" disasm "$f" > "$out/our.txt"
  cmp -s "$out/ref.txt" "$out/our.txt" || { echo "$f: listings differ" >&2; exit 1; }
  n=$(grep -c '// ' "$out/ref.txt")
  u=$(grep '// ' "$out/ref.txt" | sed 's/ *\/\/.*//' | sort -u | wc -l)
  read -r a b e c < <(medians "${RUNS:-10}" "$f" "$bin disasm {}" "$objdump -d {}" "$floor" ${vs:+"$vs disasm {}"})
  pf=$(perf stat -x, -e page-faults "$bin" disasm "$f" 2>&1 >/dev/null | cut -d, -f1) || pf=-
  printf '%-32s %9d %9d %12.2f %14.2f %7.1fx %9.2f %6.0fx %7s' "$(basename "$f")" "$n" "$u" "$a" "$b" \
    "$(ratio "$b" "$a")" "$e" "$(ratio "$b" "$e")" "${pf:--}"
  [ -n "${vs:-}" ] && printf ' %12.2f %6.1fx' "$c" "$(ratio "$b" "$c")"
  echo
done
