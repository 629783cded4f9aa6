#!/usr/bin/env python3
"""Assemble the text of every AMD corpus instruction with llvm-mc-22 and record its bytes.

Reads fixtures/amd/ref/*.jsonl (llvm-objdump-22's text of every corpus instruction), assembles
each distinct text once per processor with
`llvm-mc-22 --triple=amdgcn --mcpu=<cpu> --show-encoding`, and writes fixtures/amd/mc/<cpu>.tsv: text, TAB, the bytes llvm-mc gives (hex, memory order), or
`error` when llvm-mc rejects the text. crates/decoder/tests/amd_build.rs compares these bytes
with the canonical bytes the decoder and `build` give for the same instruction.

Usage: python3 tools/amd_mc_fixture.py   (needs llvm-mc-22; tools/install_oracles.sh)
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
LLVM_MC = os.environ.get("LLVM_MC", "llvm-mc-22")
ENC = re.compile(r"; encoding: \[([0-9a-fx,]*)\]")
ERR = re.compile(r"^<stdin>:(\d+):\d+: error")


def assemble(cpu, texts):
    # llvm-objdump prints wave64 objects in wave32 syntax too (vcc_lo): assemble as wave32.
    args = [LLVM_MC, "--triple=amdgcn", "--mcpu=" + cpu, "--show-encoding"]
    src = "".join(t + "\n" for t in texts)
    p = subprocess.run(args, input=src, capture_output=True, text=True)
    bad = set()
    for line in p.stderr.splitlines():
        m = ERR.match(line)
        if m:
            bad.add(int(m.group(1)) - 1)
    encs = [ENC.search(l) for l in p.stdout.splitlines()]
    encs = [m.group(1) for m in encs if m]
    out = {}
    k = 0
    for i, t in enumerate(texts):
        if i in bad:
            out[t] = "error"
            continue
        if k >= len(encs):
            sys.exit("llvm-mc output out of step at " + t)
        out[t] = "".join("%02x" % int(x, 16) for x in encs[k].split(",") if x)
        k += 1
    if k != len(encs):
        sys.exit("llvm-mc gave %d encodings for %d accepted texts" % (len(encs), k))
    return out


def main():
    groups = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "fixtures/amd/ref/*.jsonl"))):
        m = re.search(r"\.(gfx\d+)-(w32|w64)\.jsonl$", f)
        if not m:
            continue
        texts = groups.setdefault(m.group(1), [])
        for line in open(f):
            t = json.loads(line)["text"]
            if not t.startswith(".long"):
                texts.append(t)
    os.makedirs(os.path.join(ROOT, "fixtures/amd/mc"), exist_ok=True)
    for cpu, texts in sorted(groups.items()):
        uniq = sorted(set(texts))
        res = assemble(cpu, uniq)
        path = os.path.join(ROOT, "fixtures/amd/mc/%s.tsv" % cpu)
        with open(path, "w") as o:
            for t in uniq:
                o.write("%s\t%s\n" % (t, res[t]))
        print("%s: %d distinct texts, %d rejected" % (cpu, len(uniq), sum(v == "error" for v in res.values())))


if __name__ == "__main__":
    main()
