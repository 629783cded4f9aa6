#!/usr/bin/env python3
"""Mutated AMD word sets with llvm-objdump-22's verdict on each word.

Takes the corpus instructions (fixtures/amd/ref/*.jsonl) and the probe words
(fixtures/amd/probe/<cpu>.tsv) of one processor, mutates them (seeded, deterministic): flips
one to three random bits, or sets one field of the instruction's encoding (tools/amdspec/layouts.py)
to a random value, and disassembles every mutated word with llvm-objdump-22. The candidates
are laid out 64 bytes apart in one `.text` section (assembled by llvm-mc-22 from `.long`
lines), each followed by `s_nop 0` dwords, so that whatever llvm-objdump makes of a candidate
it is back in step at the next one; the line printed at a candidate's offset is its reference
text (`.long 0x...` when LLVM rejects the first dword).

Output (one line per distinct mutated word, in generation order):

    BYTES<TAB>ORIGIN<TAB>LEN<TAB>TEXT<TAB>NOTE

  BYTES   the candidate's bytes, lowercase hex in memory order (the mutated instruction,
          literal and NSA dwords included; the decoder sees `s_nop 0` dwords after them)
  ORIGIN  `corpus` or `probe`: where the word before mutation came from
  LEN     bytes llvm-objdump-22 took for the first instruction (4 for `.long`)
  TEXT    llvm-objdump-22's text, without its `// ADDR: WORDS` comment and branch-target note
  NOTE    what llvm-objdump-22 prints after ` ; ` on that line (`Warning: ...`), else empty

Usage:
  python3 tools/amdspec/mutate.py --mcpu gfx1013 -o fixtures/amd/mutated/gfx1013.tsv
  python3 tools/amdspec/mutate.py --mcpu gfx1201 -o fixtures/amd/mutated/gfx1201.tsv

Stdlib only; a run takes well under a minute (two llvm-mc/llvm-objdump processes per batch).
"""
import argparse
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import layouts  # noqa: E402

LLVM_MC = os.environ.get("LLVM_MC", "llvm-mc-22")
OBJDUMP = os.environ.get("LLVM_OBJDUMP", "llvm-objdump-22")
NOP = 0xBF800000
STRIDE = 64          # bytes per candidate slot
MAX_WORDS = 5        # longest candidate kept (gfx10 MIMG with NSA dwords)
BATCH = 20000        # candidates per object
LINE_RE = re.compile(
    r"^\t(?P<text>.*?)\s*// (?P<addr>[0-9A-Fa-f]+): (?P<words>[0-9A-Fa-f]{8}(?: [0-9A-Fa-f]{8})*)(?: <[^<>]*>)?(?: ; (?P<note>.*))?$")


def words_of(b):
    return [int.from_bytes(b[i:i + 4], "little") for i in range(0, len(b) - len(b) % 4, 4)]


