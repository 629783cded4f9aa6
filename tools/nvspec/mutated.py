"""Mutated NVIDIA word sets with nvdisasm 12.8's verdict on each word.

Takes the distinct corpus instructions of one architecture (fixtures/nvidia/ref/*.sm<N>.jsonl),
flips one to three random bits of each (seeded, deterministic), and disassembles every mutated
word with nvdisasm 12.8 (`-b SM<N> -hex` on raw bytes). The result is nvdisasm's text, or that
it refused the word (its error message).

- sm86: the flipped bits are any of the 128 bits (scheduling bits 105-127 included); word i of
  a batch sits at address 16 x i.
- sm50: the flipped bits are the 64 instruction bits and the 21 control bits of the
  instruction's slot (stall, yield, barriers, wait mask, reuse); every word keeps the slot it
  had in the corpus and sits in a bundle of its own: the bundle's control word (the slot's
  corpus control bits, mutated), the word in its slot, `NOP` in the other slots.
  The other slots' control bits are the filler's (`nvdis.SM50_FILL_CTRL`: NOP with a
  corpus slot's reuse or barrier bits can be illegal). Word i of a batch is at address
  32 x i + 8 + 8 x slot.

nvdisasm stops at an illegal word and names its address on stderr; those words are replaced by
NOP and the batch is run again (a failure that names no address is bisected). Texts are kept as
nvdisasm printed them at the word's address (branch targets absolute), which the TSV records.

Output (header lines start with `#`; one line per distinct mutated word, generation order):

    ADDR<TAB>WORDS<TAB>FLIPS<TAB>VERDICT<TAB>TEXT

  ADDR     hex address nvdisasm disassembled the word at
  WORDS    sm50: `0x<control word> 0x<instruction>`; sm86: `0x<bits 0-63> 0x<bits 64-127>`
  FLIPS    the flipped bit positions (sm50: 0-63 instruction, c0-c20 the slot's control bits)
  VERDICT  `ok` or `illegal`
  TEXT     nvdisasm's text (without ` ;` and sm50 dual-issue braces); for an illegal word its
           error message

Usage:
  cd tools && python3 -m nvspec.mutated --arch 50 -o ../fixtures/nvidia/mutated/sm50.tsv
  cd tools && python3 -m nvspec.mutated --arch 86 -o ../fixtures/nvidia/mutated/sm86.tsv
"""
import argparse
import glob
import json
import os
import random
import re

from . import nvdis

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BATCH = 6000
_ERR = re.compile(r"error\s*:\s*(.*?) at (?:address|offset) (0x[0-9a-f]+)", re.I)


def load_bases(arch):
    """Distinct corpus instructions: sm86 (word,), sm50 (instruction, control word, slot)."""
    seen, out = set(), []
    for path in sorted(glob.glob(os.path.join(ROOT, "fixtures/nvidia/ref/*.sm%d.jsonl" % arch))):
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                w = int.from_bytes(bytes.fromhex(r["bytes"]), "little")
                if arch == 86:
                    key = (w,)
                else:
                    slot = r["offset"] % 32 // 8 - 1
                    ctrl = int(r["ctrl"], 16)
                    key = (w, (ctrl >> (21 * slot)) & 0x1FFFFF, slot, ctrl)
                if key[:3] in seen:
                    continue
                seen.add(key[:3])
                out.append(key)
    return out


def mutate(arch, bases, per_base, rng):
    """(word tuple, flips) per mutated word, distinct, in generation order."""
    seen, out = set(), []
    for b in bases:
        for _ in range(per_base):
            n = rng.randint(1, 3)
            if arch == 86:
                bits = sorted(rng.sample(range(128), n))
                w = b[0]
                for k in bits:
                    w ^= 1 << k
                key = (w,)
                flips = ",".join(str(k) for k in bits)
            else:
                inst, _, slot, ctrl = b
                bits = sorted(rng.sample(range(85), n))
                for k in bits:
                    if k < 64:
                        inst ^= 1 << k
                    else:
                        ctrl ^= 1 << (21 * slot + k - 64)
                # the other slots hold NOP with the filler's control bits
                m = 0x1FFFFF << (21 * slot)
                ctrl = (ctrl & m) | (nvdis.SM50_FILL_CTRL & ~m)
                key = (inst, slot, ctrl)
                flips = ",".join(str(k) if k < 64 else "c%d" % (k - 64) for k in bits)
            if key in seen:
                continue
            seen.add(key)
            out.append((key, flips))
    return out


