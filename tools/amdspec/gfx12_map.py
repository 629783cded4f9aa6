#!/usr/bin/env python3
"""Write crates/analysis/src/gfx12_map_table.rs: the gfx1013 -> gfx1201 opcode map, one row per
gfx1013 (instruction, encoding) pair of isa-specs/amd/gfx10.xml, classified as

- reencode:    gfx1201 has the instruction under the same name; only the encoding changes
               (possibly not at all);
- rename:      gfx1201 has the same operation under another LLVM mnemonic;
- sequence:    gfx1201 lacks it; an expansion into gfx1201 instructions computes it (the reason
               names the expansion);
- unsupported: gfx1201 lacks it and no expansion is known (the reason says why).

The gfx1201 counterpart is found through Mesa ACO's opcode table
(../shared/facts/amd/aco_opcodes_all_gens.csv, matched on (format, gfx10 opcode)) and through the
instruction name in isa-specs/amd/gfx12.xml. Where the two disagree, the generator prints the
disagreement and the row's reason records it; it never drops it silently.

    python3 tools/amdspec/gfx12_map.py [--check] [--csv PATH]
"""
import argparse
import csv
import os
import re
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from aco_check import FMT, GFX103_ONLY  # noqa: E402

OUT = os.path.join(ROOT, "crates/analysis/src/gfx12_map_table.rs")
CSV = os.path.join(ROOT, "..", "shared", "facts", "amd", "aco_opcodes_all_gens.csv")

# gfx10 encoding -> ACO format
ACO_FMT = {e: f for f, es in FMT["gfx10"].items() for e in es}
for _short in ("VOP1", "VOP2", "VOPC"):
    for _sfx in ("_DPP16", "_DPP8", "_SDWA"):
        ACO_FMT[f"ENC_{_short}{_sfx}"] = _short

# gfx10 encoding -> the gfx12 encodings tried in order for the same form
ENC12 = {
    "ENC_SOP1": ["ENC_SOP1"], "ENC_SOP2": ["ENC_SOP2"], "ENC_SOPC": ["ENC_SOPC"],
    "ENC_SOPK": ["ENC_SOPK"], "ENC_SOPP": ["ENC_SOPP"], "ENC_SMEM": ["ENC_SMEM"],
    "ENC_VOP1": ["ENC_VOP1", "ENC_VOP3"], "ENC_VOP2": ["ENC_VOP2", "ENC_VOP3", "ENC_VOP3SD"],
    "ENC_VOPC": ["ENC_VOPC", "ENC_VOP3"],
    "ENC_VOP1_DPP16": ["ENC_VOP1_DPP16", "ENC_VOP3_DPP16"],
    "ENC_VOP1_DPP8": ["ENC_VOP1_DPP8", "ENC_VOP3_DPP8"],
    "ENC_VOP2_DPP16": ["ENC_VOP2_DPP16", "ENC_VOP3_DPP16", "ENC_VOP3SD_DPP16"],
    "ENC_VOP2_DPP8": ["ENC_VOP2_DPP8", "ENC_VOP3_DPP8", "ENC_VOP3SD_DPP8"],
    "ENC_VOP3": ["ENC_VOP3", "ENC_VOP3SD"], "ENC_VOP3B": ["ENC_VOP3SD", "ENC_VOP3"],
    "ENC_VOP3P": ["ENC_VOP3P"], "ENC_DS": ["ENC_VDS"],
    "ENC_MUBUF": ["ENC_VBUFFER"], "ENC_MTBUF": ["ENC_VBUFFER"],
    "ENC_MIMG": ["ENC_VIMAGE", "ENC_VSAMPLE"], "ENC_FLAT": ["ENC_VFLAT"],
    "ENC_FLAT_GLBL": ["ENC_VGLOBAL"], "ENC_FLAT_SCRATCH": ["ENC_VSCRATCH"],
    "ENC_EXP": ["ENC_VEXPORT"],
}

