#!/usr/bin/env python3
"""Generate the llvm-mc probe set for one derived spec.

    python3 tools/amdspec/probe.py --mcpu gfx1013 --spec isa-specs/amd/gfx10.xml \
        -o fixtures/amd/probe/gfx1013.tsv
    python3 tools/amdspec/probe.py --mcpu gfx1201 --spec isa-specs/amd/gfx12.xml \
        -o fixtures/amd/probe/gfx1201.tsv

For every (instruction, encoding) of the spec: the plain base word plus randomized words (operand
fields drawn from registers, special registers, inline constants and literals; modifier fields,
DPP/SDWA controls, offsets and cache bits at random), each followed by a random literal dword
(consumed only when the instruction takes one) and, for MIMG, random NSA address dwords.  Words
llvm-mc rejects, or decodes as another instruction/encoding, are dropped.  The words kept are
disassembled again by llvm-objdump-22 (each followed by `s_nop 0` dwords, as in mutate.py):
its length says which bytes the instruction is, its text is the line's reference.  Fixed seed.

Line format: <input bytes hex, memory order> TAB <llvm-mc canonical encoding hex> TAB <text>.
The input is the whole instruction (literal and NSA dwords included).  The canonical encoding is
llvm-mc's re-encoding; where that is shorter than the instruction (llvm-mc-22 leaves out the
literal dword of a gfx12 VOP3 DPP form) the input's remaining bytes follow it.
"""
import argparse
import hashlib
import os
import random
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llvmmc  # noqa: E402
import layouts  # noqa: E402
from common import pack, parse, base_name, field_width, field_mask, field_mask_value  # noqa
from derive import fixed_mask_val, id_values, op_field  # noqa: E402

KEEP = 6        # randomized lines kept per (instruction, encoding), besides the base word
TRIES = 40      # randomized candidates per (instruction, encoding)


def r_src9(rng):
    x = rng.random()
    if x < 0.40:
        return 256 + rng.randrange(256)
    if x < 0.58:
        return rng.randrange(106)
    if x < 0.64:
        return rng.choice([106, 107, 124, 125, 126, 127] + list(range(108, 124)))
    if x < 0.78:
        return 128 + rng.randrange(81)
    if x < 0.88:
        return 240 + rng.randrange(9)
    if x < 0.91:
        return rng.choice([251, 252, 253, 235, 236, 237, 238, 239, 254])
    return 255


def r_ssrc8(rng):
    x = rng.random()
    if x < 0.55:
        return rng.randrange(106)
    if x < 0.65:
        return rng.choice([106, 107, 124, 125, 126, 127] + list(range(108, 124)))
    if x < 0.78:
        return 128 + rng.randrange(81)
    if x < 0.86:
        return 240 + rng.randrange(9)
    if x < 0.90:
        return rng.choice([251, 252, 253, 235, 236, 237, 238, 239, 254])
    return 255


def r_sdst7(rng):
    x = rng.random()
    if x < 0.75:
        return rng.randrange(106)
    return rng.choice([106, 107, 124, 125, 126, 127] + list(range(108, 124)))


def rand_value(rng, f, enc):
    name, kind, ranges, base, alt = f
    w = field_width(f)
    if kind == "src":
        v = r_src9(rng)
        return v & ((1 << w) - 1) if w < 9 else v
    if kind == "ssrc":
        return r_ssrc8(rng)
    if kind in ("sdst", "sreg"):
        if w > 7:  # gfx12 RSRC/SAMP: 9-bit SGPR index, quad aligned
            return rng.randrange(26) * 4
        if name == "SADDR" and rng.random() < 0.35:
            return base  # off / null
        if name == "SOFFSET" and rng.random() < 0.3:
            return base
        return r_sdst7(rng)
    if kind in ("vgpr", "vgpry"):
        return rng.randrange(1 << w)
    if kind == "sbase":
        return rng.randrange(53)
    if kind == "srsrc":
        return rng.randrange(26)
    if kind == "imm":
        return rng.randrange(1 << w)
    if kind == "mod":
        if rng.random() < 0.4:
            return base
        return rng.randrange(1 << w)
    return base


def load_pairs(spec):
    t = ET.parse(spec)
    out = []
    for ins in t.iter("Instruction"):
        name = ins.find("InstructionName").text
        for e in ins.iter("InstructionEncoding"):
            out.append((name, e.find("EncodingName").text, int(e.find("Opcode").text)))
    return out


