"""Derive instruction forms and bit fields for sm50 / sm86 by probing nvdisasm 12.8.

Method (after Hayes et al., CGO 2019, and CuAssembler):
 1. seeds: every distinct instruction word of the corpus (fixtures/nvidia/ref/*.jsonl);
 2. discovery: every value of the primary opcode bits (sm86: bits 0-11; sm50: bits 51-63)
    is tried on a set of backgrounds (seed words, zero, fixed-seed random words);
    each accepted (opcode value, mnemonic) gives example words;
 3. per example, every other bit is flipped and the change in nvdisasm's text classifies
    the bit: don't-care, guard predicate, modifier (only the mnemonic changes), operand
    token k/j (only one token of one operand changes), operand prefix (-, |, !, ~) or
    structural (anything else, or illegal): structural bits join the identifier mask;
 4. modifier runs are enumerated value by value to get their spellings; special-register
    and other small operand fields are enumerated too;
 5. forms with the same identifier mask/value are merged.
"""
import json
import os
import random
import sys

from .oracle import Oracle
from .textparse import parse, tokens, reg_class

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NBITS = {50: 64, 86: 128}
OPBITS = {50: list(range(51, 64)), 86: list(range(0, 12))}
# Scheduling bits of sm86 words (stall, yield, write/read barrier, wait mask, reuse):
# nvdisasm never prints them, they are described as control fields, not probed.
CTRL86 = list(range(105, 128))


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def load_seeds(arch):
    d = os.path.join(ROOT, "fixtures", "nvidia", "ref")
    seen, out = set(), []
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".sm%d.jsonl" % arch):
            continue
        for line in open(os.path.join(d, fn)):
            r = json.loads(line)
            w = int.from_bytes(bytes.fromhex(r["bytes"]), "little")
            if w not in seen:
                seen.add(w)
                out.append((w, r["text"]))
    return out


def opval(arch, w):
    v = 0
    for k, b in enumerate(OPBITS[arch]):
        v |= ((w >> b) & 1) << k
    return v


def with_opval(arch, w, v):
    for k, b in enumerate(OPBITS[arch]):
        w = (w & ~(1 << b)) | (((v >> k) & 1) << b)
    return w


def base_of(text):
    _, mn, _ = parse(text)
    return mn.split(".")[0]


def usable(t):
    """Examples with nvdisasm's placeholders for invalid values make poor templates."""
    return "?" not in t and "INVALID" not in t


def discover(arch, oracle, seeds, rng, nback):
    """-> dict (opval, base) -> list of (word, text) examples (seed examples first)."""
    ex = {}
    # neutral scheduling bits / filler control word: no .reuse flags in the texts
    ws = [w & ~sum(1 << x for x in CTRL86) | (0x7e0 << 105) if arch == 86 else w for w, _ in seeds]
    seeds = list(zip(ws, oracle.disasm(ws)))
    for w, t in seeds:
        if t and usable(t):
            ex.setdefault((opval(arch, w), base_of(t)), []).append((w, t))
    by_op = {}
    for w, t in seeds:
        by_op.setdefault(opval(arch, w), w)
    backs = [by_op[k] for k in sorted(by_op)]
    rng.shuffle(backs)
    backs = backs[:nback] + [0] + [rng.getrandbits(NBITS[arch]) for _ in range(4)]
    if arch == 86:
        backs = [b & ~sum(1 << x for x in CTRL86) | (0x7e0 << 105) for b in backs]
    n = 1 << len(OPBITS[arch])
    accepted = set()
    for bi, b in enumerate(backs):
        cands = [with_opval(arch, b, v) for v in range(n)]
        res = oracle.disasm(cands)
        for v, (w, t) in enumerate(zip(cands, res)):
            if t is None:
                continue
            accepted.add(v)
            key = (v, base_of(t) if t else "")
            lst = ex.setdefault(key, [])
            if len(lst) < 3 and usable(t):
                lst.append((w, t))
        log("  background %d/%d: %d opcode values accepted so far, %d keys" % (bi + 1, len(backs), len(accepted), len(ex)))
    return ex, accepted


