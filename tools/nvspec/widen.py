"""python3 -m nvspec.widen --arch 86 : widen register and predicate fields that the bit
classification left short, and rewrite isa-specs/nvidia/sm<arch>.xml in place (deterministic).

Why fields come out short: a bit is structural when flipping it *from the example* changes the
operand shape. When the example's register is one flip away from the all-ones value (`R254`,
`P3` with the top bit clear, `P6`...), that flip prints `RZ` / `PT`, which nvdisasm leaves out
in some operand slots, so the bit joined the identifier mask instead of the field. Words with
the bit at its other value then fall into no form or into a sibling form with other fields.

The pass: for every register-like field (`OPR_REG` 8 bits, `OPR_UREG` 6, `OPR_PRED` /
`OPR_UPRED` 3) of one range that is narrower than its kind, and whose neighbouring bit (below
or above) is an identifier bit, the widened field is tried on the form's example word with
several values (never the all-ones value): nvdisasm must print the same text except that every
token which showed the old register now shows the new one. Accepted bits leave the identifier
mask and join the field; this is repeated until nothing changes. When the widened form's
identifier equals another form's with the same template and that wide field, the form was only
that form's narrow duplicate and is dropped; with another template, the widening is not done.
"""
import argparse
import os
import random
import re

from . import probe
from .oracle import Oracle

NATURAL = {"OPR_REG": (8, "R%d", 255, "RZ"), "OPR_UREG": (6, "UR%d", 63, "URZ"),
           "OPR_PRED": (3, "P%d", 7, "PT"), "OPR_UPRED": (3, "UP%d", 7, "UPT")}
_ENC = re.compile(r"      <Encoding>\n.*?      </Encoding>\n", re.S)
_NAME = re.compile(r"<EncodingName>(.*?)</EncodingName>")
_MASK = re.compile(r'<EncodingIdentifierMask Radix="2">([01]+)</EncodingIdentifierMask>')
_IDENT = re.compile(r'<EncodingIdentifier Radix="2">([01]+)</EncodingIdentifier>')
_EXAMPLE = re.compile(r"<Description>example 0x([0-9a-f]+): ")
_FIELD = re.compile(r"( *)<Field>\n\s*<FieldName>(.*?)</FieldName>\n\s*<BitLayout>\n(.*?)\s*</BitLayout>\n\s*</Field>\n", re.S)
_RANGE = re.compile(r"<BitCount>(\d+)</BitCount><BitOffset>(\d+)</BitOffset>")
_IENC = re.compile(r"<EncodingName>(.*?)</EncodingName>.*?</InstructionEncoding>", re.S)
_OPND = re.compile(r"<FieldName>(.*?)</FieldName><DataFormatName>[^<]*</DataFormatName><OperandType>(.*?)</OperandType>")
_WORD = re.compile(r"-?0x[0-9a-f]+|\w+")
_SYNTAX = re.compile(r"<Syntax>(.*?)</Syntax>")
_IENC_BLOCK = re.compile(r" *<InstructionEncoding>\n\s*<EncodingName>(.*?)</EncodingName>.*?</InstructionEncoding>\n", re.S)


def operand_types(xml):
    """-> {encoding name: {field name: operand type}} from the Instructions section."""
    out = {}
    ins = xml[xml.index("<Instructions>"):]
    for m in _IENC.finditer(ins):
        out[m.group(1)] = dict(_OPND.findall(m.group(0)))
    return out


_SCALED = re.compile(r"<FieldName>([A-Z0-9_]+)</FieldName>(<DataFormatName>[^<]*</DataFormatName><OperandType>[^<]*</OperandType>)<OperandSize>(\d+)</OperandSize>(?:<Scale>(\d+)</Scale>)?")


