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
import re
import sys

from .oracle import Oracle
from .textparse import parse, tokens, reg_class, TOKEN

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
    return ex, accepted, seeds


KEYBITS = {50: list(range(52, 64)), 86: list(range(0, 12))}


class FormIndex:
    """Which forms match a word: buckets by the primary opcode bits."""

    def __init__(self, arch):
        self.arch = arch
        self.buckets = {}
        self.keys = set()

    def add(self, f):
        mask = sum(1 << b for b in f["mask_bits"])
        val = f["example"] & mask
        key = (mask, val)
        if key in self.keys:
            return False
        self.keys.add(key)
        kb = KEYBITS[self.arch]
        fixed = sum(((val >> b) & 1) << i for i, b in enumerate(kb))
        free = [i for i, b in enumerate(kb) if b not in f["mask_bits"]]
        for x in range(1 << len(free)):
            k = fixed
            for j, i in enumerate(free):
                k |= ((x >> j) & 1) << i
            self.buckets.setdefault(k, []).append((mask, val))
        return True

    def matches(self, w):
        k = get_field(w, KEYBITS[self.arch])
        return any(w & m == v for m, v in self.buckets.get(k, ()))


def signature(arch, w, t):
    g, mn, ops = parse(t)
    return (opval(arch, w), bool(g), mn, tuple(tokens(o)[0] for o in ops))


def closure_examples(arch, index, pool, per_key=6):
    """Words of the pool (word, text) that no form matches, one per operand shape, at most
    `per_key` per (opcode value, mnemonic)."""
    out, sigs, per = [], set(), {}
    for w, t in pool:
        if not t or not usable(t) or index.matches(w):
            continue
        sg = signature(arch, w, t)
        if sg in sigs:
            continue
        k = (sg[0], base_of(t))
        if per.get(k, 0) >= per_key:
            continue
        sigs.add(sg)
        per[k] = per.get(k, 0) + 1
        out.append((w, t))
    return out


def struct_flips(forms):
    """Accepted words one structural bit away from an example: other forms to probe."""
    out = []
    for f in forms:
        for b in sorted(f["mask_bits"]):
            u = f["flips"].get(b)
            if u:
                out.append((f["example"] ^ (1 << b), u))
    return out


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
        if m0.split(".")[0] == m1.split(".")[0] and len(o0) == len(o1):
            # A value-dependent alias (IMAD.MOV / IMAD.SHL / IMAD.IADD): the operand change is
            # what the bit does; the printer re-derives the alias.
            r = classify(t, " ".join(x for x in (g1, m0, ", ".join(o1)) if x))
            if r[0] == "op" and not r[3] and _same_sign(o0[r[1]], o1[r[1]]):
                return r
        return ("struct",)
    if len(o0) == len(o1) + 1 and o0[:-1] == o1 and _HEXNUM.match(o0[-1]):
        # A trailing number that nvdisasm leaves out when it is zero (sm50 `LEA.HI` shift):
        # the bit belongs to the number (the field is marked OmitZero).
        return ("op", len(o0) - 1, 0, ())
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
            if len(dt) != 1 or not same_kind(ta[dt[0]], tb[dt[0]]):
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
    if len(dt) != 1 or not same_kind(ta[dt[0]], tb[dt[0]]):
        return ("struct",)
    return ("op", k, dt[0], ())


def _same_sign(a, b):
    return a.lstrip("|").startswith("-") == b.lstrip("|").startswith("-")