def classify(t, u):
    if u is None:
        return ("struct",)
    if u == t:
        return ("dc",)
    g0, m0, o0 = parse(t)
    g1, m1, o1 = parse(u)
    if m0 == m1 and o0 == o1:
        if g0 != g1:
            return ("guard", "PRED_NEG" if g0.startswith("@!") != g1.startswith("@!") else "PRED")
        return ("struct",)
    if g0 != g1:
        return ("struct",)
    if m0 != m1:
        if o0 == o1 and m0.split(".")[0] == m1.split(".")[0]:
            return ("mod",)
        return ("struct",)
    if len(o0) != len(o1):
        return ("struct",)
    diff = [k for k in range(len(o0)) if o0[k] != o1[k]]
    if len(diff) > 1:
        # the same register/number printed in several operands (tied fields)
        changes = []
        for k in diff:
            sa, ta = tokens(o0[k])
            sb, tb = tokens(o1[k])
            dt = [j for j in range(len(ta)) if ta[j] != tb[j]] if sa == sb and len(ta) == len(tb) else []
            if len(dt) != 1:
                return ("struct",)
            changes.append((k, dt[0], ta[dt[0]], tb[dt[0]]))
        if len({(c[2], c[3]) for c in changes}) != 1:
            return ("struct",)
        return ("op", changes[0][0], changes[0][1], tuple((c[0], c[1]) for c in changes[1:]))
    if len(diff) != 1:
        return ("struct",)
    k = diff[0]
    a, b = o0[k], o1[k]
    for ch in "-!~":
        if a == ch + b or b == ch + a:
            return ("opmod", k, ch)
    if a == "|" + b + "|" or b == "|" + a + "|":
        return ("opmod", k, "|")
    if a.replace("-|", "|") == ("-" + b) or b == "-" + a:
        return ("opmod", k, "-")
    sa, ta = tokens(a)
    sb, tb = tokens(b)
    if sa != sb or len(ta) != len(tb):
        return ("struct",)
    dt = [j for j in range(len(ta)) if ta[j] != tb[j]]
    if len(dt) != 1:
        return ("struct",)
    return ("op", k, dt[0], ())


def runs(bits):
    out, cur = [], []
    for b in sorted(bits):
        if cur and b == cur[-1] + 1:
            cur.append(b)
        else:
            if cur:
                out.append(cur)
            cur = [b]
    if cur:
        out.append(cur)
    return out


def set_field(w, bits, v):
    for k, b in enumerate(bits):
        w = (w & ~(1 << b)) | (((v >> k) & 1) << b)
    return w


def get_field(w, bits):
    return sum(((w >> b) & 1) << k for k, b in enumerate(bits))


def suffixes(mn):
    return mn.split(".")[1:]


def analyse(arch, oracle, examples):
    """examples: list of (word, text). Returns list of form dicts."""
    nb = NBITS[arch]
    probe_bits = [b for b in range(nb) if not (arch == 86 and b in CTRL86)]
    cands = []
    for w, _ in examples:
        cands += [w ^ (1 << b) for b in probe_bits]
    log("  flipping %d candidates" % len(cands))
    res = oracle.disasm(cands)
    forms = []
    for i, (w, t) in enumerate(examples):
        flips = res[i * len(probe_bits):(i + 1) * len(probe_bits)]
        cls = {b: classify(t, u) for b, u in zip(probe_bits, flips)}
        cls["_flips"] = dict(zip(probe_bits, flips))
        forms.append(build_form(arch, w, t, cls))
    return forms


def build_form(arch, w, t, cls):
    flips = cls.pop("_flips")
    mask_bits = {b for b, c in cls.items() if c[0] == "struct"}
    f = {"example": w, "text": t, "mask_bits": mask_bits, "fields": [], "flips": flips}
    g, mn, ops = parse(t)
    f["guard"], f["mnemonic"], f["ops"] = g, mn, ops
    # guard
    for name in ("PRED", "PRED_NEG"):
        bits = sorted(b for b, c in cls.items() if c == ("guard", name))
        if bits:
            f["fields"].append({"name": name, "bits": bits, "kind": name})
    # operand tokens
    groups = {}
    for b, c in cls.items():
        if c[0] in ("op", "opmod"):
            groups.setdefault(c, []).append(b)
    for c, bits in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0] == "op", str(kv[0][2]))):
        fd = {"bits": sorted(bits), "op": c[1]}
        if c[0] == "op":
            fd["kind"] = "tok"
            fd["tok"] = c[2]
            fd["tied"] = list(c[3])
        else:
            fd["kind"] = "prefix"
            fd["char"] = c[2]
        f["fields"].append(fd)
    # modifier runs (split below)
    f["mod_runs"] = runs(b for b, c in cls.items() if c == ("mod",))
    return f


