#!/usr/bin/env bash
# The linker of tools/build_cli.sh's musl build (called as ld.lld by cc; the real lld is the
# first argument). It links as asked, then lays out .rodata by use: it runs the result on the
# bundled corpus under valgrind (tools/rodata_order.py), gives the sections of read-only data
# those listings read a symbol each (objcopy on a copy of the LTO object) and links again
# with those symbols appended to the symbol ordering file, so that the data a listing reads
# lies together and fewer pages are faulted in (BENCHMARKS.md, "twelfth session").
# The second link replaces the first only if both list every training file byte for byte
# alike; without valgrind, GNU objcopy or python3, or with ISB_HOT_RODATA=0, the first link
# stands. Nothing here changes what the command prints. ISB_WRAP_DEBUG=1: the files of a
# layout that was not used are kept in target/lld/debug, with the link arguments.
set -uo pipefail
real=$1
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
all=("$@")
# GNU objcopy: llvm-objcopy 22 leaves the added local symbols after the global ones in this
# object (of more than 65,280 sections), which lld rejects.
objcopy=$(command -v objcopy || true)
if [ "${ISB_HOT_RODATA:-1}" != 1 ] || [ -z "$objcopy" ] || ! command -v valgrind >/dev/null || ! command -v python3 >/dev/null; then
  exec "$real" "$@"
fi
out=
order=
prev=
objs=()
for a in "$@"; do
  case $prev in -o) out=$a ;; esac
  case $a in
    --symbol-ordering-file=*) order=${a#*=} ;;
    *.rcgu.o) objs+=("$a") ;;
    @*) exec "$real" "$@" ;;   # a response file: link as asked
  esac
  prev=$a
done
if [ -z "$out" ] || [ -z "$order" ] || [ ${#objs[@]} = 0 ]; then
  exec "$real" "$@"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$real" "$@" -Map="$tmp/map" || exit $?
# What happened goes to target/lld/last.log too (rustc shows a linker's output only when it fails).
log=$repo/target/lld/last.log
mkdir -p "$repo/target/lld"
: > "$log"
# Gives up on the layout (the plain link in "$out" stands), keeping its files with
# ISB_WRAP_DEBUG=1.
note() {
  echo "lld_wrap: $*; keeping the plain link" | tee -a "$log" >&2
  if [ -n "${ISB_WRAP_DEBUG:-}" ]; then
    dbg=$repo/target/lld/debug
    rm -rf "$dbg"
    cp -r "$tmp" "$dbg"
    mkdir -p "$dbg/orig"
    cp "${objs[@]}" "$dbg/orig/"
    printf "%s\n" "$real" "${all[@]}" > "$dbg/args"
  fi
  exit 0
}
cp "$out" "$tmp/plain"
# The bundled corpus, without the large objects (a run under lackey costs seconds per 10,000
# instructions; the small listings are those whose time is start-up).
train=()
for f in "$repo"/fixtures/amd/bin/*.o "$repo"/fixtures/nvidia/bin/*.cubin; do
  [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 100000 ] && train+=("$f")
done
[ ${#train[@]} -gt 0 ] || note "no training files"
python3 "$repo/tools/rodata_order.py" --map "$tmp/map" --bin "$tmp/plain" --order "$order" \
  --dir "$tmp" --objects "${objs[@]}" --train "${train[@]}" 2>>"$log" || note "no layout"
args=()
prev=
for a in "$@"; do
  if [ "$prev" = -o ]; then
    args+=("$tmp/hot")
  else
    case $a in
      --symbol-ordering-file=*) args+=("--symbol-ordering-file=$tmp/order.txt") ;;
      *.rcgu.o)
        b=$tmp/$(basename "$a")
        if [ -f "$b.args" ]; then
          "$objcopy" @"$b.args" "$a" "$b" 2>>"$log" || note "objcopy failed"
          args+=("$b")
        else
          args+=("$a")
        fi ;;
      *) args+=("$a") ;;
    esac
  fi
  prev=$a
done
# The layout of the second link stays in target/lld/last.map (for tools/rodata_order.py's
# kind of analysis: which input section lies where).
"$real" "${args[@]}" -Map="$tmp/hot.map" 2>>"$log" || note "the second link failed"
for f in "${train[@]}"; do
  cmp -s <("$tmp/plain" disasm "$f" 2>&1) <("$tmp/hot" disasm "$f" 2>&1) || note "$f lists differently"
done
cp "$tmp/hot" "$out"
cp "$tmp/hot.map" "$repo/target/lld/last.map"
echo "lld_wrap: laid out .rodata by use (${#train[@]} training listings)" >> "$log"
