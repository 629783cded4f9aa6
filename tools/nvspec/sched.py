"""python3 -m nvspec.sched --arch 50|86 : probe which scheduling (control) bits nvdisasm 12.8
accepts for each instruction form, and write them into isa-specs/nvidia/sm<arch>.xml as one
`<Scheduling>` element per Encoding (in place, idempotent, deterministic).

nvdisasm refuses a word whose scheduling bits the instruction cannot have (measured on mutated
corpus words, tools/nvspec/mutated.py): `Unrecognized operation for functional unit 'uC'` for a
write or read barrier on an instruction that sets or waits on none, and on sm86
`Opclass '...', undefined value 0x.. for table 'TABLES_opex_N'` for a stall / yield / reuse
combination outside the instruction's table.

sm50 (the slot's 21 control bits: stall 0-3, yield 4, write barrier 5-7, read barrier 8-10,
wait mask 11-16, reuse 17-20): each form's example is tried with write barrier 0, read barrier
0, and each reuse flag alone; stall, yield and the wait mask were never refused (all 16 stall
values, yield and each wait bit tried on two words of every mnemonic).

    <Scheduling WriteBarrier="TRUE|FALSE" ReadBarrier="TRUE|FALSE" Reuse="k..."/>

  Reuse lists the reuse flags (0-3) nvdisasm accepts.

sm86 (bits 105-108 stall, 109 yield, 110-112 write barrier, 113-115 read barrier, 116-121 wait
mask, 122-125 reuse): each form's example is tried with write barrier 0, read barrier 0, and
with the opex value 0x10 (yield with stall 0, in no table) whose error names the form's table.
Every table met is enumerated (all 512 values of reuse << 5 | yield << 4 | stall) on the first
form that names it, and checked on a second one. The fuzz-set words (fixtures/nvidia/fuzz/sm86.tsv)
are tried with 0x10 too: a form whose words name several tables (only `HADD2`: an `.F32`
operand makes it another opclass) takes the union of them.

    <Scheduling WriteBarrier=".." ReadBarrier=".." Opex="N"/>     (per Encoding)
    <OpexTable Index="N">hex of the 512-bit set, value v = bit v</OpexTable>   (in <OpexTables>)

A form whose example nvdisasm refuses with every probe keeps no element (the decoder then
checks nothing for it).
"""
import argparse
import json
import os
import re

from . import nvdis
from .mutated import Runner

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
_ENC = re.compile(r"      <Encoding>\n.*?      </Encoding>\n", re.S)
_NAME = re.compile(r"<EncodingName>(.*?)</EncodingName>")
_EXAMPLE = re.compile(r"<Description>example 0x([0-9a-f]+): ")
_TABLE = re.compile(r"table 'TABLES_opex_(\d+)'")
_SCHED = re.compile(r"        <Scheduling [^>]*/>\n")
SM86_SCHED = 0x7FFFFF << 105
SM86_NEUTRAL = 0x7E0 << 105  # stall 0, no yield, no barriers, no wait, no reuse


def examples(xml):
    """[(encoding name, example word)] in spec order."""
    out = []
    for m in _ENC.finditer(xml):
        e = _EXAMPLE.search(m.group(0))
        if e:
            out.append((_NAME.search(m.group(0)).group(1), int(e.group(1), 16)))
    return out


def run(arch, keys):
    r = Runner(arch)
    res = []
    for s in range(0, len(keys), 6000):
        res += r.run(keys[s:s + 6000], s)
    return res


def probe50(exs):
    fill = nvdis.SM50_FILL_CTRL & ~0x1FFFFF
    neutral = nvdis.SM50_FILL_CTRL & 0x1FFFFF
    variants = [neutral, neutral & ~(7 << 5), neutral & ~(7 << 8)] + [neutral | 1 << (17 + k) for k in range(4)]
    keys = [(w & (2**64 - 1), 0, fill | v) for _, w in exs for v in variants]
    res = run(50, keys)
    out = {}
    for i, (name, _) in enumerate(exs):
        ok = [res[i * len(variants) + j][0] for j in range(len(variants))]
        if not ok[0]:
            continue
        out[name] = {"wbar": ok[1], "rbar": ok[2], "reuse": [k for k in range(4) if ok[3 + k]]}
    return out


def opex_word(w, v):
    stall, y, reuse = v & 15, (v >> 4) & 1, v >> 5
    return (w & ~SM86_SCHED) | SM86_NEUTRAL & ~(0xF << 105) | stall << 105 | y << 109 | reuse << 122


