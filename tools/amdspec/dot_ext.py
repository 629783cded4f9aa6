#!/usr/bin/env python3
"""Derive crates/decoder/data/gfx10_3_dot.tsv: the gfx10.3 dot-product instructions (gfx1011,
gfx1012, gfx1030 have them, gfx1013 does not) by probing llvm-mc-22.

    python3 tools/amdspec/dot_ext.py -o crates/decoder/data/gfx10_3_dot.tsv

1. Every opcode of VOP2 and VOP3P is disassembled for gfx1030 and gfx1013; the v_dot* that only
   gfx1030 decodes are the extension.
2. Each is paired with a gfx1013 instruction of the same encoding (its "twin": v_fmac_f32 for
   VOP2, v_pk_fma_f16 for VOP3P) and 300 random words of each form (inline constants, SGPRs,
   VGPRs, literals, DPP16, DPP8 for VOP2; every modifier bit for VOP3P) are disassembled both
   ways: the dot word for gfx1030 and the same word with the twin's opcode for gfx1013. When
   every text equals after the mnemonic and both refuse the same words, the instruction decodes
   as its twin with the dot's name (status `decoded`); otherwise the first difference is the
   reason it is not decoded.
3. Operand types follow LLVM's mnemonic: v_dotN[c]_<dst>_<src> reads N-element packed <src>
   sources and accumulates into <dst> (the third source, or the destination of the VOP2 `c`
   forms).

Output is deterministic (fixed seed).
"""
import argparse
import random
import re
import subprocess

TWINS = {"VOP2": ("v_fmac_f32", 0x2B), "VOP3P": ("v_pk_fma_f16", 0x0E)}


def batch(cpu, items):
    txt = "\n".join(" ".join("0x%02x" % b for w in ws for b in w.to_bytes(4, "little")) for ws in items)
    r = subprocess.run(["llvm-mc-22", "-disassemble", "-triple=amdgcn", "-mcpu=" + cpu], input=txt,
                       capture_output=True, text=True, check=False)
    lines = [x.strip() for x in r.stdout.split("\n") if x.strip() and not x.strip().startswith(".")]
    return lines, r.stderr.count("invalid instruction encoding")


def vop2(op, rest):
    return [(op << 25) | rest[0]] + rest[1:]


def vop3p(op, rest):
    return [0xCC000000 | (op << 16) | rest[0]] + rest[1:]


def probe():
    found = []
    for op in range(64):
        w = [(op << 25) | (10 << 17) | (5 << 9) | (256 + 4)]
        a, b = batch("gfx1030", [w])[0], batch("gfx1013", [w])[0]
        if a and not b and a[0].startswith("v_dot"):
            found.append(("VOP2", op, a[0].split()[0]))
    for op in range(128):
        w = [0xCC000000 | (op << 16) | 0x4000 | 11, (256 + 4) | ((256 + 5) << 9) | ((256 + 6) << 18) | (3 << 27)]
        a, b = batch("gfx1030", [w])[0], batch("gfx1013", [w])[0]
        if a and not b and a[0].startswith("v_dot"):
            found.append(("VOP3P", op, a[0].split()[0]))
    return found


def random_rest(enc, rng):
    src = lambda: rng.choice([256 + rng.getrandbits(8), rng.getrandbits(7), 128 + rng.getrandbits(7),
                              240 + rng.getrandbits(3), 255])
    if enc == "VOP2":
        s0 = rng.choice([src(), 0xFA, 0xE9, 0xEA])
        w = [(rng.getrandbits(8) << 17) | (rng.getrandbits(8) << 9) | s0]
        return w + ([rng.getrandbits(32)] if s0 in (255, 0xFA, 0xE9, 0xEA) else [])
    while True:
        s = [src() for _ in range(3)]
        if s.count(255) <= 1:
            break
    w = [rng.getrandbits(16), s[0] | (s[1] << 9) | (s[2] << 18) | (rng.getrandbits(5) << 27)]
    return w + ([rng.getrandbits(32)] if 255 in s else [])


def check_twin(enc, op, twin_op, rng):
    make = vop2 if enc == "VOP2" else vop3p
    for _ in range(300):
        rest = random_rest(enc, rng)
        a, ea = batch("gfx1030", [make(op, rest)])
        b, eb = batch("gfx1013", [make(twin_op, rest)])
        if ea != eb:
            return "refuses other words than its twin"
        if a and b and a[0].split(" ", 1)[1:] != b[0].split(" ", 1)[1:]:
            return "prints other operands than its twin: `%s` against `%s`" % (a[0], b[0])
    return None


def types(mnemonic):
    m = re.match(r"v_dot(\d)c?_([a-z]+\d+)_([a-z]+\d+)", mnemonic)
    n, dst, src = m.group(1), m.group(2), m.group(3)
    packed = "%sx%s" % (src, n)
    return ",".join([dst, packed, packed] + ([dst] if "c_" not in mnemonic else []))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    rng = random.Random(27)
    rows = []
    for enc, op, name in probe():
        twin, twin_op = TWINS[enc]
        why = check_twin(enc, op, twin_op, rng)
        status = "decoded" if why is None else "not decoded: " + why
        rows.append("\t".join([name.upper(), name, enc, str(op), twin, str(twin_op), types(name), status]))
    with open(args.output, "w") as f:
        f.write("# gfx10.3 dot-product instructions: llvm-mc-22 decodes them for gfx1030 (also gfx1011, gfx1012),\n")
        f.write("# not for gfx1013. Written by `python3 tools/amdspec/dot_ext.py -o crates/decoder/data/gfx10_3_dot.tsv`.\n")
        f.write("# name\tmnemonic\tencoding\topcode\ttwin (gfx1013, same encoding)\ttwin opcode\toperand types (dst, src0, src1[, src2])\tstatus\n")
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
