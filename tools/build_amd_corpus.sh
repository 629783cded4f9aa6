#!/usr/bin/env bash
# Rebuild the AMD disassembly corpus from fixtures/amd/src.
#
# For every source and every target it builds a relocatable ELF object
#   fixtures/amd/bin/<name>.<target>.o
# then writes the exact `llvm-objdump-22 -d --mcpu=<cpu>` listing
#   fixtures/amd/listings/<name>.<target>.txt
# and the per-instruction reference
#   fixtures/amd/ref/<name>.<target>.jsonl   (tools/objdump_to_jsonl.py)
#
# Targets: gfx1013-w32, gfx1013-w64, gfx1201-w32.  A source may restrict its targets with a
# line "targets: t1 t2 ..." among its first 5 lines.
#
# Sources by extension:
#   .cl   OpenCL C     clang-22 -target amdgcn-amd-amdhsa -nogpulib
#   .c    C            clang-22 -target amdgcn-amd-amdhsa -nogpulib
#   .hip  HIP          clang-22 -x hip --cuda-device-only --no-gpu-bundle-output -nogpulib -nogpuinc
#   .ll   LLVM IR      llc-22 (triple taken from the file; amdpal for graphics shaders)
#
# Usage: tools/build_amd_corpus.sh [-j N]      (default 2 parallel jobs)
set -euo pipefail

JOBS=2
if [ "${1:-}" = "-j" ]; then JOBS="$2"; fi

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
AMD="$ROOT/fixtures/amd"
SRC="$AMD/src"
BIN="$AMD/bin"
LST="$AMD/listings"
REF="$AMD/ref"

CLANG="${CLANG:-clang-22}"
LLC="${LLC:-llc-22}"
OBJDUMP="${OBJDUMP:-llvm-objdump-22}"
export CLANG LLC OBJDUMP SRC BIN LST REF ROOT
export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=0

ALL_TARGETS="gfx1013-w32 gfx1013-w64 gfx1201-w32"

rm -rf "$BIN" "$LST" "$REF"
mkdir -p "$BIN" "$LST" "$REF"

build_one() {
  # $1 = source file name (relative to $SRC), $2 = target
  local src="$1" tgt="$2"
  local name="${src%.*}" ext="${src##*.}"
  local cpu="${tgt%-w*}" wave="${tgt##*-w}"
  local obj="$name.$tgt.o"
  local w64c=() w64l=()
  if [ "$wave" = 64 ]; then w64c=(-mwavefrontsize64); w64l=(-mattr=+wavefrontsize64); fi
  # Build with relative paths from inside $SRC so no absolute path reaches the object.
  cd "$SRC"
  case "$ext" in
    cl)
      "$CLANG" -target amdgcn-amd-amdhsa -mcpu="$cpu" "${w64c[@]}" -nogpulib -O2 \
        -cl-std=CL2.0 -ffp-contract=fast -fno-ident -c "$src" -o "$BIN/$obj" ;;
    c)
      "$CLANG" -target amdgcn-amd-amdhsa -mcpu="$cpu" "${w64c[@]}" -nogpulib -O2 \
        -std=c11 -fno-ident -c "$src" -o "$BIN/$obj" ;;
    hip)
      # clang -c on HIP device code links a shared object (non-zero section addresses);
      # go through assembly instead so every object is a relocatable .o with .text at 0.
      local tmps
      tmps="$(mktemp -d)"
      "$CLANG" -x hip --cuda-device-only --no-gpu-bundle-output --offload-arch="$cpu" \
        "${w64c[@]}" -nogpulib -nogpuinc -cuid=isabridge -O2 -fno-ident -S "$src" -o "$tmps/k.s"
      "$CLANG" -target amdgcn-amd-amdhsa -mcpu="$cpu" "${w64c[@]}" -c "$tmps/k.s" -o "$BIN/$obj"
      rm -rf "$tmps" ;;
    ll)
      "$LLC" -mcpu="$cpu" "${w64l[@]}" -O2 -filetype=obj "$src" -o "$BIN/$obj" ;;
    *) echo "unknown source type: $src" >&2; return 1 ;;
  esac
  cd "$BIN"
  "$OBJDUMP" -d --mcpu="$cpu" "$obj" > "$LST/$name.$tgt.txt"
  python3 "$ROOT/tools/objdump_to_jsonl.py" "$LST/$name.$tgt.txt" "$REF/$name.$tgt.jsonl"
  echo "built $obj"
}
export -f build_one

jobs_list() {
  local f t targets
  for f in $(cd "$SRC" && ls | LC_ALL=C sort); do
    case "$f" in *.cl|*.c|*.hip|*.ll) ;; *) continue ;; esac
    targets="$(head -n 5 "$SRC/$f" | sed -n 's/.*targets:[[:space:]]*//p' | head -n 1)"
    [ -n "$targets" ] || targets="$ALL_TARGETS"
    for t in $targets; do echo "$f $t"; done
  done
}

jobs_list | xargs -P "$JOBS" -n 2 bash -c 'build_one "$0" "$1"'

# Summary: instruction records per target.
for t in $ALL_TARGETS; do
  n=$(cat "$REF"/*."$t".jsonl 2>/dev/null | wc -l)
  echo "$t: $n instructions"
done
