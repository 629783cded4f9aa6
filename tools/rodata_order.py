#!/usr/bin/env python3
"""Works out which read-only data a listing reads, for tools/lld_wrap.sh.

Runs a linked `isabridge` under `valgrind --tool=lackey` on each training file, maps every
address it reads in .rodata to the input section that holds it (from lld's -Map output), and
writes:

- `<dir>/<object name>.args`, for the LTO objects of the link: objcopy arguments that give
  each such section a local symbol (`__isb_ro_<n>`); rustc's anonymous constants
  (`.rodata..Lanon.*`) have none, and lld's `--symbol-ordering-file` places sections by their
  symbols (sections of other objects, the C library's, are placed by a symbol they have);
- `<dir>/order.txt`: the given symbol ordering file followed by those symbols, grouped by the
  ISAs whose listings read them (`RODATA_GROUPS`: sm86, sm50, both NVIDIA ISAs, gfx1201,
  gfx1013, both AMD ISAs, every ISA); within each group the sections more training files read
  first. Only sections under 64 KiB (`SMALL`) are placed: a listing reads a few entries of
  each large table wherever it lies, and the linker's merged constants and strings, which no
  symbol can place, come right after the placed sections when the large tables stay behind.
  (Tables that every listing of an ISA reads, such as sm50's forms, instructions, operand
  types and decode tree, 5-58 KiB each, were left out at 4 KiB: a fault-around window each.)

The output of the binary does not depend on the layout (tools/check_release_build.sh checks
it against the `release` build). Exits non-zero, writing nothing, when anything is missing.
"""
import argparse
import bisect
import collections
import os
import re
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SMALL = 65536

# C library data read by the kernel on every run (see main).
KERNEL_READ = ("app_mask",)

# The groups of ISAs whose listings read a section, in layout order (tools/symbol_order.sh
# groups the functions by these too).
GROUPS = [("gfx1013", "gfx1201", "sm50", "sm86"), ("sm50", "sm86"), ("sm50",), ("sm86",),
          ("gfx1013", "gfx1201"), ("gfx1013",), ("gfx1201",)]

# The order of those groups in .rodata. The linker's merged constants and strings, which every
# listing reads and no symbol places, follow the placed sections, so the sections every ISA
# reads come last, just before them, and each ISA's own sections lie next to those of its
# family: an AMD listing reads one run (gfx1013 or gfx1201, both AMD ISAs, all ISAs, merged),
# and an NVIDIA one two (its ISA and both NVIDIA ISAs; all ISAs and merged).
RODATA_GROUPS = [("sm86",), ("sm50",), ("sm50", "sm86"), ("gfx1201",), ("gfx1013",), ("gfx1013", "gfx1201"),
                 ("gfx1013", "gfx1201", "sm50", "sm86")]


def isa_of(path):
    for isa in ("gfx1013", "gfx1201", "sm50", "sm86"):
        if isa in os.path.basename(path):
            return isa
    return "other"