# gfx1013 instructions gfx1201 lacks, with the expansion that computes them (Build item 2).
SEQUENCES = [
    (r"^S_CMPK_", "s_cmpk_* is gone: s_cmp_* with the 16-bit constant as a literal"),
    (r"^S_(STORE|SCRATCH_STORE|BUFFER_STORE)_", "SMEM stores are gone: a global/buffer store of the SGPRs through VGPRs"),
    (r"^S_(BUFFER_)?ATOMIC_", "SMEM atomics are gone: a global/buffer atomic through VGPRs with readfirstlane of the result"),
    (r"^S_(SCRATCH_LOAD)_", "scalar scratch loads are gone: a scratch load through VGPRs and readfirstlane"),
    (r"^DS_.*_SRC2_", "ds *_src2_* is gone: ds read of the src2 address, the op, ds write"),
    (r"^V_MAC_F32$", "v_mac_f32 is gone: v_mad-equivalent (v_mul_f32 then v_add_f32, unfused) into the accumulator"),
    (r"^V_MAC_F16$", "v_mac_f16 is gone: v_mul_f16 then v_add_f16 (unfused) into the accumulator"),
    (r"^V_MAD_F32$", "v_mad_f32 is gone: v_mul_f32 then v_add_f32 (unfused, denormals flushed as v_mad_f32 does)"),
    (r"^V_MAD_F16$", "v_mad_f16 is gone: v_mul_f16 then v_add_f16 (unfused)"),
    (r"^V_MAD(AK|MK)_F(32|16)$", "v_madak/v_madmk are gone: v_mul then v_add with the literal (unfused)"),
    (r"^V_MA[CD]_LEGACY_F32$", "gfx10.1 unfused mad_legacy: v_mul_legacy_f32 (v_mul_dx9_zero_f32) then v_add_f32"),
    (r"^V_CMPX?_(T|F)_", "constant-result compares are gone: write the constant mask (and EXEC for v_cmpx)"),
    (r"^V_CMPX?_(F|LT|EQ|LE|GT|LG|GE|O|U|NGE|NLG|NGT|NLE|NEQ|NLT|TRU)_F(16|32|64)$",
     "removed VOPC form: the same compare in another encoding"),
    (r"^V_CMPX?_CLASS_", "removed VOPC form: v_cmp_class in another encoding"),
    (r"^V_DOT", "removed dot op: an unpacked multiply-add sequence"),
    (r"^V_(S|C)?(MUL_LO_I32)", "v_mul_lo_i32 is gone: v_mul_lo_u32 gives the same low bits"),
    (r"^V_INTERP_", "VINTRP is gone: ds_param_load (LDS parameter load) and v_interp_p10/p2"),
    (r"^V_MOVREL|^S_MOVREL", "gfx12 keeps movrel; listed when ACO has no gfx12 row"),
]
# Classified before any lookup: same-named gfx1201 instructions that mean something else, and
# instructions the translator drops or replaces whatever gfx1201 has.
FORCED = [
    (r"^S_WAITCNT", "dropped: gfx1201's split counters are recomputed (gfx12::waits)"),
    (r"^V_INTERP_", "VINTRP is gone (gfx1201's v_interp_* read VGPRs): ds_param_load then v_interp_p10/p2"),
    (r"^S_BARRIER$", "s_barrier is gone: s_barrier_signal -1 then s_barrier_wait -1"),
]
# gfx1013 VOP3 rows ACO gives no gfx12 opcode although gfx1201 has the operation in a row of its own
# (ACO's gfx12-only VOP2 rows v_min_f64 / v_max_f64, opcodes 13 / 14).
NAME_RENAMES = {"V_MIN_F64": "V_MIN_NUM_F64", "V_MAX_F64": "V_MAX_NUM_F64"}
# ACO row targets whose meaning differs from the gfx10 instruction at the same row.
MEANING_CHANGED = {
    # gfx10.3's fused fma_legacy took gfx10.1's unfused mad_legacy opcode
    "V_FMA_DX9_ZERO_F32": "gfx1201's op is fused; gfx1013's mad_legacy rounds the product",
    "V_FMAC_DX9_ZERO_F32": "gfx1201's op is fused; gfx1013's mac_legacy rounds the product",
}


def load(path):
    """name -> {encoding: opcode}; (encoding, opcode) -> [names]"""
    by_name, by_op = {}, {}
    for ins in ET.parse(path).iter("Instruction"):
        name = ins.find("InstructionName").text
        for e in ins.iter("InstructionEncoding"):
            en, op = e.find("EncodingName").text, int(e.find("Opcode").text)
            by_name.setdefault(name, {}).setdefault(en, op)
            by_op.setdefault((en, op), []).append(name)
    return by_name, by_op


def aco_rows(csv_path):
    m = {}
    for r in csv.DictReader(open(csv_path)):
        o10 = int(r["gfx10"])
        if o10 >= 0:
            m.setdefault((r["format"], o10), (r["name"], int(r["gfx12"])))
    return m


def aco_key(name, enc, op, n10):
    """(ACO format, opcode) of a gfx10 form: VOP3/DPP/SDWA forms of VOP1/2/C use the short row."""
    fmt = ACO_FMT.get(enc)
    if fmt is None:
        return None
    if enc in ("ENC_VOP3", "ENC_VOP3B") or fmt in ("VOP1", "VOP2", "VOPC"):
        for short in ("ENC_VOP1", "ENC_VOP2", "ENC_VOPC"):
            if short in n10[name]:
                return (short[4:], n10[name][short])
    return (fmt, op)


def pick12(by_op12, fmt, op12):
    for e in FMT["gfx12"].get(fmt, []):
        for n in by_op12.get((e, op12), []):
            if fmt == "MUBUF" and not n.startswith("BUFFER_"):
                continue
            if fmt == "MTBUF" and not n.startswith("TBUFFER_"):
                continue
            return n
    return None


