"""python3 -m nvspec.illegal_values --arch 50|86 : modifier values nvdisasm 12.8 refuses leave the
forms' identifiers, rewriting isa-specs/nvidia/sm<arch>.xml in place (deterministic; a second
run changes nothing).

A modifier field (`MOD_*`) has a spelling (PredefinedValue) for every value that printed the
example's text with only the suffixes changed; a value without one was either refused or printed
another shape (another form's words). Each such value is tried on the form's example and on
`--variants` copies whose bits outside the identifier and the field are random (scheduling bits
neutral, `?PM` bits clear): when nvdisasm refuses every one, the value is illegal in the form.
The form's identifier then takes the field's bits so that it matches only the legal values: the
legal values are split into disjoint bit patterns (cubes: some field bits fixed, the others free);
the first keeps the form, each further one is a copy of it under the next free name
(`IMAD_825` -> `IMAD_825` and `IMAD_825_2`). A decoder that takes forms by identifier then
refuses the words nvdisasm refuses. (`IMAD` with an immediate, bits 0-1 = 2: the `IDP` opcode
0x826, which has no immediate form; `HMMA` bits 82-83 = 3; `F2FP` bit 86 without bit 76.)
"""
import argparse
import os
import random
import re

from . import probe, widen
from .oracle import Oracle
from .extra_forms import existing_names, neutral

_TYPE = re.compile(r"<OperandTypeName>(.*?)</OperandTypeName>.*?</OperandType>", re.S)
_PDV = re.compile(r"<Name>(.*?)</Name><Value>(\d+)</Value>")


def field_bits(rs):
    """Bit positions of a field, value bit k first."""
    return [o + i for o, n in rs for i in range(n)]


def cubes(bits, allowed, fixed=None, memo=None):
    """Disjoint (mask, value) patterns over `bits` (positions, value bit k = bits[k]) whose union is
    exactly the values in `allowed`: split on the free value bit that gives the fewest patterns
    (each partial assignment once: `memo`)."""
    fixed = fixed or {}
    memo = {} if memo is None else memo
    key = tuple(sorted(fixed.items()))
    if key not in memo:
        memo[key] = _cubes(bits, allowed, fixed, memo)
    return memo[key]