def same_kind(a, b):
    """A field keeps its token kind: a number stays a number, a register keeps its class
    (`0x0` -> `UR6` or `R4` -> `UR4` is a different operand shape)."""
    if a[0] != b[0]:
        return False
    return a[0] != "reg" or reg_class(a[1]) == reg_class(b[1])


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
    for c, bits in list(groups.items()):
        if c[0] == "op":
            bad = odd_number_bits(t, c[1], c[2], bits, flips)
            if bad:
                mask_bits |= bad
                groups[c] = [b for b in bits if b not in bad]
                if not groups[c]:
                    del groups[c]
    for c, bits in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0] == "op", str(kv[0][2]))):
        fd = {"bits": sorted(bits), "op": c[1]}
        if c[0] == "op":
            fd["kind"] = "tok"
            fd["tok"] = c[2]
            fd["tied"] = list(c[3])
            if c[1] == len(ops) - 1 and any(flips.get(b) and len(parse(flips[b])[2]) == c[1] for b in bits):
                fd["omit_zero"] = True
        else:
            fd["kind"] = "prefix"
            fd["char"] = c[2]
        f["fields"].append(fd)
    # modifier runs (split below)
    f["mod_runs"] = runs(b for b, c in cls.items() if c == ("mod",))
    return f


_HEXNUM = re.compile(r"^-?0x[0-9a-f]+$")


def _num_token(text, k, j):
    _, _, o = parse(text)
    if len(o) <= k:
        return None
    toks = tokens(o[k])[1]
    if len(toks) <= j or not _HEXNUM.match(toks[j][1]):
        return None
    return int(toks[j][1], 16)


def odd_number_bits(t, k, j, bits, flips):
    """Bits of a hex-number field whose flip does not move the number by a distinct power of
    two (they change something else that happens to print in the same place): structural."""
    v0 = _num_token(t, k, j)
    if v0 is None:
        return set()
    bad, seen = set(), set()
    for b in sorted(bits):
        v1 = _num_token(flips[b], k, j) if flips.get(b) else None
        if v1 is None and flips.get(b) and j == 0 and len(parse(flips[b])[2]) == k:
            v1 = 0  # the trailing number left out at zero
        d = abs(v1 - v0) if v1 is not None else 0
        if d == 0 or d & (d - 1) or d in seen:
            bad.add(b)
        else:
            seen.add(d)
    return bad


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


def probe_reuse(arch, oracle, forms):
    """sm86: which register operand each reuse bit (122-125) flags. The example gets the yield
    bit (109; nvdisasm shows no `.reuse` without it), a stall count of 1 (yield with stall 0 is
    rejected) and one reuse bit; the register that gains `.reuse` is the bit's field."""
    if arch != 86:
        return
    cands = []
    for f in forms:
        w = (f["example"] & ~(0xF << 122) & ~(0xF << 105)) | (1 << 109) | (1 << 105)
        cands += [w] + [w | (1 << (122 + k)) for k in range(4)]
    res = oracle.disasm(cands)
    for i, f in enumerate(forms):
        f["reuse"] = {}
        t0 = res[5 * i]
        if not t0:
            continue
        _, _, o0 = parse(t0)
        for k in range(4):
            u = res[5 * i + 1 + k]
            if not u or ".reuse" not in u:
                continue
            _, _, o1 = parse(u)
            if len(o1) != len(o0):
                continue
            for j in range(len(o0)):
                if o1[j] != o0[j] and ".reuse" in o1[j]:
                    n = len(tokens(o1[j][:o1[j].index(".reuse")])[1]) - 1
                    fd = f["tok_field"].get((j, n))
                    if fd and fd.get("rclass") == "R":
                        f["reuse"][k] = fd["name"]
                    break


def _one_operand(g0, m0, o0, u):
    """The operand position whose text alone differs between the example's parts and text `u`
    (same guard and mnemonic); a trailing operand added or left out counts as that position."""
    g1, m1, o1 = parse(u)
    if g1 != g0 or m1 != m0:
        return None
    if len(o1) == len(o0):
        diff = [k for k in range(len(o0)) if o0[k] != o1[k]]
        return diff[0] if len(diff) == 1 else None
    if len(o1) == len(o0) + 1 and o1[:-1] == o0:
        return len(o0)
    if len(o0) == len(o1) + 1 and o0[:-1] == o1:
        return len(o1)
    return None


