#!/usr/bin/env bash
# Linker for x86_64-unknown-linux-gnu (named in .cargo/config.toml). Every link is passed to
# `cc` unchanged except that of the `isabridge` executable, which is linked statically, as
# `-C target-feature=+crt-static` would link it: no dynamic loader, libc and libgcc_s to map
# and bind at every start (`isabridge --version`: 0.70 -> 0.36 ms task-clock, 85 -> 47 page
# faults on the development VM). crt-static itself cannot be set for one crate of a workspace
# with proc-macro dependencies from Cargo's configuration; this does the same rewrite of the
# link line (std's libraries are the same either way). Where the static link fails (no
# libc.a), the executable is linked dynamically as before.
out=
prev=
for a in "$@"; do
  [ "$prev" = "-o" ] && out=$a
  prev=$a
done
case "$out" in
  */deps/isabridge-????????????????) ;;
  *) exec "${CC_FOR_RUST:-cc}" "$@" ;;
esac
args=()
gcc_s=0
skip=0
for a in "$@"; do
  if [ $skip = 1 ]; then skip=0; continue; fi
  case "$a" in
    -Wl,-Bdynamic) [ $gcc_s = 0 ] && { gcc_s=1; continue; } ;;
    -lgcc_s) continue ;;
    -pie) args+=(-static); continue ;;
    -lc) args+=(-lc -lgcc_eh -lgcc -lc); continue ;;
  esac
  args+=("$a")
done
"${CC_FOR_RUST:-cc}" "${args[@]}" 2>/dev/null || exec "${CC_FOR_RUST:-cc}" "$@"