def middle(lists):
    """Common prefix/suffix of suffix lists -> (prefix_len, [middle per list])."""
    p = 0
    while all(len(x) > p for x in lists) and len({x[p] for x in lists}) == 1:
        p += 1
    s = 0
    while all(len(x) - p > s for x in lists) and len({x[len(x) - 1 - s] for x in lists}) == 1:
        s += 1
    return p, [x[p:len(x) - s] for x in lists]


def enumerate_mods(arch, oracle, forms):
    """Turn modifier runs into fields with spellings (value -> text)."""
    jobs = []  # (form, bits)
    for f in forms:
        for r in f.pop("mod_runs"):
            while len(r) > 8:
                jobs.append((f, r[:8]))
                r = r[8:]
            jobs.append((f, r))
    # first pass: whole runs
    pending = jobs
    for attempt in range(3):
        cands, idx = [], []
        for f, bits in pending:
            idx.append(len(cands))
            cands += [set_field(f["example"], bits, v) for v in range(1 << len(bits))]
        res = oracle.disasm(cands)
        retry = []
        for (f, bits), i0 in zip(pending, idx):
            g0, m0, o0 = parse(f["text"])
            texts = res[i0:i0 + (1 << len(bits))]
            vals = {}
            for v, u in enumerate(texts):
                if u is None:
                    continue
                g1, m1, o1 = parse(u)
                if g1 != g0 or o1 != o0 or m1.split(".")[0] != m0.split(".")[0]:
                    continue
                vals[v] = suffixes(m1)
            if not vals:
                continue
            p, mids = middle(list(vals.values()))
            ok = True
            if len(bits) > 1 and len(vals) > 1:
                common = set.intersection(*[set(m) for m in mids])
                if common:
                    ok = False
            if not ok and attempt == 0 and len(bits) > 1:
                retry += [(f, [b]) for b in bits]
                continue
            f["fields"].append({"kind": "mod", "bits": bits, "pos": p,
                                "values": {v: "".join("." + s for s in m) for v, m in zip(vals, mids)}})
        pending = retry
        if attempt == 1 or not pending:
            pending = []
        # fields of one form claiming the same suffix position are one field
        for f in ({id(f): f for f, _ in jobs}.values() if attempt < 2 else ()):
            mods = [fd for fd in f["fields"] if fd["kind"] == "mod"]
            bypos = {}
            for fd in mods:
                bypos.setdefault(fd["pos"], []).append(fd)
            for grp in bypos.values():
                bits = sorted(b for fd in grp for b in fd["bits"])
                if len(grp) > 1 and len(bits) <= 10:
                    for fd in grp:
                        f["fields"].remove(fd)
                    pending.append((f, bits))
        if not pending:
            break


def enumerate_small_operands(arch, oracle, forms):
    """Special registers and other non-register, non-number tokens: enumerate values."""
    jobs = []
    for f in forms:
        for fd in f["fields"]:
            if fd["kind"] != "tok" or len(fd["bits"]) > 9:
                continue
            _, toks = tokens(f["ops"][fd["op"]])
            kind, txt = toks[fd["tok"]]
            if kind == "reg" and reg_class(txt) == "SR":
                jobs.append((f, fd))
    cands = []
    for f, fd in jobs:
        cands += [set_field(f["example"], fd["bits"], v) for v in range(1 << len(fd["bits"]))]
    res = oracle.disasm(cands)
    k = 0
    for f, fd in jobs:
        n = 1 << len(fd["bits"])
        vals = {}
        for v, u in enumerate(res[k:k + n]):
            if u is None:
                continue
            _, _, o1 = parse(u)
            if len(o1) == len(f["ops"]):
                _, t1 = tokens(o1[fd["op"]])
                if len(t1) > fd["tok"]:
                    vals[v] = t1[fd["tok"]][1]
        fd["values"] = vals
        k += n
