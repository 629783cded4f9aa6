"""Pinned word sets: instruction words listed by hand (disagreements found on large generated
cubins, tools/bench_nv_disasm.sh, and the probes that measured their rule) with nvdisasm 12.8's
text, checked at 100 % by crates/decoder/tests/nvidia_conformance.rs.

    cd tools && python3 -m nvspec.extra_words      # fixtures/nvidia/extra/sm<N>_words.txt -> .tsv

Input `sm50_words.txt`: one 64-bit instruction word a line; `sm86_words.txt`: the low and high
64-bit halves of a 128-bit word; `#` starts a comment. Output: the fuzz-set format
(`0x<control word> 0x<instruction>` for sm50, word in slot 1 of a filler bundle; `0x<low>
0x<high>` for sm86) TAB text, in input order; words nvdisasm rejects are left out.
"""
import os
import re

from . import nvdis
from .oracle import Oracle

_WRAP = re.compile(r"0x[0-9a-f]+!")
DIR = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "nvidia", "extra")


def words(path, arch):
    out = []
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        v = [int(x, 16) for x in line]
        out.append(v[0] if arch == 50 else v[0] | v[1] << 64)
    return out


def main():
    for arch in (50, 86):
        src = os.path.join(DIR, "sm%d_words.txt" % arch)
        if not os.path.exists(src):
            continue
        ws = words(src, arch)
        texts = Oracle(arch).disasm(ws)
        n = 0
        with open(os.path.join(DIR, "sm%d_words.tsv" % arch), "w") as f:
            for w, t in zip(ws, texts):
                # a `!` glued to a number marks a target that wrapped (Oracle._rebase); `@!P0` is
                # a guard
                if not t or _WRAP.search(t):
                    continue
                if arch == 50:
                    f.write("0x%016x 0x%016x\t%s\n" % (nvdis.SM50_FILL_CTRL, w, t))
                else:
                    f.write("0x%016x 0x%016x\t%s\n" % (w & (2**64 - 1), w >> 64, t))
                n += 1
        print("sm%d: %d of %d words" % (arch, n, len(ws)))


if __name__ == "__main__":
    main()