def operand_scales(xml):
    """-> {encoding name: {field name: Scale}} (fields with a Scale only)."""
    out = {}
    ins = xml[xml.index("<Instructions>"):]
    for m in _IENC.finditer(ins):
        out[m.group(1)] = {f: int(sc) for f, _, _, sc in _SCALED.findall(m.group(0)) if sc}
    return out


def unscale(block, enc_name, rescale):
    """A widened number has one bit more; one widened by its lowest bit prints the field value
    (no Scale)."""
    def sub(m):
        if (enc_name, m.group(1)) not in rescale:
            return m.group(0)
        return "<FieldName>%s</FieldName>%s<OperandSize>%d</OperandSize>" % (m.group(1), m.group(2), int(m.group(3)) + 1)
    return _SCALED.sub(sub, block)


def parse_encodings(xml, arch):
    nb = probe.NBITS[arch]
    encs = []
    for m in _ENC.finditer(xml):
        b = m.group(0)
        fields = []
        for fm in _FIELD.finditer(b):
            rs = [(int(o), int(c)) for c, o in _RANGE.findall(fm.group(3))]
            fields.append((fm.group(2), rs))
        encs.append({
            "span": m.span(), "text": b, "name": _NAME.search(b).group(1),
            "mask": int(_MASK.search(b).group(1), 2), "ident": int(_IDENT.search(b).group(1), 2),
            "example": int(_EXAMPLE.search(b).group(1), 16), "fields": fields, "nb": nb,
        })
    return encs


def candidates(enc, types, scales=None):
    """(field name, kind, lo, width, new lo, new width) widenings to test."""
    out = []
    syntax = _SYNTAX.search(enc["text"]).group(1)
    for name, rs in enc["fields"]:
        kind = types.get(name)
        if kind == "OPR_UIMM" and len(rs) == 1 and "???{%s}" % name in syntax and rs[0][1] < 8:
            # a value nvdisasm has no name for, printed in decimal (`???12`, `R7.???2`): the
            # example's value was one flip away from a named one (a register, `.H1`), so the
            # neighbouring bit was taken for structural
            lo, w = rs[0]
            for c, nlo in ((lo - 1, lo - 1), (lo + w, lo)):
                if 0 <= c < enc["nb"] and enc["mask"] >> c & 1:
                    out.append((name, "UNNAMED", lo, w, nlo, w + 1))
            continue
        if kind in ("OPR_UIMM", "OPR_SIMM") and len(rs) == 1 and (scales or {}).get(name) == 2:
            # a number whose lowest bit was taken for structural (the example's offset was
            # 0x1: clearing the bit removes the offset) and whose step 2 was read as a scale
            lo, w = rs[0]
            if lo > 0 and enc["mask"] >> (lo - 1) & 1:
                out.append((name, kind, lo, w, lo - 1, w + 1))
            continue
        if kind in ("OPR_UIMM", "OPR_SIMM") and len(rs) == 2 and rs[0][0] + rs[0][1] + 1 == rs[1][0] \
                and enc["mask"] >> (rs[1][0] - 1) & 1 and (scales or {}).get(name, 1) == 1:
            # a number with a one-bit hole that was taken for structural (the example's value
            # had only that bit set: clearing it removes the operand)
            out.append((name, kind, rs[0][0], rs[0][1], rs[0][0], rs[0][1] + rs[1][1] + 1))
            continue
        if kind in NATURAL and len(rs) == 2 and rs[0][0] + rs[0][1] + 1 == rs[1][0] \
                and enc["mask"] >> (rs[1][0] - 1) & 1 and rs[0][1] + rs[1][1] + 1 <= NATURAL[kind][0]:
            # a register or predicate with a one-bit hole that was taken for structural (the
            # example's `P5` with the hole bit set is `PT`, which nvdisasm leaves out there)
            out.append((name, kind, rs[0][0], rs[0][1], rs[0][0], rs[0][1] + rs[1][1] + 1))
            continue
        if kind not in NATURAL or len(rs) != 1:
            continue
        lo, w = rs[0]
        n = NATURAL[kind][0]
        if w >= n:
            continue
        for c, nlo in ((lo - 1, lo - 1), (lo + w, lo)):
            if 0 <= c < enc["nb"] and enc["mask"] >> c & 1:
                out.append((name, kind, lo, w, nlo, w + 1))
    return out