class Runner:
    def __init__(self, arch):
        self.arch = arch
        self.calls = 0

    def addr(self, i, key):
        return i * 16 if self.arch == 86 else i * 32 + 8 + 8 * key[1]

    def bytes_of(self, key, nop):
        """The word (sm86) or its bundle (sm50); `nop`: NOP in its place."""
        if self.arch == 86:
            return (nvdis.SM86_NOP if nop else key[0]).to_bytes(16, "little")
        inst, slot, ctrl = key
        slots = [nvdis.SM50_NOP] * 3
        if nop:
            ctrl = nvdis.SM50_FILL_CTRL
        else:
            slots[slot] = inst
        return ctrl.to_bytes(8, "little") + b"".join(w.to_bytes(8, "little") for w in slots)

    def run(self, keys, first):
        """Verdicts of keys[i] at index first + i: list of (ok, text)."""
        res = [None] * len(keys)
        nop = [False] * len(keys)
        unit = 16 if self.arch == 86 else 32
        for _ in range(8):
            blob = b"".join(self.bytes_of(k, nop[i]) for i, k in enumerate(keys))
            self.calls += 1
            extra = ("-base", hex(first * unit)) if first else ()
            rc, out, err = nvdis.run_raw(blob, self.arch, extra)
            if rc == 0:
                break
            named = {}
            for msg, a in _ERR.findall(err):
                i = (int(a, 16) - first * unit) // unit
                if 0 <= i < len(keys) and not nop[i] and int(a, 16) == self.addr(first + i, keys[i]):
                    named.setdefault(i, msg.strip())
            if not named:
                if len(keys) == 1:
                    return [(False, err.strip().splitlines()[0] if err.strip() else "rejected")]
                h = len(keys) // 2
                left = self.run(keys[:h], first)
                right = self.run(keys[h:], first + h)
                return left + right
            for i, msg in named.items():
                nop[i] = True
                res[i] = (False, msg)
        else:
            raise RuntimeError("nvdisasm keeps failing")
        got = {}
        for e in nvdis.parse_listing(out, self.arch):
            got[e["offset"]] = nvdis.clean_text(e["text"])
        for i, k in enumerate(keys):
            if res[i] is None:
                t = got.get(self.addr(first + i, k))
                res[i] = (True, t) if t is not None else (False, "no text")
        return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, choices=(50, 86), required=True)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--per-base", type=int, default=3)
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed * 100 + a.arch)
    bases = load_bases(a.arch)
    muts = mutate(a.arch, bases, a.per_base, rng)
    r = Runner(a.arch)
    keys = [k for k, _ in muts]
    verdicts = []
    for s in range(0, len(keys), BATCH):
        verdicts += r.run(keys[s:s + BATCH], s)
    n_ok = sum(1 for ok, _ in verdicts if ok)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("# mutated sm%d words and nvdisasm 12.8's verdict: cd tools && python3 -m nvspec.mutated "
                "--arch %d --seed %d --per-base %d\n" % (a.arch, a.arch, a.seed, a.per_base))
        f.write("# addr\twords\tflips\tverdict\ttext\n")
        for i, ((key, flips), (ok, text)) in enumerate(zip(muts, verdicts)):
            if a.arch == 86:
                w = key[0]
                ws = "0x%016x 0x%016x" % (w & (2**64 - 1), w >> 64)
            else:
                ws = "0x%016x 0x%016x" % (key[2], key[0])
            f.write("%x\t%s\t%s\t%s\t%s\n" % (r.addr(i, key), ws, flips, "ok" if ok else "illegal", text))
    print("sm%d: %d bases, %d mutated words, %d accepted, %d illegal, %d nvdisasm runs"
          % (a.arch, len(bases), len(muts), n_ok, len(muts) - n_ok, r.calls))


if __name__ == "__main__":
    main()
