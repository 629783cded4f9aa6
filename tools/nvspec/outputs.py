"""python3 -m nvspec.outputs --arch 50|86 [--check] : which operand fields an instruction form
writes, from nvdisasm 12.8's register life ranges, and rewrite the `Input` / `Output`
attributes of isa-specs/nvidia/sm<arch>.xml in place (deterministic, idempotent).

The field names only say that the first operand is a destination (`RD`, `PD`...); a form such
as `ATOMG.E.ADD PT, R5, [R2.64], R7` also writes its second operand (`RA`), while
`FCHK P0, R2, R3` only reads its. nvdisasm's `--print-life-ranges` marks, per instruction of a
function, each register that the instruction assigns (`^`), uses (`v`) or both (`x`). Per form,
the example word gets distinct register numbers in its register and predicate fields (general:
`R128`, `R136`..., above the registers examples use, so that a register the spec names no
field for cannot collide; uniform: `UR8`, `UR16`...; `P1`, `P2`...) and replaces the first
instruction of a kernel of a corpus cubin, followed by `EXIT`; a field is an output when its register is marked assigned,
an input when marked used. When nvdisasm does not print the re-numbered word with the same
operand shape, the example word itself is used, for the fields whose register is unique in it.
Fields with no marks (immediates, `RZ`, `PT`, barrier registers) keep `Input="true"`; a form
with no marks at all keeps its attributes.
"""
import argparse
import os
import re
import subprocess
import tempfile

from . import probe
from .cubin import Cubin
from .widen import _ENC, _NAME, _EXAMPLE, _FIELD, _RANGE, operand_types

NVDISASM = "/opt/oracles/nvdisasm12"
KERNEL = {50: "fixtures/nvidia/bin/atomics.sm50.cubin", 86: "fixtures/nvidia/bin/atomics.sm86.cubin"}
EXIT = {50: 0xe30000000007000f, 86: (0x000fea0003800000 << 64) | 0x794d}
CTRL50 = 0x001f8000fc0007e0
# operand type -> (life-range column group, first probe value, step, value that names no register)
KINDS = {"OPR_REG": ("GPR", 128, 8, 255), "OPR_PRED": ("PRED", 1, 1, 7),
         "OPR_UREG": ("UGPR", 8, 8, 63), "OPR_UPRED": ("UPRED", 1, 1, 7)}
_OPS = re.compile(r"(\s*<Operand )Input=\"(true|false)\" Output=\"(true|false)\"( IsImplicit=\"false\" Order=\"\d+\"><FieldName>([A-Z0-9_]+)</FieldName>)")
_IENC = re.compile(r" *<InstructionEncoding>\n\s*<EncodingName>(.*?)</EncodingName>.*?</InstructionEncoding>\n", re.S)


def get(w, rs):
    v, s = 0, 0
    for lo, n in rs:
        v |= (w >> lo & ((1 << n) - 1)) << s
        s += n
    return v


def put(w, rs, v):
    for lo, n in rs:
        w = (w & ~(((1 << n) - 1) << lo)) | ((v & ((1 << n) - 1)) << lo)
        v >>= n
    return w