def identifiers(enc, op):
    of = op_field(enc)
    fm, _ = fixed_mask_val(enc)
    mask = fm | (field_mask(of) if of and of[2] else 0)
    ids = set()
    for idv in id_values(enc):
        _, v = fixed_mask_val(enc, idv)
        ids.add(v | (field_mask_value(of, op) if of and of[2] else 0))
    return mask, ids


def whole(mcpu, lines):
    """The probe lines (candidate bytes, llvm-mc encoding, llvm-mc text) as whole instructions:
    llvm-objdump-22's length and text of each candidate (a candidate llvm-objdump-22 rejects or
    crashes on is dropped)."""
    import tempfile
    import mutate
    res = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(0, len(lines), mutate.BATCH):
            part = lines[i:i + mutate.BATCH]
            res.extend(mutate.safe_batch(mcpu, [c for c, _, _ in part], tmp))
    out, dropped = [], 0
    for (c, canon, _mc_text), r in zip(lines, res):
        if r is None or r[1].startswith(".long") or r[0] > len(c):
            dropped += 1
            continue
        n, text, _note = r
        inp = c[:n]
        if len(canon) < n:
            canon = canon + inp[len(canon):]
        out.append((inp, canon, text))
    if dropped:
        print("%s: %d probe words llvm-objdump-22 does not decode, dropped" % (mcpu, dropped),
              file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mcpu", required=True, choices=sorted(layouts.ARCH))
    ap.add_argument("--spec", required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--seed", default="isabridge-amd-probe-1")
    args = ap.parse_args()
    encs = {e["name"]: e for e in layouts.ARCH[args.mcpu][2]()}
    pairs = load_pairs(args.spec)
    # base overrides that derive.py needed for some opcodes (GDS, R128 ...): recompute cheaply
    from derive import Deriver
    d = Deriver(args.mcpu)
    d.enumerate()
    cands, meta = [], []
    for name, en, op in pairs:
        enc = encs[en]
        nb = enc["bits"] // 8
        h = hashlib.sha256(("%s|%s|%s|%d" % (args.seed, args.mcpu, en, op)).encode()).digest()
        rng = random.Random(h)
        alt = d.alt.get((en, op), {})
        vop3b_partner = None
        if (en, op) not in d.alt and enc["extra"].get("vop3b"):
            alt = {}
        ntries = TRIES
        for i in range(ntries + 1):
            vals = dict(alt, OP=op)
            if i > 0:
                for f in enc["fields"]:
                    if f[1] in ("enc", "op"):
                        continue
                    if f[1] == "id":
                        vals[f[0]] = rng.choice(id_values(enc)) if id_values(enc)[0] is not None \
                            else f[3]
                        continue
                    if f[0] in alt and rng.random() < 0.7:
                        continue
                    vals[f[0]] = rand_value(rng, f, enc)
            w = pack(enc, vals)
            tail = bytes(rng.randrange(256) for _ in range(4))
            if enc["extra"].get("mimg"):
                tail = bytes(rng.randrange(256) for _ in range(12)) + tail
            cands.append(w + tail)
            meta.append((name, en, op, i))
    res = llvmmc.disasm(args.mcpu, cands)
    out = []
    kept = {}
    seen = set()
    missing = []
    for (name, en, op, i), c, r in zip(meta, cands, res):
        key = (name, en, op)
        kept.setdefault(key, 0)
        if r is None:
            continue
        text, canon = r
        enc = encs[en]
        nb = enc["bits"] // 8
        if len(canon) < nb or len(canon) > len(c):
            continue
        if "/*" in text:
            continue  # llvm-mc flags an invalid operand value in a comment: not a clean probe
        mn, _, _ = parse(text)
        if base_name(mn) != name:
            continue
        mask, ids = identifiers(enc, op)
        cw = int.from_bytes(canon[:nb], "little")
        if (cw & mask) not in ids:
            continue
        if c[:len(canon)] in seen:
            continue
        if i > 0 and kept[key] >= KEEP + 1:
            continue
        seen.add(c[:len(canon)])
        kept[key] += 1
        out.append((c, canon, text.strip()))
    out = whole(args.mcpu, out)
    for key, n in kept.items():
        if n == 0:
            missing.append(key)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as fh:
        fh.write("\n".join("%s\t%s\t%s" % (inp.hex(), canon.hex(), text) for inp, canon, text in out) + "\n")
    print("%s: %d lines for %d (instruction, encoding) pairs; %d pairs without a line: %s"
          % (args.mcpu, len(out), len(kept), len(missing), missing[:20]), file=sys.stderr)


if __name__ == "__main__":
    main()
