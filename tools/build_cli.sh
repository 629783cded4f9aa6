#!/usr/bin/env bash
# Builds the release `isabridge` command and prints its path.
#
# Everything that makes this build differ from an ordinary `cargo build --release` is in this
# script (ordinary builds use the platform's own linker, C library and allocator).
#
# The fast build is static musl (x86_64-unknown-linux-musl, with the flags in `musl_flags` below):
# glibc's start-up asks the CPU for its features and caches some forty times, and on a VM each
# of those `cpuid` instructions traps to the hypervisor: an empty static glibc program takes
# 0.46 ms from fork to exit on the development VM, a musl one 0.19 ms. The CLI brings its own
# memcpy and allocator there (crates/cli/src/musl_mem.rs, alloc.rs), as musl's cost more than
# the start-up saves. The musl target is added with rustup when missing; where that is not
# possible the host's glibc target is used, linked statically (+crt-static; where that link
# fails, which needs libc.a, the script says so and links dynamically). Either way the build profile is
# `dist`: `release` with whole-program LTO and one code unit (Cargo.toml). Where lld is
# installed (ld.lld or ld.lld-22: tools/install_oracles.sh installs lld-22) the musl build is
# linked with it and tools/symbol-order.txt, which lays the functions a listing runs out
# together: small listings 11-18 % faster than with GNU ld (BENCHMARKS.md, "seventh session").
# The output is the same as the `release` build's (tools/check_release_build.sh).
#
# FEATURES=x tools/build_cli.sh builds with the CLI's cargo features x the same way and prints
# the path of a copy, target/bench/isabridge-x (the next plain build links again).
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
musl=x86_64-unknown-linux-musl
# The musl build: static, not position-independent (the generated tables' pointers need no
# relocation at start-up; BENCHMARKS.md, "Start-up: musl"), and v0 symbol names, which carry no
# hash of the item, so that tools/symbol-order.txt keeps naming a function after its code
# changes (legacy names changed for 21 of its 366 functions in one session). The CLI's own
# allocator and memcpy (crates/cli/src/alloc.rs, c_alloc.rs, musl_mem.rs) are compiled for musl
# only.
musl_flags=(--config "target.$musl.rustflags = ['-C', 'relocation-model=static', '-C', 'target-feature=+crt-static', '-C', 'symbol-mangling-version=v0']")
feat=()
[ -z "${FEATURES:-}" ] || feat=(--features "$FEATURES")
# Prints the path of a built command ($1), or of its copy for a feature build.
done_at() {
  if [ -n "${FEATURES:-}" ]; then
    mkdir -p target/bench
    cp "$1" "target/bench/isabridge-${FEATURES//[^a-z0-9-]/_}"
    echo "$PWD/target/bench/isabridge-${FEATURES//[^a-z0-9-]/_}"
  else
    echo "$1"
  fi
}
# Says on stderr that a link failed (its errors are above) and what is done instead.
failed() {
  echo "build_cli: $1" >&2
}
if [ "$(uname -m)" = x86_64 ] && command -v rustup >/dev/null; then
  if ! rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
    rustup target add "$musl" >&2 || true
  fi
  if rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
    # With lld, the functions of tools/symbol-order.txt are laid out first, together (see
    # tools/symbol_order.sh); NO_SYMBOL_ORDER=1, no lld or a failed lld link: the default link.
    built=
    lld=$(command -v ld.lld || command -v ld.lld-22 || true)
    order=tools/symbol-order.txt
    if [ -n "$lld" ] && [ -f "$order" ] && [ "${NO_SYMBOL_ORDER:-}" != 1 ]; then
      # cc finds `ld.lld` in the -B folder: tools/lld_wrap.sh, which calls lld and lays out
      # .rodata by use (ISB_HOT_RODATA=0 at a link: lld alone). The folder is named by the
      # wrapper's code, so that a change to it makes cargo link again.
      wrap=target/lld/$(cat tools/lld_wrap.sh tools/rodata_order.py | sha256sum | cut -c1-16)
      mkdir -p "$wrap"
      rm -f "$wrap/ld.lld"
      printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$PWD/tools/lld_wrap.sh" "$lld" > "$wrap/ld.lld"
      chmod +x "$wrap/ld.lld"
      # A copy named by its contents: a new order file changes the link arguments, so cargo
      # links again.
      # tools/hot-data.txt (the .bss variables every listing touches) follows the functions.
      copy="$PWD/target/lld/order-$(cat "$order" tools/hot-data.txt | sha256sum | cut -c1-16).txt"
      [ -f "$copy" ] || cat "$order" tools/hot-data.txt > "$copy"
      # The same for the script that moves .init and .fini before .text.
      init="$PWD/target/lld/init-$(sha256sum tools/init_first.ld | cut -c1-16).ld"
      [ -f "$init" ] || cp tools/init_first.ld "$init"
      built=$(cargo rustc --profile dist -q -p isabridge-cli --bin isabridge --target "$musl" "${musl_flags[@]}" ${feat[@]+"${feat[@]}"} -- \
        -C link-arg=-fuse-ld=lld -C link-arg=-B"$PWD/$wrap" \
        -C link-arg=-Wl,--symbol-ordering-file="$copy" -C link-arg=-Wl,--no-warn-symbol-ordering -C link-arg=-Wl,-T,"$init" >&2 && echo ok || true)
      [ "$built" = ok ] || failed "the lld link with tools/symbol-order.txt failed; linking without it"
    fi
    if [ "$built" != ok ]; then
      built=$(cargo build --profile dist -q -p isabridge-cli --target "$musl" "${musl_flags[@]}" ${feat[@]+"${feat[@]}"} >&2 && echo ok || true)
      [ "$built" = ok ] || failed "the musl build failed; building for the host's C library"
    fi
    if [ "$built" = ok ]; then
      done_at "$target_dir/$musl/dist/isabridge"
      exit 0
    fi
  fi
fi
# The host's target, named, so that +crt-static reaches the executable and not the build's
# proc-macros (flags of a `--target` build apply to that target's crates only).
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  *-linux-gnu)
    if cargo build --profile dist -q -p isabridge-cli --target "$host" \
        --config "target.$host.rustflags = ['-C', 'target-feature=+crt-static']" ${feat[@]+"${feat[@]}"} >&2; then
      done_at "$target_dir/$host/dist/isabridge"
      exit 0
    fi
    failed "the static glibc link failed (libc.a missing?); linking dynamically"
    ;;
esac
cargo build --profile dist -q -p isabridge-cli ${feat[@]+"${feat[@]}"} >&2
done_at "$target_dir/dist/isabridge"