def reg_name(kind, v):
    if kind == "UNNAMED":
        return "%d" % v
    _, fmt, z, zn = NATURAL[kind]
    return zn if v == z else fmt % v


def num_ok(kind, nw, v, tok):
    """A printed number that shows value v of an nw-bit field (either sign reading)."""
    if not re.fullmatch(r"-?0x[0-9a-f]+", tok or ""):
        return False
    p = int(tok, 16)
    return p == v or p == v - (1 << nw)


def name_of(cand, v):
    kind = cand[1]
    return reg_name(kind, v) if kind in NATURAL or kind == "UNNAMED" else "0x%x" % v


def test_words(enc, cand, rng):
    name, kind, lo, w, nlo, nw = cand
    allones = (1 << nw) - 1
    vals = {0, 1, 2, allones - 1, 1 << (nw - 1), (1 << (nw - 1)) - 1}
    if kind not in NATURAL and kind != "UNNAMED":
        vals = {1, 3, 5, 0x11, allones, 1 << (nw - 1), (1 << (nw - 1)) + 1}
    while len(vals) < min(10, allones):
        vals.add(rng.randrange(0, allones))
    ex = enc["example"]
    old = (ex >> nlo) & allones
    if kind == "UNNAMED" and nlo == lo:
        # widened upwards: the values above the example's are the unnamed ones (those below
        # name something: `.H1`, nothing), the other forms take them
        vals = set(range(old + 1, min(allones, old + 6) + 1))
    elif kind == "UNNAMED":
        vals.discard(allones)
    vals.discard(allones if kind in NATURAL else 0)
    vals.discard(old)
    words = []
    for v in sorted(vals):
        words.append((v, (ex & ~(allones << nlo)) | (v << nlo)))
    return old, words


def accepts(ex_text, old_name, new_name, text, same=None):
    """nvdisasm's text of a probe word equals the example's except that tokens showing the old
    value show the new one (`same(token)` decides for numbers)."""
    if text is None:
        return False
    a, b = _WORD.findall(ex_text), _WORD.findall(text)
    if len(a) != len(b):
        return False
    changed = False
    for x, y in zip(a, b):
        if x == y and (same is None or x != old_name):
            continue
        if x != old_name or not (same(y) if same else y == new_name):
            return False
        changed = True
    return changed


def bits_str(v, n):
    return format(v, "0%db" % n)


def apply(enc, cand):
    """Rewrite one Encoding block: the bit leaves the mask, the field takes it."""
    name, kind, lo, w, nlo, nw = cand
    c = nlo if nlo != lo else lo + w
    enc["mask"] &= ~(1 << c)
    enc["ident"] &= ~(1 << c)
    enc["fields"] = [(n, [(nlo, nw)] if n == name else rs) for n, rs in enc["fields"]]


def render(enc):
    b = enc["text"]
    b = _MASK.sub(lambda m: '<EncodingIdentifierMask Radix="2">%s</EncodingIdentifierMask>' % bits_str(enc["mask"], enc["nb"]), b)
    b = _IDENT.sub(lambda m: '<EncodingIdentifier Radix="2">%s</EncodingIdentifier>' % bits_str(enc["ident"], enc["nb"]), b)
    fields = dict(enc["fields"])

    def field(m):
        rs = fields.get(m.group(2))
        if rs is None:
            return m.group(0)
        ind = m.group(1)
        s = ind + "<Field>\n" + ind + "  <FieldName>%s</FieldName>\n" % m.group(2) + ind + "  <BitLayout>\n"
        for o, (off, n) in enumerate(rs):
            s += ind + '    <Range Order="%d"><BitCount>%d</BitCount><BitOffset>%d</BitOffset></Range>\n' % (o, n, off)
        return s + ind + "  </BitLayout>\n" + ind + "</Field>\n"
    return _FIELD.sub(field, b)


