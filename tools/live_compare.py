#!/usr/bin/env python3
"""Live comparison against the reference tools (run by .ci/run after the tests).

1. Every committed AMD corpus object is disassembled again by llvm-objdump-22: the result must
   equal the committed reference (fixtures/amd/ref), so the fixtures are current.
2. `isabridge disasm --json` on the same object must print llvm-objdump-22's text for every
   instruction (zero-fill that llvm-objdump folds into "..." is skipped).
3. A sample of each probe set is disassembled again by llvm-mc-22: its text must equal the
   committed listing.

Usage: tools/live_compare.py [--isabridge PATH] [--probe-sample N]
"""
import argparse
import glob
import json
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import objdump_to_jsonl  # noqa: E402


def objdump(path, cpu):
    out = subprocess.run(["llvm-objdump-22", "-d", "--mcpu=" + cpu, os.path.basename(path)],
                         cwd=os.path.dirname(path), capture_output=True, text=True, check=True).stdout
    return list(objdump_to_jsonl.convert(out.splitlines(True)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--isabridge", default=os.path.join(ROOT, "target/release/isabridge"))
    ap.add_argument("--probe-sample", type=int, default=1500)
    a = ap.parse_args()
    failures = 0
    totals = {}
    for obj in sorted(glob.glob(os.path.join(ROOT, "fixtures/amd/bin/*.o"))):
        name = os.path.basename(obj)[:-2]
        cpu = name.rsplit(".", 1)[1].split("-")[0]
        live = objdump(obj, cpu)
        ref_path = os.path.join(ROOT, "fixtures/amd/ref", name + ".jsonl")
        committed = [json.loads(l) for l in open(ref_path, encoding="utf-8")]
        if live != committed:
            print(f"STALE {ref_path}: llvm-objdump-22 now gives a different listing")
            failures += 1
        ours = subprocess.run([a.isabridge, "disasm", "--json", obj], capture_output=True, text=True)
        if ours.returncode != 0:
            print(f"FAIL {name}: isabridge exited {ours.returncode}: {ours.stderr.strip()}")
            failures += 1
            continue
        by_off = {}
        for l in ours.stdout.splitlines():
            r = json.loads(l)
            by_off[(r["function"], r["offset"])] = r
        bad = 0
        for r in live:
            o = by_off.get((r["function"], r["offset"]))
            if o is None or o["text"] != r["text"] or o["bytes"] != r["bytes"]:
                bad += 1
                if bad <= 3:
                    print(f"  {name} {r['function']}+{r['offset']:#x}: llvm {r['text']!r} ours {o and o['text']!r}")
        t = totals.setdefault(cpu, [0, 0])
        t[0] += len(live)
        t[1] += bad
    for cpu, (n, bad) in sorted(totals.items()):
        print(f"corpus {cpu}: {n} instructions, {bad} differ from live llvm-objdump-22")
        failures += bad
    rng = random.Random(1)
    for isa in ("gfx1013", "gfx1201"):
        lines = open(os.path.join(ROOT, f"fixtures/amd/probe/{isa}.tsv"), encoding="utf-8").read().splitlines()
        sample = rng.sample(lines, min(a.probe_sample, len(lines)))
        # gfx1201 VOP3 DPP words with a literal operand: llvm-mc reads the literal from the
        # bytes after the instruction, so the committed text depends on the probe tool's batch.
        sample = [l for l in sample if not re.search(r"_e64_dpp .*(0x|lit\()", l.split("\t")[2])]
        def run(lines, pad):
            # The probe's input bytes, each followed by a marker so outputs pair up with inputs.
            # With pad, three s_nop 0 follow the bytes: an instruction that claims more dwords
            # than the line holds must not run into the marker.
            text = []
            for l in lines:
                raw = l.split("\t")[0] + "000080bf" * pad
                text.append("[" + ",".join("0x" + raw[i:i + 2] for i in range(0, len(raw), 2)) + "]")
                text.append("[0xa5,0x3f,0x80,0xbf]")
            out = subprocess.run(["llvm-mc-22", "--disassemble", "-arch=amdgcn", "-mcpu=" + isa],
                                 input="\n".join(text) + "\n", capture_output=True, text=True).stdout
            texts, cur = [], []
            for g in (x.strip() for x in out.splitlines() if x.strip()):
                if g == "s_nop 0x3fa5":
                    texts.append(cur[0] if cur else "")  # trailing bytes may decode further
                    cur = []
                else:
                    cur.append(g)
            return texts
        # llvm-mc stops at an instruction cut off by the end of its line: that line is run
        # again padded, and the rest resumes after it.
        texts = []
        while len(texts) < len(sample):
            got = run(sample[len(texts):], 0)
            texts += got
            if len(texts) < len(sample):
                texts.append("")
        # The probe tool pads lines whose instruction is longer than the bytes given (llvm-mc
        # then reads the padding, as it did when the set was made): either reading must agree.
        padded = run(sample, 3)
        padded += [""] * (len(sample) - len(padded))
        stale = sum(1 for l, t, q in zip(sample, texts, padded) if l.split("\t")[2] not in (t, q))
        print(f"probe {isa}: {len(sample)} sampled lines, {stale} differ from live llvm-mc-22")
        failures += stale
    if failures:
        print(f"live comparison FAILED ({failures})")
        return 1
    print("live comparison passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