def _spans(op):
    return [(m.start(), m.end()) for m in TOKEN.finditer(op)]


def value_fields(arch, oracle, forms, min_bits=2, max_bits=6):
    """Operand value fields: structural bits whose flips change only one operand's text (or add
    or remove the last operand), grouped by operand, are enumerated value by value on the
    example. When every value nvdisasm accepts prints the example's text with only that operand
    changed, the bits form one field whose spellings are the varying part of the operand (the
    `DEPBAR` wait set `{5,3,0}`, the sm50 `IADD3` half selector `.H0` / `.H1` / `.???3`, the
    `SB0`..`SB5` of `DEPBAR.LE`); they leave the identifier mask. A field whose operand is
    absent for value 0 (and only then) spells the whole operand and is OmitZero. One-bit groups
    (`R2.CC`, `.NEG` after an immediate) stay structural: merging their forms would change which
    form wins for the words several forms match (most mask bits first), and with it the fields
    that the census and the family rules read. Returns the number of fields found."""
    jobs = []
    for f in forms:
        g0, m0, o0 = parse(f["text"])
        groups = {}
        for b in sorted(f["mask_bits"]):
            if b in OPBITS[arch] or (arch == 86 and b in CTRL86):
                continue
            u = f["flips"].get(b)
            k = _one_operand(g0, m0, o0, u) if u else None
            if k is not None:
                groups.setdefault(k, []).append(b)
        for k, bits in sorted(groups.items()):
            if min_bits <= len(bits) <= max_bits:
                jobs.append((f, k, bits))
    cands = []
    for f, k, bits in jobs:
        cands += [set_field(f["example"], bits, v) for v in range(1 << len(bits))]
    log("  value fields: %d candidate groups, %d words" % (len(jobs), len(cands)))
    res = oracle.disasm(cands)
    found, i0 = 0, 0
    for f, k, bits in jobs:
        texts = res[i0:i0 + (1 << len(bits))]
        i0 += 1 << len(bits)
        fd = _value_field(f, k, bits, texts)
        if fd is None or any(b not in f["mask_bits"] for b in bits):
            continue
        f["mask_bits"] -= set(bits)
        if k == len(f["ops"]):
            f["ops"].append("")
        f["fields"].append(fd)
        found += 1
    return found


def _value_field(f, k, bits, texts):
    g0, m0, o0 = parse(f["text"])
    rest0 = o0[:k] + o0[k + 1:]
    spell, absent = {}, set()
    for v, u in enumerate(texts):
        if u is None:
            continue
        g1, m1, o1 = parse(u)
        if g1 != g0 or m1 != m0:
            return None
        if len(o1) == len(rest0) + 1 and o1[:k] + o1[k + 1:] == rest0:
            spell[v] = o1[k]
        elif k == len(rest0) and o1 == rest0:
            absent.add(v)
        else:
            return None
    if len(spell) + bool(absent) < 2 or absent - {0}:
        return None
    vex = get_field(f["example"], bits)
    ex = o0[k] if k < len(o0) else ""
    if absent:
        if vex not in absent and spell.get(vex) != ex:
            return None
        a, b = 0, len(ex)
    else:
        if spell.get(vex) != ex:
            return None
        sp = list(spell.values())
        p, mids = middle(sp)
        q = len(sp[0]) - p - len(mids[0])
        a, b = p, len(ex) - q
        spans = _spans(ex)
        # never cut a token; a word that is no token (`SB5`) is spelled whole
        for s, e in spans:
            if s < a < e:
                a = s
            if s < b < e:
                b = e
        ends = {e for _, e in spans}
        starts = {s for s, _ in spans}
        while a > 0 and ex[a - 1].isalnum() and a not in ends:
            a -= 1
        while b < len(ex) and ex[b].isalnum() and b not in starts:
            b += 1
    spans = _spans(ex)
    inside = [j for j, (s, e) in enumerate(spans) if s < b and e > a]
    toks = {fd["tok"] for fd in f["fields"] if fd["kind"] == "tok" and fd["op"] == k}
    toks |= {j for fd in f["fields"] if fd["kind"] == "tok" for (kk, j) in fd.get("tied", []) if kk == k}
    if (inside and toks) or (a == 0 and any(x["kind"] == "prefix" and x["op"] == k for x in f["fields"])):
        return None
    tail = len(ex) - b
    values = {v: s[a:len(s) - tail] for v, s in spell.items()}
    fd = {"kind": "val", "bits": list(bits), "op": k, "span": (a, b), "values": values,
          "tokpos": sum(1 for s, _ in spans if s < a) - 0.5}
    if absent:
        fd["omit_zero"] = True
    return fd