def load_bases(mcpu):
    """(origin, bytes) of the distinct corpus instructions and probe words of `mcpu`."""
    seen = set()
    corpus, probe = [], []
    for path in sorted(glob.glob(os.path.join(ROOT, "fixtures/amd/ref/*.%s-*.jsonl" % mcpu))):
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                b = bytes.fromhex(r["bytes"])
                if r["text"].startswith(".long") or b in seen or len(b) > 4 * MAX_WORDS:
                    continue
                seen.add(b)
                corpus.append(b)
    with open(os.path.join(ROOT, "fixtures/amd/probe/%s.tsv" % mcpu), encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3 or line.startswith("#"):
                continue
            b = bytes.fromhex(cols[0])
            if b in seen or len(b) > 4 * MAX_WORDS or len(b) % 4:
                continue
            seen.add(b)
            probe.append(b)
    return corpus, probe


def encodings(mcpu):
    """Layouts with their fixed-bit masks, most specific first."""
    out = []
    for e in layouts.ARCH[mcpu][2]():
        mask = val = 0
        for (name, kind, ranges, base, _alt) in e["fields"]:
            if kind in ("enc", "id"):
                bit = 0
                for off, cnt in ranges:
                    m = ((1 << cnt) - 1) << off
                    mask |= m
                    val |= ((base >> bit) & ((1 << cnt) - 1)) << off
                    bit += cnt
        out.append((bin(mask).count("1"), mask, val, e))
    out.sort(key=lambda t: -t[0])
    return out


def layout_of(encs, b):
    x = int.from_bytes(b[:16].ljust(16, b"\0"), "little")
    for _n, mask, val, e in encs:
        if x & mask == val and len(b) * 8 >= e["bits"]:
            return e
    return None


def set_field(b, ranges, v):
    x = int.from_bytes(b, "little")
    bit = 0
    for off, cnt in ranges:
        m = ((1 << cnt) - 1)
        x = (x & ~(m << off)) | (((v >> bit) & m) << off)
        bit += cnt
    return x.to_bytes(len(b), "little")


def field_value(rng, kind, width):
    if kind == "src":
        # Reserved and special values are where the decoders differ: favour the 9-bit
        # source space outside the VGPRs.
        return rng.randrange(0, 256) if rng.random() < 0.8 else rng.randrange(0, 1 << width)
    if kind in ("ssrc", "sdst", "sreg"):
        return rng.randrange(0, 1 << width)
    if kind == "op":
        return rng.randrange(0, 1 << width)
    return rng.randrange(0, 1 << width)


def mutate(rng, encs, b):
    """One mutation of instruction bytes `b`."""
    r = rng.random()
    e = layout_of(encs, b)
    nbits = min(len(b) * 8, e["bits"] if e else 32)
    if r < 0.45 or e is None:
        x = int.from_bytes(b, "little")
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            # Mostly within the encoding's own dwords, sometimes the literal/NSA ones.
            span = nbits if rng.random() < 0.9 else len(b) * 8
            x ^= 1 << rng.randrange(span)
        return x.to_bytes(len(b), "little")
    fields = [f for f in e["fields"] if f[1] not in ("enc", "id") and f[2]]
    if not fields:
        return b
    for _ in range(rng.choice((1, 1, 2))):
        name, kind, ranges, _base, _alt = rng.choice(fields)
        width = sum(c for _o, c in ranges)
        if max(o + c for o, c in ranges) > len(b) * 8:
            continue
        b = set_field(b, ranges, field_value(rng, kind, width))
    return b


def run_batch(mcpu, cands, tmp):
    """llvm-objdump-22's (length, text) of the first instruction of each candidate."""
    lines = [".text"]
    for c in cands:
        ws = words_of(c)
        ws += [NOP] * (STRIDE // 4 - len(ws))
        lines.append(".long " + ", ".join("0x%08x" % w for w in ws))
    src = os.path.join(tmp, "m.s")
    obj = os.path.join(tmp, "m.o")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=" + mcpu, "-filetype=obj", src, "-o", obj],
                   check=True)
    p = subprocess.run([OBJDUMP, "-d", "-z", "--mcpu=" + mcpu, obj], capture_output=True, text=True)
    if p.returncode < 0:
        raise Crash()
    if p.returncode != 0:
        raise SystemExit("llvm-objdump failed: %s" % p.stderr[-2000:])
    out = p.stdout
    at = {}
    for line in out.splitlines():
        m = LINE_RE.match(line)
        if m:
            at[int(m.group("addr"), 16)] = (4 * len(m.group("words").split()), m.group("text"), m.group("note") or "")
    res = []
    for i, c in enumerate(cands):
        r = at.get(i * STRIDE)
        if r is None:
            raise SystemExit("llvm-objdump printed nothing at candidate %d (%s)" % (i, c.hex()))
        if (i + 1) * STRIDE - 4 not in at:
            raise SystemExit("llvm-objdump out of step after candidate %d (%s)" % (i, c.hex()))
        res.append(r)
    return res


class Crash(Exception):
    """llvm-objdump-22 died on a word of the batch."""


def safe_batch(mcpu, cands, tmp):
    """run_batch, bisecting around words llvm-objdump-22 crashes on (those give None)."""
    try:
        return run_batch(mcpu, cands, tmp)
    except Crash:
        if len(cands) == 1:
            return [None]
        h = len(cands) // 2
        return safe_batch(mcpu, cands[:h], tmp) + safe_batch(mcpu, cands[h:], tmp)


def op_of(e, b):
    """The OP field value of instruction bytes `b` in layout `e` (0 when it has none)."""
    x = int.from_bytes(b.ljust(16, b"\0"), "little")
    for (_name, kind, ranges, _base, _alt) in e["fields"]:
        if kind == "op":
            v = bit = 0
            for off, cnt in ranges:
                v |= ((x >> off) & ((1 << cnt) - 1)) << bit
                bit += cnt
            return v
    return 0


def accepted_mutated(mcpu):
    """The words of the committed mutated set llvm-objdump-22 decodes (none when missing)."""
    path = os.path.join(ROOT, "fixtures/amd/mutated/%s.tsv" % mcpu)
    out = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                c = line.rstrip("\n").split("\t")
                if not line.startswith("#") and len(c) >= 4 and not c[3].startswith(".long"):
                    out.append(bytes.fromhex(c[0]))
    return out


def crashes(e, b):
    """True for words llvm-objdump-22 is known to crash on: gfx10 SDWA with a select field of 7
    (their flips are left out: never counted as rejected)."""
    if not e["name"].endswith("_SDWA"):
        return False
    x = int.from_bytes(b, "little")
    sels = (48, 56) if e["name"] == "ENC_VOPC_SDWA" else (40, 48, 56)   # VOPC: SDST at 40
    return any((x >> off) & 7 == 7 for off in sels)


# Register fields whose every value is tried on one base word of each instruction (see
# `swept_fields`): scalar registers everywhere, sources where an operand type alone does not
# say which values LLVM takes (packed-math tuples, interpolation, SDWA's scalar sources).
SWEPT_KINDS = ("ssrc", "sdst", "sreg", "sbase", "srsrc")
SWEPT_SRC = ("ENC_VOP3P", "ENC_VINTERP", "ENC_VOP1_SDWA", "ENC_VOP2_SDWA", "ENC_VOPC_SDWA")
# Bits tried in every combination on each base word (values LLVM refuses only together).
COMBO_BITS = {
    ("gfx1013", "ENC_MIMG"): (1, 2, 3, 4, 5, 62),   # NSA, DIM, A16
    ("gfx1013", "ENC_MUBUF"): (16, 55),             # LDS, TFE
}


def swept_fields(e):
    """(name, ranges) of the fields of layout `e` swept over all their values. SDWA's second
    source is VSRC1 with S1 (bit 63) on top: a scalar source when S1 is set."""
    out = [(n, r) for (n, k, r, _b, _a) in e["fields"]
           if r and (k in SWEPT_KINDS or (k == "src" and e["name"] in SWEPT_SRC))]
    if e["name"] in ("ENC_VOP2_SDWA", "ENC_VOPC_SDWA"):
        out.append(("@9.8,63.1", [(9, 8), (63, 1)]))
    return out


def ranges_text(vals):
    """'104-107,124' for [104, 105, 106, 107, 124]."""
    out, s, i = [], sorted(vals), 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[j] + 1:
            j += 1
        out.append(str(s[i]) if i == j else "%d-%d" % (s[i], s[j]))
        i = j + 1
    return ",".join(out)


def field_of(x, ranges):
    v = bit = 0
    for off, cnt in ranges:
        v |= ((x >> off) & ((1 << cnt) - 1)) << bit
        bit += cnt
    return v


def fixed_bits(mcpu, corpus, probe, per_key, out_path):
    """Per (encoding, opcode): the bits outside the encoding, identifier, opcode and source
    operand fields that llvm-objdump-22 insists on. A bit counts when it has the same value in
    every base word of the instruction (up to `per_key` corpus/probe words), flipping it makes
    llvm-objdump-22 reject the word in every one of them, and no word llvm-objdump-22 decodes
    (corpus, probe, the mutated set) has it the other way. Also the source fields limited to
    v0-v127; the reserved values of the swept register fields (`swept_fields`: every value on
    the first base word, kept when rejected and in no decoded word); and, for the encodings of
    COMBO_BITS, which combinations of those bits LLVM refuses."""
    encs = encodings(mcpu)
    bases = {}
    for b in probe + corpus:
        e = layout_of(encs, b)
        if e is None or len(b) * 8 < e["bits"]:
            continue
        k = (e["name"], op_of(e, b))
        lst = bases.setdefault(k, [])
        if len(lst) < per_key:
            lst.append(b)
    jobs = []   # (key, base index, bit, word)
    for k, lst in sorted(bases.items()):
        e = next(e for _n, _m, _v, e in encs if e["name"] == k[0])
        skip = 0
        for (_name, kind, ranges, _base, _alt) in e["fields"]:
            if kind in ("enc", "id", "op", "src", "ssrc"):
                for off, cnt in ranges:
                    skip |= ((1 << cnt) - 1) << off
        for i, b in enumerate(lst):
            x = int.from_bytes(b, "little")
            for bit in range(e["bits"]):
                if not skip >> bit & 1:
                    w = (x ^ (1 << bit)).to_bytes(len(b), "little")
                    if not crashes(e, w):
                        jobs.append((k, i, bit, w))
    # Sources limited to v0-v127 (gfx12 16-bit VOP1/VOP2/VOPC): v200 rejected, v5 decoded.
    for k, lst in sorted(bases.items()):
        e = next(e for _n, _m, _v, e in encs if e["name"] == k[0])
        for (name, kind, ranges, _base, _alt) in e["fields"]:
            if kind == "src" and len(ranges) == 1:
                for i, b in enumerate(lst):
                    for v in (256 + 200, 256 + 5):
                        jobs.append((k, i, "%s=%d" % (name, v), set_field(b, ranges, v)))
    # Every value of the swept register fields, every combination of the combination bits, on
    # the first base word of each instruction.
    for k, lst in sorted(bases.items()):
        e = next(e for _n, _m, _v, e in encs if e["name"] == k[0])
        b = lst[0]
        for name, ranges in swept_fields(e):
            if max(o + c for o, c in ranges) > len(b) * 8:
                continue
            for v in range(1 << sum(c for _o, c in ranges)):
                w = set_field(b, ranges, v)
                if not crashes(e, w):
                    jobs.append((k, 0, "%s:%d" % (name, v), w))
        bits = COMBO_BITS.get((mcpu, k[0]))
        if bits:
            x = int.from_bytes(b, "little")
            for i in range(1 << len(bits)):
                y = x
                for j, bit in enumerate(bits):
                    y = (y & ~(1 << bit)) | ((i >> j & 1) << bit)
                jobs.append((k, 0, "#%d" % i, y.to_bytes(len(b), "little")))
    res = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(0, len(jobs), 5000):
            res.extend(safe_batch(mcpu, [j[3] for j in jobs[i:i + 5000]], tmp))
    rejects = {}
    for (k, i, bit, _w), r in zip(jobs, res):
        # (bit: a bit number, or "FIELD=value" for the v0-v127 probes)
        rej = r is None or r[1].startswith(".long")
        rejects.setdefault(k, {}).setdefault(bit, []).append(rej)
    # Words llvm-objdump-22 decodes (corpus, probe, mutated sets): a bit one of them has the
    # other way is not checked, whatever the flips said (value-dependent rules, e.g. an SADDR
    # of `off` flipped to m0 is rejected, an SGPR flipped to the next one is not).
    valid = {}
    for b in probe + corpus + accepted_mutated(mcpu):
        e = layout_of(encs, b)
        if e is not None and len(b) * 8 >= e["bits"]:
            valid.setdefault((e["name"], op_of(e, b)), []).append(int.from_bytes(b, "little"))
    lines = []
    for k, lst in sorted(bases.items()):
        mask = val = 0
        rk = rejects.get(k, {})
        lo128 = sorted({b.split("=")[0] for b in rk if isinstance(b, str) and "=" in b})
        lo128 = [n for n in lo128 if all(rk["%s=%d" % (n, 456)]) and not any(rk["%s=%d" % (n, 261)])]
        for bit, rs in sorted((b, r) for b, r in rk.items() if isinstance(b, int)):
            vals = {int.from_bytes(b, "little") >> bit & 1 for b in lst}
            if all(rs) and len(rs) >= min(2, len(lst)) and len(vals) == 1:
                v = vals.pop()
                if all(x >> bit & 1 == v for x in valid.get(k, [])):
                    mask |= 1 << bit
                    val |= v << bit
        # A scalar register field counts only whole (an unused field LLVM wants at one value):
        # some of its bits alone are a value rule the words at hand happen to agree on.
        e = next(e for _n, _m, _v, e in encs if e["name"] == k[0])
        for (_name, kind, ranges, _base, _alt) in e["fields"]:
            if kind in ("sreg", "sdst", "sbase", "srsrc"):
                fm = 0
                for off, cnt in ranges:
                    fm |= ((1 << cnt) - 1) << off
                if mask & fm != fm:
                    mask &= ~fm
                    val &= ~fm
        # Reserved values of the swept fields: rejected on the base word and in no word
        # llvm-objdump-22 decodes.
        sweeps = []
        for name, ranges in swept_fields(e):
            tried = [b for b in rk if isinstance(b, str) and b.startswith(name + ":")]
            if not tried:
                continue
            seen = {field_of(x, ranges) for x in valid.get(k, [])}
            bad = [int(b.split(":")[1]) for b in tried if all(rk[b])]
            sweeps.append("%s:%s" % (name, ranges_text(v for v in bad if v not in seen)))
        combo = ""
        bits = COMBO_BITS.get((mcpu, k[0]))
        if bits:
            forbid = 0
            for i in range(1 << len(bits)):
                if all(rk.get("#%d" % i, [False])):
                    forbid |= 1 << i
            combo = "%s/%x" % (",".join(str(b) for b in bits), forbid)
        if mask or lo128 or sweeps or combo:
            lines.append("%s\t%d\t%x\t%x\t%d\t%s\t%s\t%s" % (k[0], k[1], mask, val, len(lst), ",".join(lo128),
                                                         ";".join(sweeps), combo))
    # Values 64-bit operands do not take (vcc_hi, exec_hi, m0 ... as a register pair): SOP1
    # s_mov_b64 for scalar sources and destinations, v_add_f64 for vector-ALU sources.
    mov64 = 4 if mcpu == "gfx1013" else 1
    probes64 = {
        "OPR_SSRC": [(0xBE800000 | mov64 << 8 | v).to_bytes(4, "little") + NOP.to_bytes(4, "little")
                     for v in range(256)],
        "OPR_SDST": [(0xBE800000 | v << 16 | mov64 << 8).to_bytes(4, "little") for v in range(128)],
        # gfx10: VOP3 v_add_f64 v[0:1], X, v[0:1]; gfx12: VOP2 v_add_f64_e32 v[0:1], X, v[0:1]
        "OPR_SRC": [((0xD5640000).to_bytes(4, "little") + (v | 256 << 9).to_bytes(4, "little")
                     if mcpu == "gfx1013" else (0x04000000 | v).to_bytes(4, "little")) + b"\0\0\x80\xbf"
                    for v in range(512)],
    }
    res64 = {}
    with tempfile.TemporaryDirectory() as tmp:
        for ty, ws in probes64.items():
            rs = safe_batch(mcpu, ws, tmp)
            res64[ty] = [v for v, r in enumerate(rs) if r is None or r[1].startswith(".long")]
    res64["OPR_SREG"] = res64["OPR_SDST"]
    with open(out_path, "w", encoding="utf-8", newline="\n") as f:
        f.write("# %s: bits llvm-objdump-22 checks per instruction encoding, beyond its identifier and "
                "source operands:\n# tools/amdspec/mutate.py --mcpu %s --fixed-bits %s\n"
                "# encoding\topcode\tmask (hex, bit 0 = bit 0 of the first dword)\tvalue\tbase words\t"
                "source fields limited to v0-v127\treserved values of the swept register fields "
                "(FIELD:values;..., a field in pieces named @offset.count,...)\tbits tried in every "
                "combination/hex mask of the combinations LLVM refuses (bit i: combination i, the "
                "first bit lowest)\n"
                % (mcpu, mcpu, os.path.relpath(out_path, ROOT)))
        f.write("# @64<TAB>operand type<TAB>values a 64-bit operand of that type does not take\n")
        for ty in sorted(res64):
            f.write("@64\t%s\t%s\n" % (ty, ",".join(str(v) for v in res64[ty])))
        for l in lines:
            f.write(l + "\n")
    print("%s: %d instruction encodings, %d with checked bits, %d words disassembled"
          % (mcpu, len(bases), len(lines), len(jobs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcpu", required=True, choices=sorted(layouts.ARCH))
    ap.add_argument("--per-base", type=int, default=2, help="mutations per base word")
    ap.add_argument("--limit", type=int, default=40000, help="most mutated words kept")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("-o", "--output")
    ap.add_argument("--fixed-bits", metavar="OUT", help="write the checked-bits table instead")
    a = ap.parse_args()
    if a.fixed_bits:
        corpus, probe = load_bases(a.mcpu)
        fixed_bits(a.mcpu, corpus, probe, 5, a.fixed_bits)
        return
    if not a.output:
        ap.error("-o is required")
    rng = random.Random("%s:%d" % (a.mcpu, a.seed))
    encs = encodings(a.mcpu)
    corpus, probe = load_bases(a.mcpu)
    known = set(corpus) | set(probe)
    cands, seen = [], set()
    # Corpus and probe words in turn, so that a limit keeps both kinds.
    order = []
    for i in range(max(len(corpus), len(probe))):
        if i < len(corpus):
            order.append(("corpus", corpus[i]))
        if i < len(probe):
            order.append(("probe", probe[i]))
    rng.shuffle(order)
    for origin, b in order:
        for _ in range(a.per_base):
            m = mutate(rng, encs, b)
            if m in seen or m in known:
                continue
            seen.add(m)
            cands.append((origin, m))
        if len(cands) >= a.limit:
            break
    cands = cands[:a.limit]
    rows = []
    crashed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(0, len(cands), BATCH):
            part = cands[i:i + BATCH]
            for (origin, c), r in zip(part, safe_batch(a.mcpu, [c for _o, c in part], tmp)):
                if r is None:
                    crashed += 1
                    continue
                n, text, note = r
                rows.append("%s\t%s\t%d\t%s\t%s" % (c.hex(), origin, n, text, note))
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    with open(a.output, "w", encoding="utf-8", newline="\n") as f:
        f.write("# mutated %s words and llvm-objdump-22's text: tools/amdspec/mutate.py --mcpu %s "
                "--seed %d --per-base %d --limit %d\n" % (a.mcpu, a.mcpu, a.seed, a.per_base, a.limit))
        f.write("# bytes\torigin\tlen\ttext\tnote\n")
        for r in rows:
            f.write(r + "\n")
    rej = sum(1 for r in rows if r.split("\t")[3].startswith(".long"))
    print("%s: %d mutated words, %d rejected by llvm-objdump-22, %d left out (llvm-objdump-22 crashes)"
          % (a.mcpu, len(rows), rej, crashed))


if __name__ == "__main__":
    main()