def probe86(exs):
    neutral = [(w & ~SM86_SCHED) | SM86_NEUTRAL for _, w in exs]
    variants = [lambda w: w, lambda w: w & ~(7 << 110), lambda w: w & ~(7 << 113), lambda w: opex_word(w, 0x10)]
    keys = [(f(w),) for w in neutral for f in variants]
    res = run(86, keys)
    out, first = {}, {}
    for i, (name, _) in enumerate(exs):
        ok = [res[i * len(variants) + j] for j in range(len(variants))]
        if not ok[0][0]:
            continue
        m = _TABLE.search(ok[3][1]) if not ok[3][0] else None
        if not m:
            continue
        t = int(m.group(1))
        out[name] = {"wbar": ok[1][0], "rbar": ok[2][0], "opex": t}
        first.setdefault(t, []).append(neutral[i])
    tables = {}
    for t, ws in sorted(first.items()):
        reps = ws[:2]
        keys = [(opex_word(w, v),) for w in reps for v in range(512)]
        res = run(86, keys)
        sets = [sum(1 << v for v in range(512) if res[k * 512 + v][0]) for k in range(len(reps))]
        if len(set(sets)) != 1:
            raise SystemExit("opex table %d differs between two forms" % t)
        tables[t] = sets[0]
    return out, tables


def write_xml(path, arch, data, tables):
    xml = open(path).read()

    def enc(m):
        block = _SCHED.sub("", m.group(0))
        name = _NAME.search(block).group(1)
        d = data.get(name)
        if d is None:
            return block
        tf = lambda b: "TRUE" if b else "FALSE"
        attrs = 'WriteBarrier="%s" ReadBarrier="%s"' % (tf(d["wbar"]), tf(d["rbar"]))
        attrs += (' Reuse="%s"' % "".join(str(k) for k in d["reuse"])) if arch == 50 else (' Opex="%d"' % d["opex"])
        i = block.index("        <MicrocodeFormat>")
        return block[:i] + "        <Scheduling %s/>\n" % attrs + block[i:]

    xml = _ENC.sub(enc, xml)
    xml = re.sub(r"    <OpexTables>\n.*?    </OpexTables>\n", "", xml, flags=re.S)
    if tables:
        body = "".join('      <OpexTable Index="%d">%0128x</OpexTable>\n' % (t, s) for t, s in sorted(tables.items()))
        i = xml.index("    <Encodings>")
        xml = xml[:i] + "    <OpexTables>\n" + body + "    </OpexTables>\n" + xml[i:]
    with open(path, "w") as f:
        f.write(xml)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, choices=(50, 86), required=True)
    ap.add_argument("--json", help="also write the probe results here")
    a = ap.parse_args()
    path = os.path.join(ROOT, "isa-specs/nvidia/sm%d.xml" % a.arch)
    exs = examples(open(path).read())
    if a.arch == 50:
        data, tables = probe50(exs), {}
    else:
        data, tables = probe86(exs)
        # A form whose words name several tables (HADD2: an `.F32` operand is another opclass)
        # takes their union, a table of its own unless it equals one met already.
        for name, ts in sorted(fuzz_tables86(open(path).read(), data).items()):
            ts = ts | {data[name]["opex"]}
            if len(ts) < 2 or any(t not in tables for t in ts):
                continue
            u = 0
            for t in ts:
                u |= tables[t]
            t = next((k for k, v in sorted(tables.items()) if v == u), None)
            if t is None:
                t = max(tables) + 1
                tables[t] = u
            data[name]["opex"] = t
    if a.json:
        json.dump({"forms": data, "tables": {str(k): "%x" % v for k, v in tables.items()}}, open(a.json, "w"),
                  indent=0, sort_keys=True)
    write_xml(path, a.arch, data, tables)
    print("sm%d: %d forms, %d with scheduling data, %d opex tables" % (a.arch, len(exs), len(data), len(tables)))



_MASK = re.compile(r'<EncodingIdentifierMask Radix="2">([01]+)</EncodingIdentifierMask>')
_IDENT = re.compile(r'<EncodingIdentifier Radix="2">([01]+)</EncodingIdentifier>')


def forms_of(xml, words):
    """The form (encoding name) of each word: the matching form with the most mask bits."""
    forms = []
    for m in _ENC.finditer(xml):
        b = m.group(0)
        mask, ident = int(_MASK.search(b).group(1), 2), int(_IDENT.search(b).group(1), 2)
        forms.append((-bin(mask).count("1"), _NAME.search(b).group(1), mask, ident & mask))
    forms.sort()
    out = []
    for w in words:
        out.append(next((n for _, n, m, v in forms if w & m == v), None))
    return out


def fuzz_tables86(xml, data):
    """Every opex table the fuzz-set words of each form name (sm86), beside the example's."""
    words = []
    with open(os.path.join(ROOT, "fixtures/nvidia/fuzz/sm86.tsv")) as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split("\t")[0].split())
            words.append(lo | hi << 64)
    names = forms_of(xml, [w & ~(3 << 102) for w in words])
    keys = [(opex_word(w & ~(3 << 102), 0x10),) for w in words]
    res = run(86, keys)
    seen = {}
    for n, (ok, msg) in zip(names, res):
        m = _TABLE.search(msg) if not ok else None
        if n in data and m:
            seen.setdefault(n, set()).add(int(m.group(1)))
    return seen


if __name__ == "__main__":
    main()