def widen(arch, path, orc=None, rng=None, rounds=4):
    orc = orc or Oracle(arch)
    rng = rng or random.Random(20260101 + arch + 7)
    xml = open(path).read()
    types = operand_types(xml)
    encs = parse_encodings(xml, arch)
    keys = {(e["mask"], e["ident"]) for e in encs}
    bykey = {(e["mask"], e["ident"]): e for e in encs}
    scales = operand_scales(xml)
    drop, rescale = set(), set()
    # texts of the examples as nvdisasm prints them (with their own scheduling bits)
    ex_text = dict(zip((e["name"] for e in encs), orc.disasm([e["example"] for e in encs])))
    done = 0
    for _ in range(rounds):
        jobs = []
        for e in encs:
            if e["name"] in drop or not ex_text.get(e["name"]):
                continue
            for cand in candidates(e, types.get(e["name"], {}), scales.get(e["name"], {})):
                old, words = test_words(e, cand, rng)
                jobs.append((e, cand, old, words))
        flat = [w for _, _, _, ws in jobs for _, w in ws]
        texts = iter(orc.disasm(flat))
        changed = 0
        taken = set()
        for e, cand, old, words in jobs:
            kind = cand[1]
            got = [next(texts) for _ in words]
            nw = cand[5]
            ok = words and all(accepts(ex_text[e["name"]], name_of(cand, old), name_of(cand, v), t,
                             None if kind in NATURAL or kind == "UNNAMED" else (lambda y, v=v: num_ok(kind, nw, v, y)))
                     for (v, _), t in zip(words, got))
            if not ok or (e["name"], cand[0]) in taken:
                continue
            c = cand[4] if cand[4] != cand[2] else cand[2] + cand[3]
            key = (e["mask"] & ~(1 << c), e["ident"] & ~(1 << c))
            if key in keys:
                # A form that already has the wide field: this one is its narrow duplicate
                # (it only took the words with the bit at the example's value).
                other = bykey[key]
                if _SYNTAX.search(other["text"]).group(1) == _SYNTAX.search(e["text"]).group(1) \
                        and dict(other["fields"]).get(cand[0]) == [(cand[4], cand[5])]:
                    drop.add(e["name"])
                    keys.discard((e["mask"], e["ident"]))
                    taken.add((e["name"], cand[0]))
                    changed += 1
                continue
            keys.discard((e["mask"], e["ident"]))
            keys.add(key)
            apply(e, cand)
            bykey[key] = e
            if kind not in NATURAL:
                rescale.add((e["name"], cand[0]))  # one bit more, no Scale
            taken.add((e["name"], cand[0]))
            changed += 1
        done += changed
        probe.log("widen sm%d: %d fields widened this round" % (arch, changed))
        if not changed:
            break
    out, pos = [], 0
    for e in encs:
        out.append(xml[pos:e["span"][0]])
        if e["name"] not in drop:
            out.append(render(e))
        pos = e["span"][1]
    out.append(xml[pos:])
    xml = "".join(out)
    # the dropped forms' entries in the Instructions section
    xml = _IENC_BLOCK.sub(lambda m: "" if m.group(1) in drop else unscale(m.group(0), m.group(1), rescale), xml)
    with open(path, "w") as f:
        f.write(xml)
    return done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, choices=(50, 86), required=True)
    a = ap.parse_args()
    path = os.path.join(probe.ROOT, "isa-specs", "nvidia", "sm%d.xml" % a.arch)
    n = widen(a.arch, path)
    probe.log("widen sm%d: %d widenings in all" % (a.arch, n))


if __name__ == "__main__":
    main()
