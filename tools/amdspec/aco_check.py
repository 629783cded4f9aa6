#!/usr/bin/env python3
"""Cross-check every opcode of the derived specs against Mesa ACO's opcode table.

    python3 tools/amdspec/aco_check.py [--csv /work/shared/facts/amd/aco_opcodes_all_gens.csv]
                                       [--readme isa-specs/README.md]

Matches on (format, opcode); names differ (ACO uses GFX9-style names), so a name difference at
the same opcode is reported as a rename, not as a mismatch of numbers.  The result table replaces
the text between the ACO-CROSSCHECK markers of the README (and is printed).
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# ACO format -> our encodings, per generation
FMT = {
    "gfx10": {"SOP1": ["ENC_SOP1"], "SOP2": ["ENC_SOP2"], "SOPK": ["ENC_SOPK"],
              "SOPC": ["ENC_SOPC"], "SOPP": ["ENC_SOPP"], "SMEM": ["ENC_SMEM"],
              "VOP1": ["ENC_VOP1"], "VOP2": ["ENC_VOP2"], "VOPC": ["ENC_VOPC"],
              "VOP3": ["ENC_VOP3", "ENC_VOP3B"], "VOP3P": ["ENC_VOP3P"], "DS": ["ENC_DS"],
              "MUBUF": ["ENC_MUBUF"], "MTBUF": ["ENC_MTBUF"], "MIMG": ["ENC_MIMG"],
              "FLAT": ["ENC_FLAT"], "GLOBAL": ["ENC_FLAT_GLBL"],
              "SCRATCH": ["ENC_FLAT_SCRATCH"], "EXP": ["ENC_EXP"], "VINTRP": ["ENC_VINTRP"]},
    "gfx12": {"SOP1": ["ENC_SOP1"], "SOP2": ["ENC_SOP2"], "SOPK": ["ENC_SOPK"],
              "SOPC": ["ENC_SOPC"], "SOPP": ["ENC_SOPP"], "SMEM": ["ENC_SMEM"],
              "VOP1": ["ENC_VOP1"], "VOP2": ["ENC_VOP2"], "VOPC": ["ENC_VOPC"],
              "VOP3": ["ENC_VOP3", "ENC_VOP3SD"], "VOP3P": ["ENC_VOP3P"], "DS": ["ENC_VDS"],
              "MUBUF": ["ENC_VBUFFER"], "MTBUF": ["ENC_VBUFFER"],
              "MIMG": ["ENC_VIMAGE", "ENC_VSAMPLE"], "FLAT": ["ENC_VFLAT"],
              "GLOBAL": ["ENC_VGLOBAL"], "SCRATCH": ["ENC_VSCRATCH"], "EXP": ["ENC_VEXPORT"],
              "VINTERP_INREG": ["ENC_VINTERP"], "LDSDIR": ["ENC_VDSDIR"], "VOPD": ["ENC_VOPD"]},
}
SPECS = {"gfx10": ("gfx1013", "isa-specs/amd/gfx10.xml"),
         "gfx12": ("gfx1201", "isa-specs/amd/gfx12.xml")}

# ACO rows whose generation number is inherited in ACO's table although ACO never emits them
ACO_INHERITED = {"gfx12": {"s_waitcnt", "s_singleuse_vdst", "v_cmp_tru_u32", "v_cmp_tru_u64",
                           "v_cmpx_tru_u32", "v_cmpx_tru_u64"}}
GFX103_ONLY = re.compile(r"(_csub|addtid|_g16|fma_legacy|fmac_legacy|v_dot2c|v_dot4c|v_dot8c|"
                         r"s_ttracedata_imm)")


def load_spec(path):
    t = ET.parse(path)
    out = {}
    for ins in t.iter("Instruction"):
        name = ins.find("InstructionName").text
        for e in ins.iter("InstructionEncoding"):
            out.setdefault((e.find("EncodingName").text, int(e.find("Opcode").text)), name)
    return out


def norm(n):
    n = n.lower()
    for suf in ("_e32", "_e64"):
        if n.endswith(suf):
            n = n[:-len(suf)]
    return n


def check(gen, csv_path):
    mcpu, spec_path = SPECS[gen]
    spec = load_spec(os.path.join(ROOT, spec_path))
    rows = list(csv.DictReader(open(csv_path)))
    matched, renames, missing = [], [], []
    seen = set()
    vopd_x = {op >> 5 for (e, op) in spec if e == "ENC_VOPD"}
    vopd_y = {op & 31 for (e, op) in spec if e == "ENC_VOPD"}
    vopd_names = {}
    for (e, op), n in spec.items():
        if e == "ENC_VOPD":
            x, y = n.split("::")
            vopd_names[("X", op >> 5)] = x
            vopd_names[("Y", op & 31)] = y
    for r in rows:
        fmt, name, op = r["format"], r["name"], int(r[gen])
        if op < 0 or fmt not in FMT[gen]:
            continue
        if fmt == "VOPD":
            ok = op in vopd_x or op in vopd_y
            ln = vopd_names.get(("X", op)) or vopd_names.get(("Y", op))
            if ok:
                for side in ("X", "Y"):
                    if (side, op) in vopd_names:
                        seen.add(("VOPD" + side, op))
                (matched if norm(ln) == norm(name) else renames).append(
                    (fmt, op, name, ln, "ENC_VOPD component"))
            else:
                missing.append((fmt, op, name))
            continue
        found = None
        ops = [op]
        if gen == "gfx12" and fmt == "MTBUF":
            ops = [op + 128, op]
        for o in ops:
            for e in FMT[gen][fmt]:
                if (e, o) in spec:
                    found = (e, o, spec[(e, o)])
                    break
            if found:
                break
        if not found:
            missing.append((fmt, op, name))
            continue
        seen.add(found[:2])
        if norm(found[2]) == norm(name):
            matched.append((fmt, op, name, found[2], found[0]))
        else:
            renames.append((fmt, op, name, found[2], found[0]))
    # instructions llvm-mc decodes that ACO does not list (same-format encodings only)
    basic = set(e for v in FMT[gen].values() for e in v) - {"ENC_VOPD"}
    extra = sorted((e, op, n) for (e, op), n in spec.items() if e in basic and (e, op) not in seen)
    # VOP3 promotions of VOP1/2/C are not ACO rows: drop those from "extra"
    promo = set()
    for (e, op), n in spec.items():
        if e in ("ENC_VOP1", "ENC_VOP2", "ENC_VOPC"):
            promo.add(n)
    extra = [x for x in extra if not (x[0] in ("ENC_VOP3", "ENC_VOP3B", "ENC_VOP3SD")
                                      and x[2] in promo)]
    return mcpu, matched, renames, missing, extra


_ASM_CACHE = {}


def assembler_verdict(mcpu, name):
    """Ask llvm-mc's assembler about the bare mnemonic: 'unsupported' (known, not on this GPU),
    'unknown' (no such mnemonic) or 'known' (mnemonic exists for this GPU)."""
    key = (mcpu, name)
    if key not in _ASM_CACHE:
        p = subprocess.run(["llvm-mc-22", "-arch=amdgcn", "-mcpu=" + mcpu], input=name + "\n",
                           capture_output=True, text=True)
        if "not supported on this GPU" in p.stderr:
            v = "unsupported"
        elif "invalid instruction" in p.stderr:
            v = "unknown"
        else:
            v = "known"
        _ASM_CACHE[key] = v
    return _ASM_CACHE[key]


def resolution_missing(gen, name):
    mcpu = SPECS[gen][0]
    if name in ACO_INHERITED.get(gen, ()):
        return "ACO inherited, unverified (ACO never emits it on %s)" % gen
    v = assembler_verdict(mcpu, name)
    if gen == "gfx10" and GFX103_ONLY.search(name) and v != "known":
        return "not in gfx1013 (GFX10.3 only)"
    if v == "unsupported":
        return "not in %s (llvm-mc: instruction not supported on this GPU)" % mcpu
    if v == "unknown":
        return "ACO-only name; llvm-mc has no such mnemonic and decodes nothing at this opcode"
    return "mnemonic known to llvm-mc for %s but no decode at this opcode; unverified" % mcpu


def render(gen, mcpu, matched, renames, missing, extra):
    L = []
    L.append("### %s (%s)" % (gen, mcpu))
    L.append("")
    L.append("ACO rows with a %s opcode: %d; same opcode and same name: %d; same opcode, other "
             "name (LLVM rename): %d; not decoded by llvm-mc: %d. Instructions llvm-mc decodes "
             "that ACO lacks: %d." % (gen, len(matched) + len(renames) + len(missing),
                                     len(matched), len(renames), len(missing), len(extra)))
    L.append("")
    cats = {}
    for f, op, n in missing:
        cats.setdefault(resolution_missing(gen, n), []).append((f, op, n))
    L.append("| category | count |")
    L.append("|---|---|")
    L.append("| LLVM rename (same format and opcode) | %d |" % len(renames))
    for c in sorted(cats):
        L.append("| %s | %d |" % (c, len(cats[c])))
    L.append("| decoded by llvm-mc, absent from ACO | %d |" % len(extra))
    L.append("")
    L.append("<details><summary>every disagreement (%d)</summary>" %
             (len(renames) + len(missing) + len(extra)))
    L.append("")
    L.append("| ACO format | opcode | ACO name | spec (llvm-mc) | resolution |")
    L.append("|---|---|---|---|---|")
    for f, op, n, ln, e in sorted(renames):
        L.append("| %s | %d | %s | %s (%s) | LLVM rename |" % (f, op, n, ln, e))
    for f, op, n in sorted(missing):
        L.append("| %s | %d | %s | - | %s |" % (f, op, n, resolution_missing(gen, n)))
    for e, op, n in extra:
        L.append("| - | %d | - | %s (%s) | in llvm-mc, not in ACO's table |" % (op, n, e))
    L.append("")
    L.append("</details>")
    L.append("")
    return L


def render_counts():
    L = []
    for gen in ("gfx10", "gfx12"):
        mcpu, path = SPECS[gen]
        t = ET.parse(os.path.join(ROOT, path))
        encs = [(e.find("EncodingName").text, e.find("BitCount").text)
                for e in t.iter("Encoding")]
        cnt = {}
        for ins in t.iter("Instruction"):
            for e in ins.iter("InstructionEncoding"):
                k = e.find("EncodingName").text
                cnt[k] = cnt.get(k, 0) + 1
        n_ins = len(list(t.iter("Instruction")))
        L.append("**%s** (`%s`, %s): %d encodings, %d instructions, %d instruction encodings."
                 % (gen, mcpu, path, len(encs), n_ins, sum(cnt.values())))
        L.append("")
        L.append("| encoding | bits | instructions |")
        L.append("|---|---|---|")
        for n, b in encs:
            L.append("| %s | %s | %d |" % (n, b, cnt.get(n, 0)))
        L.append("")
    return "\n".join(L)


def replace_between(s, tag, text):
    b, e = "<!-- %s:BEGIN -->" % tag, "<!-- %s:END -->" % tag
    if b in s and e in s:
        s = s[:s.index(b) + len(b)] + "\n" + text + "\n" + s[s.index(e):]
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--csv", default="/work/shared/facts/amd/aco_opcodes_all_gens.csv")
    ap.add_argument("--readme", default=os.path.join(ROOT, "isa-specs/README.md"))
    args = ap.parse_args()
    out = []
    for gen in ("gfx10", "gfx12"):
        out += render(gen, *check(gen, args.csv))
    text = "\n".join(out)
    print(text)
    if args.readme and os.path.exists(args.readme):
        s = open(args.readme).read()
        s = replace_between(s, "ACO-CROSSCHECK", text)
        s = replace_between(s, "COUNTS", render_counts())
        open(args.readme, "w").write(s)


if __name__ == "__main__":
    main()
