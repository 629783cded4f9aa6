"""python3 -m nvspec.extra_forms --arch 86 : forms for accepted words that no form of
isa-specs/nvidia/sm<arch>.xml matches, appended to the XML in place (deterministic).

The words are the ones nvdisasm 12.8 prints in the mutated set (fixtures/nvidia/mutated/
sm<arch>.tsv, `nvspec.mutated`: corpus words with one to three bits flipped), the fuzz sets
(fixtures/nvidia/fuzz/sm<arch>*.tsv: random words, sm50 `JMP CC.RLE`, `SYNC CC.*`, `S2R` with
stray bits; sm86 `BMOV`, `DEPBAR`, `TLD` ...) and `--words` files (one word a line, sm86: low and
high halves; `#` starts a comment): values of structural bits that no example of the main run
had. Each word (scheduling bits neutral, the
`?PM` bits 102-103 clear) no form matches becomes an example and is analysed like the main
run's (bit classification, modifier enumeration, reuse flags; `probe.analyse`), followed by a
closure of its own (accepted words one structural bit away from a new example that no form
matches, `--closure-rounds`). Examples with nvdisasm's placeholders (`???2`, `INVALID3`) are
kept here: the words themselves print them. The new forms are named after the existing ones
(`OUT_324_1`...), appended after all the others (so the forms before stay as they were) and
then widened (`nvspec.widen`). Words the forms already match are left alone, so a second run
adds nothing.
"""
import argparse
import os
import re
import tempfile

from . import probe, model, emit, widen
from .oracle import Oracle
from .__main__ import finish_forms

# sm50 families whose words no form matches the decoder gives the family's channel-0 form (the
# printer reads the channel from the bits): a form of their own would print them otherwise
FAMILY_FALLBACK = {50: {"TEXS", "TLDS"}, 86: set()}
MUTATED = os.path.join(probe.ROOT, "fixtures", "nvidia", "mutated", "sm%d.tsv")
FUZZ = os.path.join(probe.ROOT, "fixtures", "nvidia", "fuzz")
_TYPE_BLOCK = re.compile(r"      <OperandType>\n        <OperandTypeName>(.*?)</OperandTypeName>\n.*?      </OperandType>\n", re.S)
_PDV = re.compile(r"<Name>(.*?)</Name><Value>(\d+)</Value>")
_INS = re.compile(r"      <Instruction>\n        <InstructionName>(.*?)</InstructionName>\n.*?      </Instruction>\n", re.S)
_IENCS = re.compile(r"        <InstructionEncodings>\n(.*?)        </InstructionEncodings>\n", re.S)


def mutated_words(arch):
    """Words of the mutated set that nvdisasm prints."""
    out = []
    for line in open(MUTATED % arch):
        if line.startswith("#"):
            continue
        c = line.rstrip("\n").split("\t")
        if c[3] != "ok":
            continue
        lo, hi = (int(x, 16) for x in c[1].split())
        out.append(lo | hi << 64 if arch == 86 else hi)
    return out


def fuzz_words(arch):
    """Words of the fuzz sets (fixtures/nvidia/fuzz/sm<arch>*.tsv: `nvspec` form fuzz and
    `nvspec.random_words`), all printed by nvdisasm."""
    out = []
    for name in sorted(os.listdir(FUZZ)):
        if not (name.startswith("sm%d" % arch) and name.endswith(".tsv")):
            continue
        for line in open(os.path.join(FUZZ, name)):
            a, b = (int(x, 16) for x in line.split("\t", 1)[0].split())
            out.append(a | b << 64 if arch == 86 else b)
    return out


def file_words(path, arch):
    out = []
    for line in open(path):
        v = [int(x, 16) for x in line.split("#", 1)[0].split()]
        if v:
            out.append(v[0] | v[1] << 64 if arch == 86 else v[0])
    return out


def neutral(arch, w):
    if arch != 86:
        return w
    return (w & ~sum(1 << b for b in probe.CTRL86) & ~(3 << 102)) | (0x7E0 << 105)


def existing_names(xml):
    names = {}
    for nm in widen._NAME.findall(xml[:xml.index("<Instructions>")]):
        m = re.match(r"^(.*_[0-9a-f]{3,4})(?:_(\d+))?$", nm)
        if m:
            names[m.group(1)] = max(names.get(m.group(1), 0), int(m.group(2) or 0) + 1)
    return names


def types_of(xml):
    out = {}
    for m in _TYPE_BLOCK.finditer(xml):
        out[m.group(1)] = {int(v): n for n, v in _PDV.findall(m.group(0))}
    return out