class Kernel:
    """A corpus cubin whose first kernel's code is replaced by [words..., EXIT, EXIT...] (a
    function that ends in anything but EXIT falls through, and nvdisasm analyses nothing)."""

    def __init__(self, arch):
        self.arch = arch
        self.data = bytearray(open(os.path.join(probe.ROOT, KERNEL[arch]), "rb").read())
        c = Cubin(bytes(self.data))
        self.sec = c.code_sections()[0]
        self.cap = self.sec.size // 16 - 1 if arch == 86 else self.sec.size // 32 * 3 - 1
        self.tmp = tempfile.mkdtemp(prefix="nvspec_outputs_")

    def addr(self, i):
        return 16 * i if self.arch == 86 else 32 * (i // 3) + 8 + 8 * (i % 3)

    def run(self, words):
        """[(text, {(group, register): mark})] per word (text None: not printed)."""
        assert len(words) <= self.cap
        d = bytearray(self.data)
        s = self.sec
        seq = list(words) + [EXIT[self.arch]]
        if self.arch == 86:
            seq += [EXIT[86]] * (s.size // 16 - len(seq))
            for i, w in enumerate(seq):
                d[s.offset + 16 * i:s.offset + 16 * i + 16] = w.to_bytes(16, "little")
        else:
            seq += [EXIT[50]] * (s.size // 32 * 3 - len(seq))
            for b in range(s.size // 32):
                for i, w in enumerate([CTRL50] + seq[3 * b:3 * b + 3]):
                    d[s.offset + 32 * b + 8 * i:s.offset + 32 * b + 8 * i + 8] = w.to_bytes(8, "little")
        path = os.path.join(self.tmp, "k.cubin")
        open(path, "wb").write(d)
        r = subprocess.run([NVDISASM, "-plr", path], capture_output=True, text=True)
        got = marks(r.stdout)
        self.failed = "Dataflow analysis disabled" in r.stderr or " error " in r.stderr
        return [got.get(self.addr(i), (None, {})) for i in range(len(words))]

    def run_all(self, words):
        out = []
        for a in range(0, len(words), self.cap):
            out += self.run_split(words[a:a + self.cap])
        return out

    def run_split(self, words):
        """`run`, in halves while nvdisasm gives no marks at all (a word it cannot analyse, such
        as an indirect branch, turns the analysis of the whole function off)."""
        got = self.run(words)
        if len(words) > 1 and self.failed:
            h = len(words) // 2
            return self.run_split(words[:h]) + self.run_split(words[h:])
        return got


_ADDR = re.compile(r"^\s*/\*([0-9a-f]{4})\*/\s+(.*)$")


def marks(out):
    """{address: (instruction text, {(group, register): mark})} of the first function in
    nvdisasm's -plr listing."""
    lines = out.splitlines()
    heads, names, res = None, None, {}
    for l in lines:
        if "// |" in l and "GPR" in l:
            if res:
                break
            names, heads = l, None
            continue
        if "// |" in l and "#" in l and names is not None and heads is None:
            heads = l
            continue
        m = _ADDR.match(l.split("//")[0])
        if m and heads is not None:
            text = m.group(2).strip().rstrip(";").strip()
            res[int(m.group(1), 16)] = (text, columns(names, heads, l))
    return res


def columns(names, heads, line):
    bars = [i for i, ch in enumerate(heads) if ch == "|"]
    out = {}
    for a, b in zip(bars, bars[1:]):
        group = names[a + 1:b].strip()
        for m in re.finditer(r"\d+", heads[a + 1:b]):
            # a number's mark sits under its last digit
            col = a + m.end()
            ch = line[col] if col < len(line) else " "
            if ch in "^vx":
                out[(group, int(m.group(0)))] = ch
    return out


def shape(text):
    """Operand count and register-free spelling, to see that a re-numbered word printed alike."""
    return re.sub(r"\b(U?R|U?P)(\d+|Z|T)\b", "#", re.sub(r"^@!?U?P[0-9T] ", "", text or ""))


def renumber(enc, types):
    """(re-numbered word, {field: (group, register)}, register-like fields)."""
    regs = [(n, rs, types[n]) for n, rs in enc["fields"] if types.get(n) in KINDS and n != "PRED"]
    w, used = enc["example"], {}
    # no guard: a guard predicate could be one of the numbers below
    for n, rs in enc["fields"]:
        if n in ("PRED", "PRED_NEG"):
            w = put(w, rs, 7 if n == "PRED" else 0)
    nxt = {g: start for g, start, _, _ in KINDS.values()}
    for n, rs, t in regs:
        g, _, step, _ = KINDS[t]
        w = put(w, rs, nxt[g])
        used[n] = (g, nxt[g])
        nxt[g] += step
    return w, used, regs


def unique_regs(enc, regs, text):
    """{field: (group, register)} for the example word's fields whose register is unique: no
    other field holds it and the text names it once (`ATOMS.CAS.64 R6, [0x448], R4, R6`: the
    second R6 is the pair after R4, not a field, and its use is not the destination's)."""
    vals = {}
    for n, rs, t in regs:
        v = get(enc["example"], rs)
        if v != KINDS[t][3]:
            vals.setdefault((KINDS[t][0], v), []).append(n)
    prefix = {"GPR": "R", "PRED": "P", "UGPR": "UR", "UPRED": "UP"}
    once = lambda g, v: len(re.findall(r"(?<![A-Z])%s%d\b" % (prefix[g], v), text or "")) == 1
    return {ns[0]: key for key, ns in vals.items() if len(ns) == 1 and once(*key)}


def access_of(used, m):
    return {n: m[key] for n, key in used.items() if key in m}


def probe_all(k, encs, types):
    """{encoding name: (example text, {field: mark})}."""
    plans = [renumber(e, types.get(e["name"], {})) for e in encs]
    both = k.run_all([w for e, p in zip(encs, plans) for w in (e["example"], p[0])])
    ex, rn = both[0::2], both[1::2]
    out, again = {}, []
    for e, p, (t0, m0), (t1, m1) in zip(encs, plans, ex, rn):
        if t1 is not None and shape(t1) == shape(t0):
            res = access_of(p[1], m1)
        else:
            res = access_of(unique_regs(e, p[2], t0), m0)
        if not res and p[2]:
            again.append((e, p, t0))
        out[e["name"]] = (t0, res)
    # a word after a branch or exit in a batch is left without marks: again, in batches of
    # those words, while that helps, then alone
    while again:
        both = k.run_all([w for e, p, _ in again for w in (e["example"], p[0])])
        ex, rn = both[0::2], both[1::2]
        left = []
        for (e, p, t0), (_, m0), (t1, m1) in zip(again, ex, rn):
            res = access_of(p[1], m1) if t1 is not None and shape(t1) == shape(t0) else access_of(unique_regs(e, p[2], t0), m0)
            out[e["name"]] = (t0, res)
            if not res:
                left.append((e, p, t0))
        if len(left) == len(again):
            for e, p, t0 in left:
                (t0, m0), (t1, m1) = k.run([e["example"], p[0]])
                res = access_of(p[1], m1) if t1 is not None and shape(t1) == shape(t0) else access_of(unique_regs(e, p[2], t0), m0)
                out[e["name"]] = (t0, res)
            break
        again = left
    return out


def rewrite(xml, access):
    ins = xml.index("<Instructions>")
    head, tail = xml[:ins], xml[ins:]

    def enc_sub(me):
        name = me.group(1)
        acc = access.get(name)
        if not acc:
            return me.group(0)

        def op_sub(mo):
            f = mo.group(5)
            c = acc.get(f)
            if c is None:
                return mo.group(0)
            inp = "true" if c in "vx" else "false"
            out = "true" if c in "^x" else "false"
            return '%sInput="%s" Output="%s"%s' % (mo.group(1), inp, out, mo.group(4))
        return _OPS.sub(op_sub, me.group(0))
    return head + _IENC.sub(enc_sub, tail)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, required=True, choices=(50, 86))
    ap.add_argument("--check", action="store_true", help="do not rewrite the spec (the forms whose written fields are not the named destinations are printed either way)")
    a = ap.parse_args()
    path = os.path.join(probe.ROOT, "isa-specs/nvidia/sm%d.xml" % a.arch)
    xml = open(path).read()
    types = operand_types(xml)
    k = Kernel(a.arch)
    encs = []
    for me in _ENC.finditer(xml):
        b = me.group(0)
        fields = [(fm.group(2), [(int(o), int(c)) for c, o in _RANGE.findall(fm.group(3))]) for fm in _FIELD.finditer(b)]
        encs.append({"name": _NAME.search(b).group(1), "example": int(_EXAMPLE.search(b).group(1), 16), "fields": fields})
    got = probe_all(k, encs, types)
    access = {}
    for e in encs:
        text, res = got[e["name"]]
        if res:
            access[e["name"]] = res
        outs = sorted(n for n, c in res.items() if c in "^x")
        named = sorted(n for n, _ in e["fields"] if n in ("RD", "PD", "URD", "UPD") and n in res)
        if outs != named:
            print("%s\t%s\t%s\t%s" % (e["name"], text, ",".join(outs), " ".join("%s%s" % (n, c) for n, c in sorted(res.items()))))
    new = rewrite(xml, access)
    if not a.check and new != xml:
        open(path, "w").write(new)


if __name__ == "__main__":
    main()