def _cubes(bits, allowed, fixed, memo):
    free = [k for k in range(len(bits)) if k not in fixed]
    vals = []
    for x in range(1 << len(free)):
        v = sum(b << k for k, b in fixed.items())
        for j, k in enumerate(free):
            v |= ((x >> j) & 1) << k
        vals.append(v)
    ok = [v in allowed for v in vals]
    if not any(ok):
        return []
    if all(ok):
        m = sum(1 << bits[k] for k in fixed)
        return [(m, sum(b << bits[k] for k, b in fixed.items()))]
    best = None
    for k in reversed(free):
        c = cubes(bits, allowed, {**fixed, k: 0}, memo) + cubes(bits, allowed, {**fixed, k: 1}, memo)
        if best is None or len(c) < len(best):
            best = c
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, choices=(50, 86), required=True)
    ap.add_argument("--variants", type=int, default=8)
    ap.add_argument("--max-patterns", type=int, default=2,
                    help="narrow a form only when its legal values take at most this many patterns")
    a = ap.parse_args()
    arch = a.arch
    nb = probe.NBITS[arch]
    path = os.path.join(probe.ROOT, "isa-specs", "nvidia", "sm%d.xml" % arch)
    xml = open(path).read()
    rng = random.Random(20260101 + arch + 11)
    orc = Oracle(arch)
    encs = widen.parse_encodings(xml, arch)
    types = widen.operand_types(xml)
    tvals = {m.group(1): {int(v) for _, v in _PDV.findall(m.group(0))} for m in _TYPE.finditer(xml)}
    # sm86: scheduling bits and the `?PM` bits stay as `neutral` sets them (sm50 words carry
    # no scheduling bits: the bundle's control word does).
    fixed_bits = sum(1 << b for b in probe.CTRL86) | 3 << 102 if arch == 86 else 0
    jobs = []  # (encoding, field bits, value, words)
    for e in encs:
        for name, rs in e["fields"]:
            if not name.startswith("MOD_"):
                continue
            bits = field_bits(rs)
            if any(e["mask"] >> b & 1 for b in bits):
                continue
            known = tvals.get(types.get(e["name"], {}).get(name), set())
            fm = sum(1 << b for b in bits)
            for v in range(1 << len(bits)):
                if v in known:
                    continue
                put = sum(((v >> k) & 1) << b for k, b in enumerate(bits))
                ws = [neutral(arch, (e["example"] & ~fm) | put)]
                for _ in range(a.variants):
                    r = rng.getrandbits(nb) & ~e["mask"] & ~fm & ~fixed_bits
                    ws.append(neutral(arch, (e["example"] & (e["mask"] | fixed_bits)) | r | put))
                jobs.append((e, name, bits, v, ws))
    texts = iter(orc.disasm([w for j in jobs for w in j[4]]))
    illegal = {}  # (encoding name, field) -> set of values
    for e, name, bits, v, ws in jobs:
        got = [next(texts) for _ in ws]
        if not any(got):
            illegal.setdefault((e["name"], name), (bits, set()))[1].add(v)
    probe.log("illegal values sm%d: %d modifier values without a spelling tried, %d refused in %d fields"
              % (arch, len(jobs), sum(len(x[1]) for x in illegal.values()), len(illegal)))
    names = existing_names(xml)
    out, pos, added = [], 0, {}
    for e in encs:
        out.append(xml[pos:e["span"][0]])
        pos = e["span"][1]
        pats = [(0, 0)]
        for (en, name), (bits, bad) in sorted(illegal.items()):
            if en != e["name"]:
                continue
            allowed = {v for v in range(1 << len(bits)) if v not in bad}
            pats = [(m0 | m1, v0 | v1) for m0, v0 in pats for m1, v1 in cubes(bits, allowed)]
        if pats == [(0, 0)] or len(pats) > a.max_patterns:
            # (more patterns: more forms than the decode tree's size is worth)
            out.append(e["text"])
            continue
        # the pattern of the example's values keeps the form's name and example
        pats.sort(key=lambda mv: e["example"] & mv[0] != mv[1])
        copies = []
        for i, (m, v) in enumerate(pats):
            c = dict(e)
            c["mask"], c["ident"] = e["mask"] | m, e["ident"] | v
            c["example"] = (e["example"] & ~m) | v
            block = widen.render(c)
            block = re.sub(r"<Description>example 0x[0-9a-f]+: ",
                           "<Description>example 0x%0*x: " % (nb // 4, c["example"]), block, count=1)
            if i:
                base = re.match(r"^(.*_[0-9a-f]{3,4})(?:_\d+)?$", e["name"]).group(1)
                k = names.get(base, 1)
                names[base] = k + 1
                nm = "%s_%d" % (base, k)
                block = block.replace("<EncodingName>%s</EncodingName>" % e["name"], "<EncodingName>%s</EncodingName>" % nm, 1)
                copies.append(nm)
            out.append(block)
        added[e["name"]] = copies
    out.append(xml[pos:])
    xml = "".join(out)

    def ienc(m):
        block = m.group(0)
        s = block
        for nm in added.get(m.group(1), []):
            s += block.replace("<EncodingName>%s</EncodingName>" % m.group(1), "<EncodingName>%s</EncodingName>" % nm, 1)
        return s
    xml = widen._IENC_BLOCK.sub(ienc, xml)
    with open(path, "w") as f:
        f.write(xml)
    probe.log("illegal values sm%d: %d forms narrowed, %d copies added" % (arch, len(added), sum(map(len, added.values()))))


if __name__ == "__main__":
    main()
