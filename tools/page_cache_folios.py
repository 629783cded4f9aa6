#!/usr/bin/env python3
"""How the page cache holds each FILE: pages in large folios, and physically consecutive pages.

Two copies of the same executable can run 15-25 % apart on the development VM (Linux 6.18):
a file written by a plain sequential write (`cp`) landed in large folios, which the kernel maps
and unmaps in bulk; the file lld had just written, and files read back from disk after
`echo 3 > /proc/sys/vm/drop_caches`, were held in 4 KiB pages. Compare builds only in
the same state (BENCHMARKS.md, "Summary: eighth session").

Needs root (it reads /proc/self/pagemap and /proc/kpageflags). Reading the files maps every
page, which brings them into the page cache if they were not there.

    sudo tools/page_cache_folios.py target/x86_64-unknown-linux-musl/dist/isabridge /tmp/copy
"""
import ctypes
import mmap
import os
import struct
import sys

PAGE = 4096
COMPOUND_HEAD = 1 << 15
COMPOUND_TAIL = 1 << 16


def state(path):
    """(pages, pages in large folios, pages physically after the previous one) of `path`."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return 0, 0, 0
        # A private writable mapping that is only read maps the page cache's own pages.
        m = mmap.mmap(fd, size, access=mmap.ACCESS_COPY)
    finally:
        os.close(fd)
    pages = size // PAGE
    for i in range(pages):
        m[i * PAGE]
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    large = consecutive = 0
    prev = None
    with open("/proc/self/pagemap", "rb") as pm, open("/proc/kpageflags", "rb") as kf:
        for i in range(pages):
            pm.seek((base // PAGE + i) * 8)
            entry = struct.unpack("Q", pm.read(8))[0]
            if not entry >> 63 & 1:
                continue
            pfn = entry & ((1 << 55) - 1)
            kf.seek(pfn * 8)
            flags = struct.unpack("Q", kf.read(8))[0]
            large += bool(flags & (COMPOUND_HEAD | COMPOUND_TAIL))
            consecutive += prev is not None and pfn == prev + 1
            prev = pfn
    return pages, large, consecutive


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        pages, large, consecutive = state(path)
        print(f"{path}: {pages} pages, {large} in large folios, {consecutive} physically consecutive")


if __name__ == "__main__":
    main()
