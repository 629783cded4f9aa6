"""Random-word check set for the sm50 decoder: uniformly random 64-bit instruction words that
nvdisasm 12.8 accepts, with its text (not drawn from the spec's forms, so it also measures the
forms the prober never reached).

    cd tools && python3 -m nvspec.random_words --count 30000 -o ../fixtures/nvidia/fuzz/sm50_random.tsv

Same format as fixtures/nvidia/fuzz/sm50.tsv: `0x<control word> 0x<instruction>` TAB text, the
word in slot 1 (address 0x8) of a bundle whose control word is the filler. Words nvdisasm
rejects, and words whose branch target would be negative, are left out. Deterministic (fixed
seed).
"""
import argparse
import random

from . import nvdis
from .oracle import Oracle


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=30000, help="random words tried")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    words = [rng.getrandbits(64) for _ in range(a.count)]
    texts = Oracle(50).disasm(words)
    n = 0
    with open(a.out, "w") as f:
        for w, t in zip(words, texts):
            if not t or "!" in t:
                continue
            f.write("0x%016x 0x%016x\t%s\n" % (nvdis.SM50_FILL_CTRL, w, t))
            n += 1
    print("%d of %d words accepted" % (n, a.count))


if __name__ == "__main__":
    main()