def map_sections(map_path):
    """(start, size, object, section name) of every input section of .rodata that comes from
    an object file (not the linker's merged constants and strings), and the output section's
    address range."""
    # lld's map: address, load address, size, alignment, then the name indented by its depth
    # (an output section by none, an input section "file:(name)" by 8, a symbol by 16).
    line = re.compile(r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(\S.*)$")
    rows, rodata, current = [], None, None
    for text in open(map_path, errors="replace"):
        m = line.match(text)
        if not m:
            continue
        addr, size, depth, name = int(m.group(1), 16), int(m.group(2), 16), len(m.group(3)), m.group(4)
        if depth == 0:
            current = name
            if name == ".rodata":
                rodata = (addr, addr + size)
        elif depth == 8 and current == ".rodata" and ":(" in name:
            obj, sec = name.split(":(", 1)
            if not obj.startswith("<") and size > 0:
                rows.append((addr, size, obj, sec[:-1]))
    if rodata is None:
        raise SystemExit("rodata_order: no .rodata in the map")
    rows.sort()
    return rows, rodata


def section_names(obj):
    """Names of the sections of ELF64 relocatable `obj`, with how often each occurs."""
    data = open(obj, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"rodata_order: {obj}: not a little-endian ELF64 object")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shnum == 0:
        shnum, = struct.unpack_from("<Q", data, shoff + 0x20)
    if shstrndx == 0xFFFF:
        shstrndx, = struct.unpack_from("<I", data, shoff + 0x28)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
    counts = collections.Counter()
    for i in range(shnum):
        name_at, = struct.unpack_from("<I", data, shoff + i * shentsize)
        end = data.index(b"\0", stroff + name_at)
        counts[data[stroff + name_at:end].decode("latin-1")] += 1
    return counts


def touched(binary, path, prefixes):
    """Addresses in .rodata that `binary disasm path` reads (lackey's data accesses whose
    address starts with one of `prefixes`, 8 or more hex digits)."""
    pattern = "^ [LSM] 0*(" + "|".join(prefixes) + ")"
    cmd = f"valgrind --tool=lackey --trace-mem=yes --log-fd=3 '{binary}' disasm '{path}' 3>&1 >/dev/null 2>/dev/null | grep -E '{pattern}'"
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True).stdout
    addrs = set()
    for text in out.splitlines():
        parts = text.split()
        if len(parts) == 2:
            addrs.add(int(parts[1].split(",")[0], 16))
    return addrs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--map", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--order", required=True, help="the symbol ordering file of the link")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--objects", nargs="+", required=True)
    ap.add_argument("--train", nargs="+", required=True)
    a = ap.parse_args()

    rows, (lo, hi) = map_sections(a.map)
    if not rows:
        raise SystemExit("rodata_order: no input sections in .rodata")
    # Symbols of the linked binary by address: a section of another object (the C library's)
    # is placed through a symbol it already has.
    named = collections.defaultdict(list)
    for text in subprocess.run(["nm", a.bin], capture_output=True, text=True).stdout.splitlines():
        parts = text.split()
        if len(parts) == 3 and parts[1] in "rR":
            named[int(parts[0], 16)].append(parts[2])
    starts = [r[0] for r in rows]
    # lackey prints addresses with at least 8 hex digits: the prefixes of the 64 KiB blocks
    # of .rodata, as printed without their leading zeros.
    prefixes = sorted({format(b, "x") for b in range(lo >> 16, (hi >> 16) + 1)})

    def sections_of(addrs):
        hit = set()
        for x in addrs:
            if lo <= x < hi:
                i = bisect.bisect_right(starts, x) - 1
                if i >= 0 and x < rows[i][0] + rows[i][1]:
                    hit.add(i)
        return hit

    jobs = max(1, os.cpu_count() or 1)
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda p: (p, sections_of(touched(a.bin, p, prefixes))), a.train))
    isas, files = collections.defaultdict(set), collections.Counter()
    for path, hit in results:
        for i in hit:
            isas[i].add(isa_of(path))
            files[i] += 1
    if not isas:
        raise SystemExit("rodata_order: the training runs read no .rodata (is valgrind working?)")

    # Data that every run has the kernel read (lackey sees only the program's own reads): musl's
    # sigaction passes app_mask to rt_sigprocmask. Placed with what every listing reads.
    by_name = {n: x for x, ns in named.items() for n in ns}
    for name in KERNEL_READ:
        for i in sections_of([by_name[name]] if name in by_name else []):
            isas[i] = set(RODATA_GROUPS[-1])
            files[i] = len(a.train)

    lto = set(a.objects)
    names = {obj: section_names(obj) for obj in set(r[2] for r in rows) if obj in lto}

    def key(i):
        g = tuple(sorted(isas[i]))
        return (RODATA_GROUPS.index(g) if g in RODATA_GROUPS else len(RODATA_GROUPS), g, -files[i], i)

    order = [l.rstrip("\n") for l in open(a.order)]
    args = collections.defaultdict(list)
    n = placed = 0
    # Only the small sections: the large tables keep their places, and so the linker's merged
    # constants and strings (which no symbol places) follow the small ones that are read.
    for i in sorted((i for i in isas if rows[i][1] < SMALL), key=key):
        start, _, obj, sec = rows[i]
        if obj in lto:
            if names[obj][sec] != 1 or "," in sec or "=" in sec:
                continue  # a name objcopy could not tell apart
            sym = f"__isb_ro_{n}"
            n += 1
            args[obj].append(f"--add-symbol={sym}={sec}:0,local,object")
        elif len(named[start]) == 1:
            sym = named[start][0]
        else:
            continue
        order.append(sym)
        placed += 1
    for obj, lines in args.items():
        with open(os.path.join(a.dir, os.path.basename(obj) + ".args"), "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.dir, "order.txt"), "w") as f:
        f.write("\n".join(order) + "\n")
    size = sum(rows[i][1] for i in isas if rows[i][1] < SMALL)
    groups = collections.Counter()
    for i in isas:
        if rows[i][1] < SMALL:
            groups["+".join(sorted(isas[i]))] += rows[i][1]
    print(f"rodata_order: {placed} sections under {SMALL} bytes ({size} bytes) that "
          f"{len(a.train)} training listings read placed first; bytes by the ISAs that read them: "
          + ", ".join(f"{g} {n}" for g, n in sorted(groups.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
