#!/usr/bin/env python3
"""Register-field sweeps with llvm-objdump-22's verdict on each word.

For every instruction encoding of one processor (its corpus and probe words as bases, up to
--per-key of them), sets each register field of the chosen kinds (tools/amdspec/layouts.py) to
every value of its width and disassembles the words with llvm-objdump-22 (tools/amdspec/mutate.py's
batches). Writes one line per word:

    BYTES<TAB>REJECTED<TAB>ENCODING OPCODE FIELD=VALUE<TAB>TEXT

REJECTED is 1 when llvm-objdump-22 prints `.long`. The set shows which values of which fields
LLVM refuses (the reserved-value rules of crates/decoder/src/amd/reject.rs are checked against
it); it is not a fixture.

Usage:
  python3 tools/amdspec/sweep.py --mcpu gfx1013 --kinds sreg,sdst,sbase,srsrc -o /tmp/sweep.tsv
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutate  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcpu", required=True)
    ap.add_argument("--kinds", default="sreg,sdst,sbase,srsrc,ssrc,src")
    ap.add_argument("--encodings", default="", help="comma-separated encoding names (default all)")
    ap.add_argument("--per-key", type=int, default=1)
    ap.add_argument("--ops-per-encoding", type=int, default=0,
                    help="sweep only this many opcodes of each encoding, spread over its opcodes (0: all)")
    ap.add_argument("--combo", default="", metavar="BITS",
                    help="instead of field values, every combination of these bits (comma-separated "
                         "bit numbers) of each base word")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    kinds = set(a.kinds.split(","))
    only = set(filter(None, a.encodings.split(",")))
    encs = mutate.encodings(a.mcpu)
    corpus, probe = mutate.load_bases(a.mcpu)
    bases = {}
    for b in probe + corpus:
        e = mutate.layout_of(encs, b)
        if e is None or len(b) * 8 < e["bits"] or (only and e["name"] not in only):
            continue
        lst = bases.setdefault((e["name"], mutate.op_of(e, b)), (e, []))[1]
        if len(lst) < a.per_key:
            lst.append(b)
    if a.ops_per_encoding:
        by_enc = {}
        for k in sorted(bases):
            by_enc.setdefault(k[0], []).append(k)
        keep = set()
        for ks in by_enc.values():
            step = max(1, len(ks) // a.ops_per_encoding)
            keep.update(ks[::step][:a.ops_per_encoding])
        bases = {k: v for k, v in bases.items() if k in keep}
    jobs = []
    for (name, op), (e, lst) in sorted(bases.items(), key=lambda kv: kv[0]):
        for b in lst:
            if a.combo:
                bits = [int(x) for x in a.combo.split(",")]
                x = int.from_bytes(b, "little")
                for i in range(1 << len(bits)):
                    y = x
                    for j, bit in enumerate(bits):
                        y = (y & ~(1 << bit)) | ((i >> j & 1) << bit)
                    jobs.append(("%s %d COMBO=%d" % (name, op, i), y.to_bytes(len(b), "little")))
                continue
            for (fname, kind, ranges, _base, _alt) in e["fields"]:
                if kind not in kinds or not ranges:
                    continue
                if max(o + c for o, c in ranges) > len(b) * 8:
                    continue
                width = sum(c for _o, c in ranges)
                for v in range(1 << width):
                    jobs.append(("%s %d %s=%d" % (name, op, fname, v), mutate.set_field(b, ranges, v)))
    print("%d words" % len(jobs), file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(0, len(jobs), mutate.BATCH):
            part = jobs[i:i + mutate.BATCH]
            for (what, w), r in zip(part, mutate.safe_batch(a.mcpu, [w for _k, w in part], tmp)):
                if r is None:
                    continue
                rows.append("%s\t%d\t%s\t%s" % (w.hex(), r[1].startswith(".long"), what, r[1]))
    with open(a.output, "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
