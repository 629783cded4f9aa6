"""python3 -m nvspec.new_forms_fuzz --arch 50 --base OLD.xml -o words.tsv : fuzz words of the
forms that isa-specs/nvidia/sm<arch>.xml has and OLD.xml (an earlier version of the spec, e.g.
`git show REV:isa-specs/nvidia/sm50.xml > OLD.xml`) does not: each new form's identifier with
the other bits random, disassembled by nvdisasm 12.8; the accepted words are written in the
fuzz-set format, to be read by the conformance test's `report_tsv` (ISABRIDGE_SM50_TSV /
ISABRIDGE_SM86_TSV). Checks that forms added by `nvspec.extra_forms` print beyond their example.
"""
import argparse
import os
import random

from . import nvdis, probe, widen
from .oracle import Oracle


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, choices=(50, 86), required=True)
    ap.add_argument("--base", required=True, help="the earlier spec")
    ap.add_argument("--per-form", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    arch, rng = a.arch, random.Random(a.seed)
    old = {e["name"] for e in widen.parse_encodings(open(a.base).read(), arch)}
    path = os.path.join(probe.ROOT, "isa-specs", "nvidia", "sm%d.xml" % arch)
    new = [e for e in widen.parse_encodings(open(path).read(), arch) if e["name"] not in old]
    nb = probe.NBITS[arch]
    words = [e["ident"] | (rng.getrandbits(nb) & ~e["mask"]) for e in new for _ in range(a.per_form)]
    n = 0
    with open(a.out, "w") as f:
        for w, t in zip(words, Oracle(arch).disasm(words)):
            if not t or "!" in t.split(" ")[-1]:
                continue
            n += 1
            if arch == 50:
                f.write("0x%016x 0x%016x\t%s\n" % (nvdis.SM50_FILL_CTRL, w, t))
            else:
                f.write("0x%016x 0x%016x\t%s\n" % (w & (2**64 - 1), w >> 64, t))
    probe.log("sm%d: %d new forms, %d words, %d accepted by nvdisasm" % (arch, len(new), len(words), n))


if __name__ == "__main__":
    main()