def splice(xml, new_xml):
    """Append the new file's Encodings, InstructionEncodings and OperandTypes to `xml`; a new
    operand type whose name is taken with other values is renamed."""
    old_types, new_types = types_of(xml), types_of(new_xml)
    rename, taken = {}, set(old_types) | set(new_types)
    for tn, vals in sorted(new_types.items()):
        if tn in old_types and old_types[tn] != vals:
            base, i = re.sub(r"_\d+$", "", tn), 2
            same = [n for n, v in sorted(old_types.items()) if v == vals and re.sub(r"_\d+$", "", n) == base]
            if same:
                rename[tn] = same[0]
                continue
            while "%s_%d" % (base, i) in taken:
                i += 1
            rename[tn] = "%s_%d" % (base, i)
            taken.add(rename[tn])
    encs = new_xml[new_xml.index("    <Encodings>\n") + 16:new_xml.index("    </Encodings>\n")]
    i = xml.index("    </Encodings>\n")
    xml = xml[:i] + encs + xml[i:]
    for m in _INS.finditer(new_xml):
        base, blocks = m.group(1), _IENCS.search(m.group(0)).group(1)
        blocks = re.sub(r"<OperandType>(.*?)</OperandType>",
                        lambda t: "<OperandType>%s</OperandType>" % rename.get(t.group(1), t.group(1)), blocks)
        old = [x for x in _INS.finditer(xml) if x.group(1) == base]
        if old:
            end = old[0].start() + old[0].group(0).index("        </InstructionEncodings>\n")
            xml = xml[:end] + blocks + xml[end:]
        else:
            later = [x for x in _INS.finditer(xml) if x.group(1) > base]
            at = later[0].start() if later else xml.index("    </Instructions>\n")
            xml = xml[:at] + m.group(0) + xml[at:]
    added = {}
    for tn, vals in new_types.items():
        nm = rename.get(tn, tn)
        if nm not in old_types:
            added[nm] = vals
    if added:
        blocks = {m.group(1): m.group(0) for m in _TYPE_BLOCK.finditer(xml)}
        for tn, vals in added.items():
            s = "      <OperandType>\n        <OperandTypeName>%s</OperandTypeName>\n" % tn
            if vals:
                s += "        <OperandPredefinedValues>\n"
                for v in sorted(vals):
                    s += "          <PredefinedValue><Name>%s</Name><Value>%d</Value></PredefinedValue>\n" % (
                        emit.escape(vals[v]), v)
                s += "        </OperandPredefinedValues>\n"
            blocks[tn] = s + "      </OperandType>\n"
        a = xml.index("    <OperandTypes>\n") + len("    <OperandTypes>\n")
        b = xml.index("    </OperandTypes>\n")
        xml = xml[:a] + "".join(blocks[k] for k in sorted(blocks)) + xml[b:]
    return xml


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, choices=(50, 86), required=True)
    ap.add_argument("--words", action="append", default=[], help="more word files")
    ap.add_argument("--closure-rounds", type=int, default=1)
    ap.add_argument("--seed-rounds", type=int, default=4)
    a = ap.parse_args()
    arch = a.arch
    path = os.path.join(probe.ROOT, "isa-specs", "nvidia", "sm%d.xml" % arch)
    xml = open(path).read()
    orc = Oracle(arch)
    index = probe.FormIndex(arch)
    for e in widen.parse_encodings(xml, arch):
        index.add({"mask_bits": [b for b in range(probe.NBITS[arch]) if e["mask"] >> b & 1], "example": e["ident"]})
    ws = mutated_words(arch) + fuzz_words(arch)
    for p in a.words:
        ws += file_words(p, arch)
    words = list(dict.fromkeys(neutral(arch, w) for w in ws))
    pool = [w for w in words if not index.matches(w)]
    texts = dict(zip(pool, orc.disasm(pool)))
    probe.log("extra forms sm%d: %d words no form matches" % (arch, len(pool)))
    forms = []
    for rnd in range(a.seed_rounds):
        # one example per operand shape and round; the words the new forms still miss
        # (other values of their structural bits) are the next round's
        new_ex, sigs = [], set()
        for w in pool:
            t = texts[w]
            if not t or index.matches(w) or probe.base_of(t) in FAMILY_FALLBACK[arch]:
                continue
            sg = probe.signature(arch, w, t)
            if sg not in sigs:
                sigs.add(sg)
                new_ex.append((w, t))
        if not new_ex:
            break
        fresh = [f for f in probe.analyse(arch, orc, new_ex) if f["mnemonic"] and index.add(f)]
        forms += fresh
        for _ in range(a.closure_rounds):
            ex = probe.closure_examples(arch, index, probe.struct_flips(fresh))
            if not ex:
                break
            fresh = [f for f in probe.analyse(arch, orc, ex) if f["mnemonic"] and index.add(f)]
            forms += fresh
        probe.log("extra forms sm%d: round %d: %d examples, %d new forms in all" % (arch, rnd + 1, len(new_ex), len(forms)))
    probe.log("extra forms sm%d: %d new forms" % (arch, len(forms)))
    if not forms:
        return
    finish_forms(arch, orc, forms, existing_names(xml))
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "new.xml")
        emit.emit(arch, forms, tmp, "")
        new_xml = open(tmp).read()
    xml = splice(xml, new_xml)
    with open(path, "w") as f:
        f.write(xml)
    n = widen.widen(arch, path, orc)
    probe.log("extra forms sm%d: %d widenings" % (arch, n))


if __name__ == "__main__":
    main()
