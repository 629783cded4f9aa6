#!/usr/bin/env python3
"""Derive an isa-specs XML file (see isa-specs/SCHEMA.md) for one AMD GPU by probing llvm-mc-22.

    python3 tools/amdspec/derive.py --mcpu gfx1013 -o isa-specs/amd/gfx10.xml
    python3 tools/amdspec/derive.py --mcpu gfx1201 -o isa-specs/amd/gfx12.xml

Encoding layouts (bit positions) come from layouts.py; everything else (which opcodes exist, the
mnemonics, operand order, which field feeds which printed operand, operand sizes, register and
constant names) is read from llvm-mc's disassembly of generated words.  Output is deterministic.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llvmmc  # noqa: E402
import layouts  # noqa: E402
from common import (pack, parse, core, base_name, reg_size, field_mask, field_mask_value,  # noqa
                    field_width)

OPERAND_KINDS = ("src", "ssrc", "sdst", "sreg", "vgpr", "vgpry", "sbase", "srsrc", "imm")
PAD_LITERAL_TEXTS = ("0xbf800000", "-1.0", "lit(0xbf800000)", "lit(-1.0)")


def fixed_mask_val(enc, idval=None):
    m = v = 0
    for f in enc["fields"]:
        if f[1] in ("enc", "id"):
            m |= field_mask(f)
            val = f[3] if (f[1] == "enc" or idval is None) else idval
            v |= field_mask_value(f, val)
    return m, v


def id_values(enc):
    if enc["extra"].get("dpp8"):
        return [0xE9, 0xEA]
    for f in enc["fields"]:
        if f[1] == "id":
            return [f[3]]
    return [None]


def op_field(enc):
    for f in enc["fields"]:
        if f[1] == "op":
            return f
    return None


def shares_space(a, b):
    return fixed_mask_val(a) == fixed_mask_val(b)


class Deriver:
    def __init__(self, mcpu):
        self.mcpu = mcpu
        self.archname, self.archid, fn = layouts.ARCH[mcpu]
        self.encs = fn()
        self.byname = {e["name"]: e for e in self.encs}
        self.log = []

    # ------------------------------------------------------------ opcode enumeration
    def more_specific(self, enc, word):
        m1, _ = fixed_mask_val(enc)
        for e2 in self.encs:
            if e2 is enc:
                continue
            m2, v2 = fixed_mask_val(e2)
            if (m2 & m1) == m1 and m2 != m1 and (word & m2) == v2:
                return True
        return False

    def accept(self, enc, res, op):
        if res is None:
            return False
        text, encb = res
        n = enc["bits"] // 8
        mn = text.split(" ")[0]
        if len(encb) == n:
            pass
        elif len(encb) == n + 4 and any(t in text for t in PAD_LITERAL_TEXTS):
            pass
        else:
            return False
        name = enc["name"]
        is_dpp16 = "row_mask:" in text
        is_dpp8 = "dpp8:" in text
        is_sdwa = "_sdwa" in mn
        if name.endswith("_DPP16"):
            if not is_dpp16:
                return False
        elif name.endswith("_DPP8"):
            if not is_dpp8:
                return False
        elif name.endswith("_SDWA"):
            if not is_sdwa:
                return False
        elif is_dpp16 or is_dpp8 or is_sdwa:
            return False
        # the canonical re-encoding must keep the opcode (else these OP bits are don't-care)
        of = op_field(enc)
        if of and of[2]:
            from common import field_get
            w = int.from_bytes(encb[:n], "little")
            if field_get(of, w) != op:
                return False
        return True

    def enumerate(self):
        cands, keys = [], []
        for enc in self.encs:
            if enc["extra"].get("vop3b"):
                continue  # shares its opcode space with the VOP3 form; classified later
            of = op_field(enc)
            nops = 1 << field_width(of) if of and of[2] else 1
            srcs = [f[0] for f in enc["fields"] if f[1] == "src" and f[0] in ("SRC0", "SRC1",
                                                                               "SRC2")]
            auto = []
            for combo in (("SRC1",), ("SRC2",), ("SRC1", "SRC2"), ("SRC0", "SRC1", "SRC2")):
                if all(c in srcs for c in combo):
                    auto.append({c: 0 for c in combo})  # s0 instead of v0
            for ai, alt in enumerate([{}] + enc["extra"].get("alt_bases", []) + auto):
                for op in range(nops):
                    w = pack(enc, dict(alt, OP=op))
                    wi = int.from_bytes(w, "little")
                    if self.more_specific(enc, wi):
                        continue
                    cands.append(w)
                    keys.append((enc["name"], op, ai, alt))
        res = llvmmc.disasm(self.mcpu, cands)
        self.ops = {e["name"]: {} for e in self.encs}
        self.alt = {}
        for (en, op, ai, alt), r in zip(keys, res):
            if op in self.ops[en] and "/*" not in self.ops[en][op][0]:
                continue  # a clean base (no llvm-mc remark) was found already
            if self.accept(self.byname[en], r, op):
                if op in self.ops[en] and "/*" in r[0]:
                    continue
                self.ops[en][op] = r
                self.alt[(en, op)] = alt

    # ------------------------------------------------------------ operand probing
    def probe_operands(self):
        jobs = []  # (encname, op, variant_name, word)
        for enc in self.encs:
            if enc["extra"].get("vop3b"):
                continue
            for op in sorted(self.ops[enc["name"]]):
                ov = dict(self.alt.get((enc["name"], op), {}), OP=op)
                jobs.append((enc["name"], op, None, pack(enc, ov)))
                for f in enc["fields"]:
                    if f[1] in OPERAND_KINDS:
                        jobs.append((enc["name"], op, f[0], pack(enc, dict(ov, **{f[0]: f[4]}))))
                if enc["name"].startswith("ENC_VOP3") and not enc["name"].startswith("ENC_VOP3P"):
                    # VOP3B/VOP3SD test: bits 14:8 = 16 is SDST s16 there, OPSEL bit 1 in VOP3A
                    w = int.from_bytes(pack(enc, ov), "little") | (16 << 8)
                    jobs.append((enc["name"], op, "#SDST",
                                 w.to_bytes(enc["bits"] // 8, "little")))
        res = llvmmc.disasm(self.mcpu, [j[3] for j in jobs])
        self.probe = {}
        for (en, op, var, w), r in zip(jobs, res):
            self.probe.setdefault((en, op), {})[var] = r

    def classify_vop3b(self):
        for enc in self.encs:
            if not enc["extra"].get("vop3b"):
                continue
            # the matching VOP3A-form encoding has the same fixed bits
            partner = [e for e in self.encs if e is not enc and not e["extra"].get("vop3b")
                       and shares_space(e, enc)][0]
            moved = []
            for op in sorted(self.ops[partner["name"]]):
                pr = self.probe[(partner["name"], op)]
                b, t = pr.get(None), pr.get("#SDST")
                if not b or not t:
                    continue
                _, bo, _ = parse(b[0])
                _, to, _ = parse(t[0])
                if len(bo) == len(to) and any(core(x) != core(y) for x, y in zip(bo, to)):
                    moved.append(op)
            for op in moved:
                self.ops[enc["name"]][op] = self.ops[partner["name"]].pop(op)
            # re-probe those under the VOP3B layout
            jobs = []
            for op in moved:
                ov = dict(self.alt.get((partner["name"], op), {}), OP=op)
                self.alt[(enc["name"], op)] = self.alt.pop((partner["name"], op), {})
                jobs.append((op, None, pack(enc, ov)))
                for f in enc["fields"]:
                    if f[1] in OPERAND_KINDS:
                        jobs.append((op, f[0], pack(enc, dict(ov, **{f[0]: f[4]}))))
            res = llvmmc.disasm(self.mcpu, [j[2] for j in jobs])
            for (op, var, w), r in zip(jobs, res):
                self.probe.setdefault((enc["name"], op), {})[var] = r
            for op in moved:
                self.probe.pop((partner["name"], op), None)

    # ------------------------------------------------------------ operand description
    def describe(self, enc, op):
        pr = self.probe[(enc["name"], op)]
        base = pr[None]
        if base is None:
            return None
        mn, bops, _ = parse(base[0])
        feeders = [[] for _ in bops]
        for f in enc["fields"]:
            if f[1] not in OPERAND_KINDS:
                continue
            r = pr.get(f[0])
            if r is None:
                continue
            m2, vops, _ = parse(r[0])
            if m2 != mn or len(vops) != len(bops):
                continue
            changed = [i for i, (x, y) in enumerate(zip(bops, vops)) if core(x) != core(y)]
            for i in changed:
                feeders[i].append((len(changed), f[1] == "imm", f))
        operands = []
        for i, txt in enumerate(bops):
            fs = feeders[i]
            f = None
            if fs:
                # prefer the field that changes only this operand, then register fields
                f = sorted(fs, key=lambda x: (x[0], x[1]))[0][2]
            operands.append(self.operand(enc, mn, i, txt, f, bops, pr))
        # outputs: the leading run of destination-like operands
        return mn, operands

    def operand(self, enc, mn, idx, txt, f, bops, pr):
        c = core(txt)
        d = {"text": txt, "field": f[0] if f else "", "implicit": False}
        if f is None:
            if txt in PAD_LITERAL_TEXTS:
                d.update(type="OPR_SIMM32", size=32)
            elif c == "off":
                d.update(type="OPR_OFF", size=32, implicit=True)
            else:
                d.update(type="OPR_SREG", size=reg_size(txt) or 32, implicit=True)
            return d
        kind = f[1]
        size = reg_size(txt)
        if kind == "src":
            t = "OPR_SRC"
        elif kind == "ssrc" and mn.startswith("s_sendmsg_rtn"):
            t = "OPR_SENDMSG"  # the message id, read from the field (255 is no literal)
        elif kind == "ssrc":
            t = "OPR_SSRC"
        elif kind == "sdst":
            t = "OPR_SDST"
        elif kind in ("sreg", "sbase", "srsrc"):
            t = "OPR_SREG"
        elif kind in ("vgpr", "vgpry"):
            t = "OPR_VGPR" if (c.startswith("v") or c.startswith("[")) else "OPR_SDST"
        else:  # imm
            alt = pr.get(f[0])
            alltxt = txt + " " + (parse(alt[0])[1][idx] if alt else "")
            name = f[0]
            if name in ("OFFSET", "IOFFSET") and enc["name"] == "ENC_SMEM":
                t = "OPR_SMEM_OFFSET"
            elif name == "TARGET":
                t = "OPR_EXP_TGT"
            elif name == "ATTR":
                t = "OPR_ATTR"
            elif "hwreg(" in alltxt:
                t = "OPR_HWREG"
            elif "sendmsg(" in alltxt:
                t = "OPR_SENDMSG"
            elif "cnt(" in alltxt or mn.startswith("s_waitcnt"):
                t = "OPR_WAITCNT"
            elif "inst" in alltxt and mn == "s_delay_alu":
                t = "OPR_DELAY"
            elif "depctr" in alltxt or "va_vdst(" in alltxt or mn == "s_waitcnt_depctr":
                t = "OPR_DEPCTR"
            elif is_branch_label(mn):
                t = "OPR_LABEL"
            else:
                t = "OPR_SIMM16" if field_width(f) == 16 else "OPR_IMM"
            size = field_width(f)
        d.update(type=t, size=size or 32)
        return d

    # ------------------------------------------------------------ predefined values
    def predefined(self):
        enc1 = self.byname["ENC_SOP1"]
        encv = self.byname["ENC_VOP1"]
        s_mov = [op for op, r in self.ops["ENC_SOP1"].items() if r[0].startswith("s_mov_b32 ")][0]
        v_mov = [op for op, r in self.ops["ENC_VOP1"].items() if r[0].startswith("v_mov_b32")][0]
        c = []
        for x in range(256):
            c.append(pack(enc1, {"OP": s_mov, "SSRC0": x, "SDST": 0}))
        for x in range(128):
            c.append(pack(enc1, {"OP": s_mov, "SSRC0": 0, "SDST": x}))
        for x in range(512):
            c.append(pack(encv, {"OP": v_mov, "SRC0": x, "VDST": 0}))
        r = llvmmc.disasm(self.mcpu, c)
        ssrc, sdst, src = {}, {}, {}
        for x in range(256):
            if r[x]:
                ssrc[x] = parse(r[x][0])[1][1]
        for x in range(128):
            if r[256 + x]:
                sdst[x] = parse(r[256 + x][0])[1][0]
        for x in range(512):
            if r[384 + x]:
                src[x] = parse(r[384 + x][0])[1][1]
        for d in (ssrc, src):
            for k, v in list(d.items()):
                if core(v) in PAD_LITERAL_TEXTS or v in PAD_LITERAL_TEXTS:
                    d[k] = "literal"
        vg = {x: "v%d" % x for x in range(256)}
        return {"OPR_SSRC": ssrc, "OPR_SDST": sdst, "OPR_SREG": sdst, "OPR_SRC": src,
                "OPR_VGPR": vg}

    # ------------------------------------------------------------ layout bit-flip check
    def check_layouts(self):
        """For one instruction per encoding, flip every bit outside the identifier: a bit that
        llvm-mc keeps in its re-encoding must lie in a declared field."""
        report = []
        jobs = []
        for enc in self.encs:
            ops = sorted(self.ops[enc["name"]])
            if not ops:
                continue
            op = ops[len(ops) // 2]
            w = int.from_bytes(pack(enc, dict(self.alt.get((enc["name"], op), {}), OP=op)),
                               "little")
            fm = 0
            for f in enc["fields"]:
                fm |= field_mask(f)
            idm, _ = fixed_mask_val(enc)
            idm |= field_mask(op_field(enc)) if op_field(enc)[2] else 0
            for b in range(enc["bits"]):
                if (idm >> b) & 1:
                    continue
                jobs.append((enc, b, fm, w, (w ^ (1 << b)).to_bytes(enc["bits"] // 8, "little")))
        res = llvmmc.disasm(self.mcpu, [j[4] for j in jobs])
        bad = {}
        for (enc, b, fm, w, wb), r in zip(jobs, res):
            if r is None:
                continue
            n = enc["bits"] // 8
            e = int.from_bytes(r[1][:n].ljust(n, b"\0"), "little")
            kept = ((e >> b) & 1) != ((w >> b) & 1) or r[0] != ""
            kept = ((e >> b) & 1) == 1 if not ((w >> b) & 1) else ((e >> b) & 1) == 0
            if kept and not (fm >> b) & 1 and len(r[1]) >= n:
                bad.setdefault(enc["name"], []).append(b)
        for k in sorted(bad):
            report.append("%s: bits kept by llvm-mc but in no field: %s" % (k, bad[k]))
        return report

    # ------------------------------------------------------------ run
    def run(self):
        self.enumerate()
        self.probe_operands()
        self.classify_vop3b()
        self.insts = {}  # name -> list of (encname, op, mnemonic, operands)
        for enc in self.encs:
            for op in sorted(self.ops[enc["name"]]):
                d = self.describe(enc, op)
                if d is None:
                    continue
                mn, operands = d
                set_io(mn, operands)
                set_formats(mn, operands)
                for o in operands:
                    o["fmt"] = FORMATS.get(self.mcpu, {}).get((base_name(mn).lower(), o["field"]), o["fmt"])
                self.insts.setdefault(base_name(mn), []).append((enc["name"], op, mn, operands))
        self.pre = self.predefined()
        self.check = self.check_layouts()


# ---------------------------------------------------------------- heuristics on mnemonics
def is_branch_label(mn):
    return (mn.startswith("s_branch") or mn.startswith("s_cbranch") or mn == "s_call_b64"
            or mn.startswith("s_subvector_loop"))


def flags(name):
    n = name.lower()
    br = is_branch_label(n) or n in ("s_setpc_b64", "s_swappc_b64")
    cond = n.startswith("s_cbranch") or n.startswith("s_subvector_loop")
    ind = n in ("s_setpc_b64", "s_swappc_b64")
    term = n.startswith("s_endpgm")
    return {"IsBranch": br, "IsConditionalBranch": cond, "IsIndirectBranch": ind,
            "IsProgramTerminator": term}


STORE_LIKE = re.compile(r"(store|write|^s_atc_probe|^s_dcache|^exp|^export|^ds_(add|sub|rsub|inc|"
                        r"dec|min|max|and|or|xor|mskor|cmpst|cmpstore|condxchg|append|consume"
                        r"|gws|nop|swizzle|permute|bpermute)|_atomic_)")


def set_io(mn, operands):
    m = mn.lower()
    for i, o in enumerate(operands):
        o["input"], o["output"] = True, False
    if not operands:
        return
    # destination fields
    for i, o in enumerate(operands):
        f = o["field"]
        if f in ("VDST", "SDST", "VDSTX", "VDSTY") and not (
                m.startswith("s_cmpk") or m.startswith("s_setreg") or m.startswith("s_cbranch")
                or m.startswith("s_setpc") or m.startswith("s_rfe") or m.startswith("s_call")):
            o["input"], o["output"] = False, True
            if m.startswith("s_") and m.endswith(("_saveexec_b64", "_saveexec_b32", "_wrexec_b64",
                                                 "_wrexec_b32")):
                pass
        if f in ("VDATA", "SDATA") and i == 0:
            if "_atomic_" in m or m.startswith("ds_") and "rtn" in m:
                o["input"], o["output"] = True, True
            elif not STORE_LIKE.search(m):
                o["input"], o["output"] = False, True
    # implicit lane masks right after a destination (VOPC e32 vcc, carry-out) are outputs
    for i, o in enumerate(operands):
        if o["implicit"] and (i == 0 or (i == 1 and operands[0]["output"])):
            o["input"], o["output"] = False, True
    if m.startswith("v_cmpx_") and operands and operands[0]["implicit"]:
        operands[0]["input"], operands[0]["output"] = False, True
    if m.startswith(("s_getpc", "s_swappc")) and operands:
        operands[0]["input"], operands[0]["output"] = False, True


# Source types the mnemonic does not tell (LLVM's operand types, which decide how constants
# print and whether float modifiers show): (mnemonic, field) -> data format, per processor.
FORMATS = {"gfx1201": {
    (m, f): fmt
    for m, fields, fmt in (
        ("v_sad_u16", ("SRC0", "VSRC0", "SRC1", "SRC2"), "FMT_NUM_U32"),
        ("v_mad_u32_u16", ("SRC2",), "FMT_NUM_U32"),
        ("v_mad_i32_i16", ("SRC2",), "FMT_NUM_I32"),
        ("v_cvt_pk_u8_f32", ("SRC1", "SRC2"), "FMT_NUM_U32"),
        ("v_cvt_sr_fp8_f32", ("SRC1",), "FMT_NUM_U32"),
        ("v_cvt_sr_bf8_f32", ("SRC1",), "FMT_NUM_U32"),
        ("v_cvt_pk_norm_i16_f16", ("SRC0", "VSRC0", "SRC1"), "FMT_NUM_F16"),
        ("v_cvt_pk_norm_u16_f16", ("SRC0", "VSRC0", "SRC1"), "FMT_NUM_F16"))
    for f in fields}}

TYPE_RE = re.compile(r"^(f|i|u|b|bf)(8|16|32|64|128)$")


def set_formats(mn, operands):
    parts = mn.lower().split("::")[0].split("_")
    types = [p for p in parts if TYPE_RE.match(p)]
    pk = "pk" in parts
    for i, o in enumerate(operands):
        if o["type"] in ("OPR_SIMM16", "OPR_LABEL", "OPR_WAITCNT", "OPR_HWREG", "OPR_SENDMSG",
                         "OPR_DELAY", "OPR_DEPCTR", "OPR_EXP_TGT", "OPR_ATTR", "OPR_IMM",
                         "OPR_SMEM_OFFSET", "OPR_OFF"):
            o["fmt"] = "FMT_NUM_B%d" % (16 if o["size"] <= 16 else 32)
            continue
        if o["implicit"] and o["text"] in ("vcc_lo", "vcc", "exec_lo", "exec", "vcc_hi"):
            o["fmt"] = "FMT_NUM_B%d" % o["size"]
            continue
        if not types or mn.startswith(("buffer_", "tbuffer_", "image_", "global_", "flat_",
                                       "scratch_", "ds_", "s_load", "s_buffer", "s_store",
                                       "s_atomic", "s_buffer_atomic", "exp", "export",
                                       "s_scratch")):
            o["fmt"] = "FMT_ANY"
            continue
        t = types[0] if (o["output"] or len(types) == 1) else types[-1]
        if len(types) >= 3 and not o["output"]:
            t = types[-1]
        m = TYPE_RE.match(t)
        base, bits = m.group(1), int(m.group(2))
        if o["size"] and o["size"] != bits and not pk and o["size"] in (32, 64) and bits in (32, 64):
            bits = o["size"]
            if base == "f":
                base = "b"
        fmt = "FMT_NUM_%s%s%d" % ("PK2_" if pk and bits == 16 else "", base.upper(), bits)
        o["fmt"] = fmt


# ---------------------------------------------------------------- XML output
def esc(s):
    return (str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def bstr(v, n):
    return format(v, "0%db" % n)


def write_xml(d, path):
    L = []
    a = L.append
    a('<?xml version="1.0" encoding="UTF-8"?>')
    a("<Spec>")
    a("    <Document>")
    a("        <Copyright>Derived data; see isa-specs/README.md</Copyright>")
    a("        <License>MIT</License>")
    a("        <SchemaVersion>1.1.1-subset</SchemaVersion>")
    a("        <Provenance>%s</Provenance>" % esc(
        "Derived by tools/amdspec/derive.py --mcpu %s from llvm-mc %s disassembly "
        "(encoding bit layouts from AMD ISA documentation, verified by bit-flip probing)"
        % (d.mcpu, llvmmc.version())))
    a("    </Document>")
    a("    <ISA>")
    a("        <Architecture>")
    a("            <ArchitectureName>%s</ArchitectureName>" % esc(d.archname))
    a("            <ArchitectureId>%d</ArchitectureId>" % d.archid)
    a("        </Architecture>")
    a("        <Encodings>")
    for enc in d.encs:
        n = enc["bits"]
        fm, fv = fixed_mask_val(enc)
        of = op_field(enc)
        mask = fm | (field_mask(of) if of and of[2] else 0)
        ids = set()
        for op in d.ops[enc["name"]]:
            for idv in id_values(enc):
                _, v = fixed_mask_val(enc, idv)
                ids.add(v | (field_mask_value(of, op) if of and of[2] else 0))
        a("            <Encoding>")
        a("                <EncodingName>%s</EncodingName>" % enc["name"])
        a("                <BitCount>%d</BitCount>" % n)
        a('                <EncodingIdentifierMask Radix="2">%s</EncodingIdentifierMask>'
          % bstr(mask, n))
        a("                <EncodingIdentifiers>")
        for v in sorted(ids):
            a('                    <EncodingIdentifier Radix="2">%s</EncodingIdentifier>'
              % bstr(v, n))
        a("                </EncodingIdentifiers>")
        a("                <Description>%s</Description>" % esc(enc["desc"]))
        a("                <MicrocodeFormat>")
        a("                    <BitMap>")
        for f in sorted(enc["fields"], key=lambda f: (-(f[2][0][0] if f[2] else -1), f[0])):
            a('                        <Field IsConditional="false">')
            a("                            <FieldName>%s</FieldName>" % f[0])
            if f[1] in ("enc", "id"):
                a("                            <Description>Fixed value %d (%s).</Description>"
                  % (f[3], "encoding" if f[1] == "enc" else "identifier"))
            a('                            <BitLayout RangeCount="%d">' % len(f[2]))
            for i, (off, cnt) in enumerate(f[2]):
                a('                                <Range Order="%d">' % i)
                a("                                    <BitCount>%d</BitCount>" % cnt)
                a("                                    <BitOffset>%d</BitOffset>" % off)
                a("                                </Range>")
            a("                            </BitLayout>")
            a("                        </Field>")
        a("                    </BitMap>")
        a("                </MicrocodeFormat>")
        a("            </Encoding>")
    a("        </Encodings>")
    a("        <Instructions>")
    encorder = {e["name"]: i for i, e in enumerate(d.encs)}
    for name in sorted(d.insts):
        a("            <Instruction>")
        a("                <InstructionName>%s</InstructionName>" % esc(name))
        fl = flags(name.split("::")[0])
        a("                <InstructionFlags>")
        for k in ("IsBranch", "IsConditionalBranch", "IsIndirectBranch", "IsProgramTerminator"):
            a("                    <%s>%s</%s>" % (k, "TRUE" if fl[k] else "FALSE", k))
        a("                </InstructionFlags>")
        a("                <InstructionEncodings>")
        for en, op, mn, operands in sorted(d.insts[name], key=lambda x: (encorder[x[0]], x[1])):
            a("                    <InstructionEncoding>")
            a("                        <EncodingName>%s</EncodingName>" % en)
            a("                        <EncodingCondition>default</EncodingCondition>")
            a('                        <Opcode Radix="10">%d</Opcode>' % op)
            a("                        <Operands>")
            for i, o in enumerate(operands):
                a('                            <Operand Input="%s" Output="%s" IsImplicit="%s" '
                  'Order="%d">' % ("true" if o["input"] else "false",
                                   "true" if o["output"] else "false",
                                   "true" if o["implicit"] else "false", i + 1))
                a("                                <FieldName>%s</FieldName>" % o["field"])
                a("                                <DataFormatName>%s</DataFormatName>" % o["fmt"])
                a("                                <OperandType>%s</OperandType>" % o["type"])
                a("                                <OperandSize>%d</OperandSize>" % o["size"])
                if o["implicit"] or o["type"] == "OPR_SIMM32":
                    a("                                <Description>prints as %s</Description>"
                      % esc(o["text"]))
                a("                            </Operand>")
            a("                        </Operands>")
            a("                    </InstructionEncoding>")
        a("                </InstructionEncodings>")
        a("            </Instruction>")
    a("        </Instructions>")
    a("        <OperandTypes>")
    types = set()
    for insts in d.insts.values():
        for _, _, _, ops in insts:
            for o in ops:
                types.add(o["type"])
    types |= set(d.pre)
    for t in sorted(types):
        a("            <OperandType>")
        a("                <OperandTypeName>%s</OperandTypeName>" % t)
        if t in d.pre:
            a("                <OperandPredefinedValues>")
            for v in sorted(d.pre[t]):
                a("                    <PredefinedValue>")
                a("                        <Name>%s</Name>" % esc(d.pre[t][v]))
                a("                        <Value>%d</Value>" % v)
                a("                    </PredefinedValue>")
            a("                </OperandPredefinedValues>")
        a("            </OperandType>")
    a("        </OperandTypes>")
    a("    </ISA>")
    a("</Spec>")
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mcpu", required=True, choices=sorted(layouts.ARCH))
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--summary", help="also write a JSON summary (counts, layout check)")
    args = ap.parse_args()
    d = Deriver(args.mcpu)
    d.run()
    write_xml(d, args.output)
    counts = {e["name"]: len(d.ops[e["name"]]) for e in d.encs}
    for line in d.check:
        print("layout-check:", line, file=sys.stderr)
    print("%s: %d instructions, %d encodings" % (args.mcpu, len(d.insts), len(d.encs)),
          file=sys.stderr)
    for k in counts:
        print("  %-22s %d" % (k, counts[k]), file=sys.stderr)
    if args.summary:
        with open(args.summary, "w") as fh:
            json.dump({"mcpu": args.mcpu, "llvm": llvmmc.version(), "instructions": len(d.insts),
                       "encodings": counts, "layout_check": d.check}, fh, indent=1,
                      sort_keys=True)
            fh.write("\n")


if __name__ == "__main__":
    main()
