#!/usr/bin/env bash
# The release CLI of tools/build_cli.sh (static musl, `dist` profile) against the ordinary
# `release` build (the platform's own linker and allocator): the same bytes for every bundled
# object and cubin (text, --json, --control), and the CLI's tests (crates/cli/tests/cli.rs) run
# against it. Part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
rel=$(tools/build_cli.sh)
cargo build --release -q -p isabridge-cli
ref=$(realpath "${CARGO_TARGET_DIR:-target}/release/isabridge")
if [ "$rel" = "$ref" ]; then
  echo "check_release_build: no musl build here; nothing to compare"
  exit 0
fi
n=0
for f in fixtures/amd/bin/*.o fixtures/nvidia/bin/*.cubin; do
  for opt in "" --json --control; do
    [ "$opt" = --control ] && case "$f" in *.o) continue ;; esac
    if ! cmp -s <("$rel" disasm $opt "$f") <("$ref" disasm $opt "$f"); then
      echo "check_release_build: $f $opt differs" >&2
      exit 1
    fi
    n=$((n + 1))
  done
done
cmp -s <("$rel" census --quiet --json fixtures/amd/bin fixtures/nvidia/bin) \
       <("$ref" census --quiet --json fixtures/amd/bin fixtures/nvidia/bin) \
  || { echo "check_release_build: census differs" >&2; exit 1; }
echo "check_release_build: $n listings and the census equal"
# How much of tools/symbol-order.txt the build still names (a stale name costs only speed).
if [ -f tools/symbol-order.txt ] && command -v nm >/dev/null; then
  have=$(grep -v '^#' tools/symbol-order.txt | sort -u | comm -12 - <(nm "$rel" | awk '{print $NF}' | sort -u) | wc -l)
  want=$(grep -vc '^#' tools/symbol-order.txt)
  echo "check_release_build: the build has $have of the $want functions of tools/symbol-order.txt"
  if [ $((100 * have)) -lt $((80 * want)) ]; then
    echo "check_release_build: warning: under 80 %; regenerate it with tools/symbol_order.sh" >&2
  fi
fi
ISABRIDGE_BIN="$rel" cargo test --release -q -p isabridge-cli --test cli
