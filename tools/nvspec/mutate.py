"""Rule check set for the sm86 decoder: fuzz-set words of some mnemonics with chosen bit ranges
randomised, disassembled by nvdisasm 12.8, written in the fuzz-set format (not committed; read
by the conformance test `report_tsv`).

    cd tools && python3 -m nvspec.mutate --mnemonics SULD,SUST --bits 59:5,72:4,77:4,84:3 \\
        --count 3000 -o /tmp/su.tsv
    ISABRIDGE_SM86_TSV=/tmp/su.tsv cargo test --release -p isabridge-decoder \\
        --test nvidia_conformance -- --ignored --nocapture report_tsv

Each word is a random fuzz-set word of the mnemonics (fixtures/nvidia/fuzz/sm86.tsv, base
mnemonic of its text) with every `offset:width` range set to random bits; the `?PM` bits
102-103 are cleared. Words nvdisasm rejects are left out. The words sit at address 16 x index
in the nvdisasm run, so PC-relative operands do not match the test's address 0 (use this for
other fields). Deterministic (fixed seed).
"""
import argparse
import os
import random

from .oracle import Oracle

FUZZ = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "nvidia", "fuzz", "sm86.tsv")


def base_mnemonic(text):
    parts = text.split(" ")
    m = parts[1] if parts[0].startswith("@") and len(parts) > 1 else parts[0]
    return m.split(".")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mnemonics", required=True, help="comma-separated base mnemonics")
    ap.add_argument("--bits", required=True, help="comma-separated offset:width ranges to randomise")
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    names = set(a.mnemonics.split(","))
    ranges = [tuple(int(x) for x in r.split(":")) for r in a.bits.split(",")]
    seeds = []
    with open(FUZZ) as f:
        for line in f:
            ws, text = line.rstrip("\n").split("\t")
            lo, hi = (int(x, 16) for x in ws.split())
            if base_mnemonic(text) in names:
                seeds.append(lo | hi << 64)
    if not seeds:
        raise SystemExit("no fuzz-set word of %s" % a.mnemonics)
    rng = random.Random(a.seed)
    words = []
    for _ in range(a.count):
        w = rng.choice(seeds)
        for off, n in ranges:
            m = ((1 << n) - 1) << off
            w = (w & ~m) | (rng.getrandbits(n) << off)
        words.append(w & ~(3 << 102))
    texts = Oracle(86).disasm(words)
    n = 0
    with open(a.out, "w") as f:
        for w, t in zip(words, texts):
            if not t:
                continue
            f.write("0x%016x 0x%016x\t%s\n" % (w & (2**64 - 1), w >> 64, t))
            n += 1
    print("%d of %d words accepted (%d seeds)" % (n, a.count, len(seeds)))


if __name__ == "__main__":
    main()