def classify(name, enc, op, n10, n12, by_op12, aco, notes):
    if enc.endswith("_SDWA"):
        return ("sequence", "", "", "SDWA is gone: operand selects become v_bfe/v_perm/op_sel around the op")
    for pat, why in FORCED:
        if re.search(pat, name):
            return ("sequence", "", "", why)
    key = aco_key(name, enc, op, n10)
    row = aco.get(key) if key else None
    aco12 = None
    if row and row[1] >= 0 and not (row[0] in ("s_waitcnt", "s_singleuse_vdst", "v_cmp_tru_u32", "v_cmp_tru_u64",
                                               "v_cmpx_tru_u32", "v_cmpx_tru_u64")):
        aco12 = pick12(by_op12, key[0], row[1])
        if aco12 is None and key[0] == "MTBUF":
            aco12 = name.replace("_FORMAT_D16_", "_D16_FORMAT_") if name.replace("_FORMAT_D16_", "_D16_FORMAT_") in n12 else None
    same = name if name in n12 else NAME_RENAMES.get(name)
    target = aco12 or same
    if aco12 and same and aco12 != same:
        notes.append(f"disagree: {name} {enc}: ACO row {key} gives {aco12}, gfx12 has the name {same}; using ACO's")
    if target in MEANING_CHANGED:
        return ("sequence", "", "", MEANING_CHANGED[target])
    if target is None:
        for pat, why in SEQUENCES:
            if re.search(pat, name):
                return ("sequence", "", "", why)
        if GFX103_ONLY.search(name.lower()):
            why = "gfx10.3-only in ACO; no gfx1201 counterpart"
        elif row is None:
            why = "not in ACO's table and not in gfx1201's spec"
        else:
            why = f"ACO lists no gfx12 opcode ({row[0]}) and gfx1201's spec has no such name"
        if enc == "ENC_VINTRP" or enc == "ENC_EXP":
            why += "; needs the gfx12 parameter/export model"
        return ("unsupported", "", "", why)
    for e12 in ENC12.get(enc, []):
        if e12 in n12[target]:
            kind = "reencode" if target == name else "rename"
            why = ""
            if aco12 is None:
                notes.append(f"name only: {name} {enc}: no ACO gfx12 row, gfx12 spec has the name")
                why = "matched by name (ACO has no gfx12 row)"
            if target.startswith(("V_MIN_NUM_", "V_MAX_NUM_", "V_PK_MIN_NUM_", "V_PK_MAX_NUM_", "V_MIN3_NUM_",
                                  "V_MAX3_NUM_", "V_MED3_NUM_")):
                why = "IEEE 754-2019 minimumNumber/maximumNumber: differs from gfx1013 only for a signalling NaN operand"
            if name.startswith("DS_CMPST_"):
                why = "DATA0 and DATA1 swap: gfx1201's ds_cmpstore takes the new value first"
            return (kind, target, e12, why)
    return ("unsupported", target, "", f"gfx1201's {target} has no {enc.removeprefix('ENC_')}-equivalent encoding")


def build(csv_path):
    n10, _ = load(os.path.join(ROOT, "isa-specs/amd/gfx10.xml"))
    n12, by_op12 = load(os.path.join(ROOT, "isa-specs/amd/gfx12.xml"))
    aco = aco_rows(csv_path)
    rows, notes = [], []
    for name in sorted(n10):
        for enc in sorted(n10[name]):
            op = n10[name][enc]
            rows.append((name, enc) + classify(name, enc, op, n10, n12, by_op12, aco, notes))
    return rows, notes


def render(rows):
    out = [
        "// @generated by tools/amdspec/gfx12_map.py from isa-specs/amd/gfx10.xml, gfx12.xml and",
        "// ../shared/facts/amd/aco_opcodes_all_gens.csv. DO NOT EDIT.",
        "// Regenerate with `python3 tools/amdspec/gfx12_map.py`; the test `gfx12_map_is_current` checks this copy.",
        "",
        "use crate::gfx12map::{MapKind, MapRow};",
        "",
        "/// Every gfx1013 (instruction, encoding) pair, sorted by name then encoding.",
        "pub static ROWS: &[MapRow] = &[",
    ]
    kinds = {"reencode": "Reencode", "rename": "Rename", "sequence": "Sequence", "unsupported": "Unsupported"}
    for (n, e, k, t, e12, why) in rows:
        out.append(f'    MapRow {{ gfx10: "{n}", gfx10_enc: "{e}", kind: MapKind::{kinds[k]}, '
                   f'gfx12: "{t}", gfx12_enc: "{e12}", reason: "{why}" }},')
    out += ["];", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 when the checked-in file differs")
    ap.add_argument("--csv", default=CSV, help="ACO opcode table (default: %(default)s)")
    a = ap.parse_args()
    rows, notes = build(a.csv)
    for n in notes:
        print(n, file=sys.stderr)
    text = render(rows)
    if a.check:
        cur = open(OUT).read() if os.path.exists(OUT) else ""
        if cur != text:
            print(f"{OUT} is stale: run python3 tools/amdspec/gfx12_map.py", file=sys.stderr)
            sys.exit(1)
        return
    open(OUT, "w").write(text)
    counts = {}
    for r in rows:
        counts[r[2]] = counts.get(r[2], 0) + 1
    print(f"wrote {OUT}: {len(rows)} rows {dict(sorted(counts.items()))}; {len(notes)} notes")


if __name__ == "__main__":
    main()