def omit_zero_numbers(arch, oracle, forms):
    """A last operand that is one hex number of a field, probed at zero: when nvdisasm then leaves
    the operand out (with its comma), the field is OmitZero (sm50 `LEA.HI` shift). Needed once
    value fields merge the forms whose examples had the number at zero with those that did not.
    Returns the number of fields marked."""
    jobs = []
    for f in forms:
        if not f["ops"] or not f["ops"][-1]:
            continue
        k = len(f["ops"]) - 1
        skel, toks = tokens(f["ops"][k])
        if skel != "#" or len(toks) != 1 or not _HEXNUM.match(toks[0][1]):
            continue
        for fd in f["fields"]:
            if fd["kind"] == "tok" and fd["op"] == k and fd["tok"] == 0 and not fd.get("omit_zero") \
                    and not fd.get("tied"):
                w = set_field(f["example"], fd["bits"], 0)
                if w != f["example"]:
                    jobs.append((f, fd, w))
    res = oracle.disasm([w for _, _, w in jobs])
    n = 0
    for (f, fd, _), u in zip(jobs, res):
        if not u:
            continue
        g0, m0, o0 = parse(f["text"])
        g1, m1, o1 = parse(u)
        if (g1, m1, o1) == (g0, m0, o0[:-1]):
            fd["omit_zero"] = True
            n += 1
    return n


def sibling_examples(arch, oracle, ex, accepted, covered, per_value=2):
    """Opcode values that no form's example has (`covered`: rejected on every background, or
    accepted only with `???` / `INVALID` placeholders in the text), tried on the examples of
    their siblings
    (same low 9 opcode bits: the same operation with another operand kind, e.g. sm86 `I2F`
    0x306 register source / 0xd06 uniform register source) with each other bit flipped in turn
    (the uniform forms need bit 91 set and other bits clear, which no background had). Accepted
    words with a usable text become examples of new (opcode value, mnemonic) keys. Returns the
    new keys."""
    nb = NBITS[arch]
    skip = set(OPBITS[arch]) | (set(CTRL86) if arch == 86 else set())
    flips = [b for b in range(nb) if b not in skip]
    by_low = {}
    for (v, base) in sorted(ex):
        if base and ex[(v, base)]:
            by_low.setdefault(v & 0x1ff, []).append((v, base))
    n = 1 << len(OPBITS[arch])
    cands, owner = [], []
    for v in range(n):
        if v in covered:
            continue
        sib = by_low.get(v & 0x1ff, [])
        srcs = [w for k in sib for w, _ in ex[k][:1]][:per_value]
        for w in srcs:
            w = with_opval(arch, w, v)
            for b in flips:
                cands.append(w ^ (1 << b))
                owner.append(v)
    log("  siblings: %d words" % len(cands))
    res = oracle.disasm(cands)
    new = {}
    for v, w, t in zip(owner, cands, res):
        if t is None:
            continue
        key = (v, base_of(t))
        if ex.get(key):
            continue
        lst = new.setdefault(key, [])
        if len(lst) < 3 and usable(t):
            lst.append((w, t))
    for k, lst in new.items():
        if lst:
            ex[k] = lst
            accepted.add(k[0])
    return sorted(k for k, lst in new.items() if lst)
