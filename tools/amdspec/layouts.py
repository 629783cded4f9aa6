"""Encoding layouts (bit positions are facts from AMD's RDNA1/RDNA4 ISA documentation,
each one re-checked against llvm-mc-22 by derive.py's bit-flip check).

A field is (NAME, KIND, RANGES, BASE, ALT):
  RANGES  list of (bit_offset, bit_count), least significant part first; bits count across the
          whole instruction (dword 1 starts at bit 32).
  KIND    enc   fixed encoding bits (value BASE), part of the identifier
          id    further identifier bits (SRC0 marker of DPP/SDWA, FLAT SEG), value BASE
          op    the opcode
          src   9-bit vector-ALU source (OPR_SRC)      ssrc  8-bit scalar source (OPR_SSRC)
          sdst  7-bit scalar destination (OPR_SDST)   sreg  7-bit scalar register (OPR_SREG)
          vgpr  8-bit VGPR (OPR_VGPR)                 sbase SGPR pair index (x2)
          srsrc SGPR quad index (x4)                  imm   immediate that may print as operand
          mod   modifier (never an operand)
  BASE    value used in the base word when probing operands
  ALT     distinctive value used to see which printed operand a field feeds
"""

def F(name, kind, ranges, base=0, alt=None):
    if isinstance(ranges, tuple):
        ranges = [ranges]
    return (name, kind, ranges, base, alt)


def enc(name, bits, fields, desc, opcount=None, extra=None):
    return dict(name=name, bits=bits, fields=fields, desc=desc, extra=extra or {})

# ---------------------------------------------------------------- shared pieces
def sop_fields():
    return {
        "SOP2": [F("ENCODING", "enc", (30, 2), 0b10), F("OP", "op", (23, 7)),
                 F("SDST", "sdst", (16, 7), 0, 16), F("SSRC1", "ssrc", (8, 8), 0, 24),
                 F("SSRC0", "ssrc", (0, 8), 0, 8)],
        "SOPK": [F("ENCODING", "enc", (28, 4), 0b1011), F("OP", "op", (23, 5)),
                 F("SDST", "sdst", (16, 7), 0, 16), F("SIMM16", "imm", (0, 16), 0, 0x1234)],
        "SOP1": [F("ENCODING", "enc", (23, 9), 0b101111101), F("SDST", "sdst", (16, 7), 0, 16),
                 F("OP", "op", (8, 8)), F("SSRC0", "ssrc", (0, 8), 0, 8)],
        "SOPC": [F("ENCODING", "enc", (23, 9), 0b101111110), F("OP", "op", (16, 7)),
                 F("SSRC1", "ssrc", (8, 8), 0, 24), F("SSRC0", "ssrc", (0, 8), 0, 8)],
        "SOPP": [F("ENCODING", "enc", (23, 9), 0b101111111), F("OP", "op", (16, 7)),
                 F("SIMM16", "imm", (0, 16), 0, 0x0234)],
    }


def vop_basic():
    return {
        "VOP1": [F("ENCODING", "enc", (25, 7), 0b0111111), F("VDST", "vgpr", (17, 8), 0, 40),
                 F("OP", "op", (9, 8)), F("SRC0", "src", (0, 9), 256, 280)],
        "VOP2": [F("ENCODING", "enc", (31, 1), 0), F("OP", "op", (25, 6)),
                 F("VDST", "vgpr", (17, 8), 0, 40), F("VSRC1", "vgpr", (9, 8), 0, 48),
                 F("SRC0", "src", (0, 9), 256, 280)],
        "VOPC": [F("ENCODING", "enc", (25, 7), 0b0111110), F("OP", "op", (17, 8)),
                 F("VSRC1", "vgpr", (9, 8), 0, 48), F("SRC0", "src", (0, 9), 256, 280)],
    }


def dpp16_tail(base_src0_name="VSRC0"):
    return [F("SRC0", "id", (0, 9), 0xFA),
            F(base_src0_name, "vgpr", (32, 8), 0, 56), F("DPP_CTRL", "mod", (40, 9), 0xE4, 0x1B),
            F("FI", "mod", (50, 1), 0, 1), F("BOUND_CTRL", "mod", (51, 1), 0, 1),
            F("SRC0_NEG", "mod", (52, 1), 0, 1), F("SRC0_ABS", "mod", (53, 1), 0, 1),
            F("SRC1_NEG", "mod", (54, 1), 0, 1), F("SRC1_ABS", "mod", (55, 1), 0, 1),
            F("BANK_MASK", "mod", (56, 4), 0xF, 0x5), F("ROW_MASK", "mod", (60, 4), 0xF, 0x3)]


def dpp8_tail(base_src0_name="VSRC0"):
    return [F("SRC0", "id", (0, 9), 0xE9),
            F(base_src0_name, "vgpr", (32, 8), 0, 56),
            F("LANE_SEL0", "mod", (40, 3), 0, 1), F("LANE_SEL1", "mod", (43, 3), 1, 2),
            F("LANE_SEL2", "mod", (46, 3), 2, 3), F("LANE_SEL3", "mod", (49, 3), 3, 4),
            F("LANE_SEL4", "mod", (52, 3), 4, 5), F("LANE_SEL5", "mod", (55, 3), 5, 6),
            F("LANE_SEL6", "mod", (58, 3), 6, 7), F("LANE_SEL7", "mod", (61, 3), 7, 0)]


def with_tail(fields, tail):
    # the dword-0 SRC0 field is replaced by the identifier field of the tail
    return [f for f in fields if f[0] != "SRC0"] + tail


# ---------------------------------------------------------------- GFX10 (gfx1013)
def gfx10():
    E = []
    s = sop_fields()
    E.append(enc("ENC_SOP2", 32, s["SOP2"], "Scalar ALU, two sources, one destination."))
    E.append(enc("ENC_SOPK", 32, s["SOPK"], "Scalar ALU with a 16-bit immediate."))
    E.append(enc("ENC_SOP1", 32, s["SOP1"], "Scalar ALU, one source, one destination."))
    E.append(enc("ENC_SOPC", 32, s["SOPC"], "Scalar ALU compare."))
    E.append(enc("ENC_SOPP", 32, s["SOPP"], "Scalar program control with a 16-bit immediate."))
    E.append(enc("ENC_SMEM", 64, [
        F("ENCODING", "enc", (26, 6), 0b111101), F("OP", "op", (18, 8)),
        F("GLC", "mod", (16, 1), 0, 1), F("DLC", "mod", (14, 1), 0, 1),
        F("SDATA", "sreg", (6, 7), 0, 24), F("SBASE", "sbase", (0, 6), 0, 6),
        F("OFFSET", "imm", (32, 21), 0, 0x1234), F("SOFFSET", "sreg", (57, 7), 0, 20)],
        "Scalar memory. SBASE counts SGPR pairs (s[2*SBASE]); SOFFSET 0x7d (null) means no "
        "register offset."))
    v = vop_basic()
    E.append(enc("ENC_VOP1", 32, v["VOP1"], "Vector ALU, one source."))
    E.append(enc("ENC_VOP2", 32, v["VOP2"], "Vector ALU, two sources."))
    E.append(enc("ENC_VOPC", 32, v["VOPC"], "Vector ALU compare, writes VCC."))
    vop3_common = [F("ENCODING", "enc", (26, 6), 0b110101), F("OP", "op", (16, 10)),
                   F("CLAMP", "mod", (15, 1), 0, 1), F("VDST", "vgpr", (0, 8), 0, 40),
                   F("SRC0", "src", (32, 9), 256, 280), F("SRC1", "src", (41, 9), 256, 296),
                   F("SRC2", "src", (50, 9), 256, 312), F("OMOD", "mod", (59, 2), 0, 1),
                   F("NEG", "mod", (61, 3), 0, 1)]
    E.append(enc("ENC_VOP3", 64, vop3_common + [
        F("OPSEL", "mod", (11, 4), 0, 1), F("ABS", "mod", (8, 3), 0, 1)],
        "Vector ALU, up to three sources, with input/output modifiers (VOP3A)."))
    E.append(enc("ENC_VOP3B", 64, vop3_common + [F("SDST", "sdst", (8, 7), 0, 16)],
        "Vector ALU with a scalar destination (carry out / VCC-like mask): VOP3B.",
        extra={"vop3b": True}))
    E.append(enc("ENC_VOP3P", 64, [
        F("ENCODING", "enc", (24, 8), 0b11001100), F("OP", "op", (16, 7)),
        F("CLAMP", "mod", (15, 1), 0, 1), F("OPSEL_HI2", "mod", (14, 1), 1, 0),
        F("OPSEL", "mod", (11, 3), 0, 1), F("NEG_HI", "mod", (8, 3), 0, 1),
        F("VDST", "vgpr", (0, 8), 0, 40),
        F("SRC0", "src", (32, 9), 256, 280), F("SRC1", "src", (41, 9), 256, 296),
        F("SRC2", "src", (50, 9), 256, 312), F("OPSEL_HI", "mod", (59, 2), 3, 1),
        F("NEG", "mod", (61, 3), 0, 1)],
        "Vector ALU on packed 16-bit data."))
    # GFX10 has no DPP forms of VOPC (llvm-mc decodes none)
    for fam in ("VOP1", "VOP2"):
        E.append(enc("ENC_%s_DPP16" % fam, 64, with_tail(v[fam], dpp16_tail()),
                     "%s with a DPP16 control dword (SRC0 = 0xFA)." % fam, extra={"base": fam}))
    for fam in ("VOP1", "VOP2"):
        E.append(enc("ENC_%s_DPP8" % fam, 64, with_tail(v[fam], dpp8_tail()),
                     "%s with a DPP8 lane-select dword (SRC0 = 0xE9, or 0xEA with FI=1)." % fam,
                     extra={"base": fam, "dpp8": True}))
    sdwa_src = [F("SRC0", "id", (0, 9), 0xF9), F("VSRC0", "src", [(32, 8), (55, 1)], 0, 56),
                F("SRC0_SEL", "mod", (48, 3), 6, 1), F("SRC0_SEXT", "mod", (51, 1), 0, 1),
                F("SRC0_NEG", "mod", (52, 1), 0, 1), F("SRC0_ABS", "mod", (53, 1), 0, 1)]
    sdwa_src1 = [F("SRC1_SEL", "mod", (56, 3), 6, 1), F("SRC1_SEXT", "mod", (59, 1), 0, 1),
                 F("SRC1_NEG", "mod", (60, 1), 0, 1), F("SRC1_ABS", "mod", (61, 1), 0, 1),
                 F("S1", "mod", (63, 1), 0, 1)]
    sdwa_dst = [F("DST_SEL", "mod", (40, 3), 6, 1), F("DST_U", "mod", (43, 2), 0, 1),
                F("CLAMP", "mod", (45, 1), 0, 1), F("OMOD", "mod", (46, 2), 0, 1)]
    E.append(enc("ENC_VOP1_SDWA", 64, with_tail(v["VOP1"], sdwa_src + sdwa_dst),
        "VOP1 with an SDWA dword (SRC0 = 0xF9). VSRC0 bit 8 (S0, bit 55) selects an SGPR.",
        extra={"base": "VOP1"}))
    E.append(enc("ENC_VOP2_SDWA", 64, with_tail(v["VOP2"], sdwa_src + sdwa_dst + sdwa_src1),
        "VOP2 with an SDWA dword (SRC0 = 0xF9). S0/S1 select SGPR sources.",
        extra={"base": "VOP2"}))
    E.append(enc("ENC_VOPC_SDWA", 64, with_tail(v["VOPC"], sdwa_src + sdwa_src1 + [
        F("SDST", "sdst", (40, 7), 0, 16), F("SD", "mod", (47, 1), 0, 1)]),
        "VOPC with an SDWA dword (SRC0 = 0xF9). SD=1 writes SDST instead of VCC.",
        extra={"base": "VOPC"}))
    E.append(enc("ENC_DS", 64, [
        F("ENCODING", "enc", (26, 6), 0b110110), F("OP", "op", (18, 8)),
        F("GDS", "mod", (17, 1), 0, 1), F("OFFSET1", "mod", (8, 8), 0, 3),
        F("OFFSET0", "mod", (0, 8), 0, 5),
        F("ADDR", "vgpr", (32, 8), 0, 40), F("DATA0", "vgpr", (40, 8), 0, 48),
        F("DATA1", "vgpr", (48, 8), 0, 56), F("VDST", "vgpr", (56, 8), 0, 64)],
        "Local/global data share.", extra={"alt_bases": [{"GDS": 1}]}))
    mubuf_common = [F("OFFSET", "mod", (0, 12), 0, 0x123), F("OFFEN", "mod", (12, 1), 1, 0),
                    F("IDXEN", "mod", (13, 1), 0, 1), F("GLC", "mod", (14, 1), 0, 1),
                    F("DLC", "mod", (15, 1), 0, 1),
                    F("VADDR", "vgpr", (32, 8), 0, 40), F("VDATA", "vgpr", (40, 8), 0, 48),
                    F("SRSRC", "srsrc", (48, 5), 0, 3), F("SLC", "mod", (54, 1), 0, 1),
                    F("TFE", "mod", (55, 1), 0, 1), F("SOFFSET", "ssrc", (56, 8), 0, 20)]
    E.append(enc("ENC_MUBUF", 64, [F("ENCODING", "enc", (26, 6), 0b111000),
                                   F("OP", "op", (18, 8)), F("LDS", "mod", (16, 1), 0, 1)]
                 + mubuf_common, "Untyped buffer memory. SRSRC counts SGPR quads (s[4*SRSRC]).",
                 extra={"alt_bases": [{"OFFEN": 0}]}))
    E.append(enc("ENC_MTBUF", 64, [F("ENCODING", "enc", (26, 6), 0b111010),
                                   F("OP", "op", [(16, 3), (53, 1)]),
                                   F("FORMAT", "mod", (19, 7), 1, 0x22)]
                 + mubuf_common, "Typed buffer memory. SRSRC counts SGPR quads."))
    E.append(enc("ENC_MIMG", 64, [
        F("ENCODING", "enc", (26, 6), 0b111100), F("OP", "op", [(18, 7), (0, 1)]),
        F("NSA", "mod", (1, 2), 0, 1), F("DIM", "mod", (3, 3), 0, 1), F("DLC", "mod", (7, 1), 0, 1),
        F("DMASK", "mod", (8, 4), 1, 3), F("UNORM", "mod", (12, 1), 0, 1),
        F("GLC", "mod", (13, 1), 0, 1), F("R128", "mod", (15, 1), 0, 1),
        F("TFE", "mod", (16, 1), 0, 1), F("LWE", "mod", (17, 1), 0, 1),
        F("SLC", "mod", (25, 1), 0, 1),
        F("VADDR", "vgpr", (32, 8), 0, 40), F("VDATA", "vgpr", (40, 8), 0, 48),
        F("SRSRC", "srsrc", (48, 5), 0, 3), F("SSAMP", "srsrc", (53, 5), 0, 2),
        F("A16", "mod", (62, 1), 0, 1), F("D16", "mod", (63, 1), 0, 1)],
        "Image memory. NSA>0 appends NSA dwords of extra address VGPRs (ADDR1.. one byte each). "
        "SRSRC/SSAMP count SGPR quads.",
        extra={"mimg": True, "alt_bases": [{"DMASK": 0xF, "UNORM": 1},
                                           {"DMASK": 0xF, "UNORM": 1, "R128": 1},
                                           {"DMASK": 0xF, "UNORM": 1, "A16": 1}]}))
    flat_common = [F("OFFSET", "mod", (0, 12), 0, 0x123), F("DLC", "mod", (12, 1), 0, 1),
                   F("LDS", "mod", (13, 1), 0, 1), F("GLC", "mod", (16, 1), 0, 1),
                   F("SLC", "mod", (17, 1), 0, 1), F("OP", "op", (18, 7)),
                   F("ENCODING", "enc", (26, 6), 0b110111),
                   F("ADDR", "vgpr", (32, 8), 0, 40), F("DATA", "vgpr", (40, 8), 0, 48),
                   F("SADDR", "sreg", (48, 7), 0x7D, 20), F("NV", "mod", (55, 1), 0, 1),
                   F("VDST", "vgpr", (56, 8), 0, 64)]
    for nm, seg in (("ENC_FLAT", 0), ("ENC_FLAT_SCRATCH", 1), ("ENC_FLAT_GLBL", 2)):
        E.append(enc(nm, 64, flat_common + [F("SEG", "id", (14, 2), seg)],
                     "FLAT encoding, SEG=%d. SADDR 0x7d (off) means no scalar base." % seg))
    E.append(enc("ENC_EXP", 64, [
        F("ENCODING", "enc", (26, 6), 0b111110), F("OP", "op", []),
        F("EN", "mod", (0, 4), 0xF, 0x5), F("TARGET", "imm", (4, 6), 0, 12),
        F("COMPR", "mod", (10, 1), 0, 1), F("DONE", "mod", (11, 1), 0, 1),
        F("VM", "mod", (12, 1), 0, 1),
        F("VSRC0", "vgpr", (32, 8), 0, 40), F("VSRC1", "vgpr", (40, 8), 0, 48),
        F("VSRC2", "vgpr", (48, 8), 0, 56), F("VSRC3", "vgpr", (56, 8), 0, 64)],
        "Export. EN bits turn VSRC0..3 on (disabled ones print as off). No opcode field: OP "
        "has no bits and the single instruction has opcode 0."))
    E.append(enc("ENC_VINTRP", 32, [
        F("ENCODING", "enc", (26, 6), 0b110010), F("VDST", "vgpr", (18, 8), 0, 40),
        F("OP", "op", (16, 2)), F("ATTR", "imm", (10, 6), 0, 5),
        F("ATTRCHAN", "imm", (8, 2), 0, 2), F("VSRC", "vgpr", (0, 8), 0, 48)],
        "Parameter interpolation."))
    return E


# ---------------------------------------------------------------- GFX12 (gfx1201)
def gfx12():
    E = []
    s = sop_fields()
    E.append(enc("ENC_SOP2", 32, s["SOP2"], "Scalar ALU, two sources, one destination."))
    E.append(enc("ENC_SOPK", 32, s["SOPK"], "Scalar ALU with a 16-bit immediate."))
    E.append(enc("ENC_SOP1", 32, s["SOP1"], "Scalar ALU, one source, one destination."))
    E.append(enc("ENC_SOPC", 32, s["SOPC"], "Scalar ALU compare."))
    E.append(enc("ENC_SOPP", 32, s["SOPP"], "Scalar program control with a 16-bit immediate."))
    E.append(enc("ENC_SMEM", 64, [
        F("ENCODING", "enc", (26, 6), 0b111101), F("OP", "op", (13, 6)),
        F("NV", "mod", (20, 1), 0, 1),
        F("SCOPE", "mod", (21, 2), 0, 1), F("TH", "mod", (23, 2), 0, 1),
        F("SDATA", "sreg", (6, 7), 0, 24), F("SBASE", "sbase", (0, 6), 0, 6),
        F("IOFFSET", "imm", (32, 24), 0, 0x1234), F("SCALE_OFFSET", "mod", (56, 1), 0, 1),
        F("SOFFSET", "sreg", (57, 7), 0x7C, 20)],
        "Scalar memory. SBASE counts SGPR pairs (s[2*SBASE]); SOFFSET 0x7c (null) means no "
        "register offset."))
    v = vop_basic()
    E.append(enc("ENC_VOP1", 32, v["VOP1"], "Vector ALU, one source."))
    E.append(enc("ENC_VOP2", 32, v["VOP2"], "Vector ALU, two sources."))
    E.append(enc("ENC_VOPC", 32, v["VOPC"], "Vector ALU compare, writes VCC."))
    vop3_common = [F("ENCODING", "enc", (26, 6), 0b110101), F("OP", "op", (16, 10)),
                   F("CLAMP", "mod", (15, 1), 0, 1), F("VDST", "vgpr", (0, 8), 0, 40),
                   F("SRC0", "src", (32, 9), 256, 280), F("SRC1", "src", (41, 9), 256, 296),
                   F("SRC2", "src", (50, 9), 256, 312), F("OMOD", "mod", (59, 2), 0, 1),
                   F("NEG", "mod", (61, 3), 0, 1)]
    vop3a = vop3_common + [F("OPSEL", "mod", (11, 4), 0, 1), F("ABS", "mod", (8, 3), 0, 1)]
    vop3sd = vop3_common + [F("SDST", "sdst", (8, 7), 0, 16)]
    vop3p = [F("ENCODING", "enc", (24, 8), 0b11001100), F("OP", "op", (16, 7)),
             F("CLAMP", "mod", (15, 1), 0, 1), F("OPSEL_HI2", "mod", (14, 1), 1, 0),
             F("OPSEL", "mod", (11, 3), 0, 1), F("NEG_HI", "mod", (8, 3), 0, 1),
             F("VDST", "vgpr", (0, 8), 0, 40),
             F("SRC0", "src", (32, 9), 256, 280), F("SRC1", "src", (41, 9), 256, 296),
             F("SRC2", "src", (50, 9), 256, 312), F("OPSEL_HI", "mod", (59, 2), 3, 1),
             F("NEG", "mod", (61, 3), 0, 1)]
    E.append(enc("ENC_VOP3", 64, vop3a, "Vector ALU, up to three sources, with modifiers."))
    E.append(enc("ENC_VOP3SD", 64, vop3sd, "Vector ALU with a scalar destination (VOP3SD).",
                 extra={"vop3b": True}))
    E.append(enc("ENC_VOP3P", 64, vop3p, "Vector ALU on packed data."))
    for fam in ("VOP1", "VOP2", "VOPC"):
        E.append(enc("ENC_%s_DPP16" % fam, 64, with_tail(v[fam], dpp16_tail()),
                     "%s with a DPP16 control dword (SRC0 = 0xFA)." % fam, extra={"base": fam}))
        E.append(enc("ENC_%s_DPP8" % fam, 64, with_tail(v[fam], dpp8_tail()),
                     "%s with a DPP8 lane-select dword (SRC0 = 0xE9, or 0xEA with FI=1)." % fam,
                     extra={"base": fam, "dpp8": True}))

    def shift32(tail):
        out = []
        for (n, k, rr, b, a) in tail:
            if k == "id":
                out.append((n, k, [(32, 9)], b, a))
            else:
                out.append((n, k, [(o + 32, w) for (o, w) in rr], b, a))
        return out
    for nm, flds, base in (("VOP3", vop3a, "VOP3"), ("VOP3SD", vop3sd, "VOP3SD"),
                           ("VOP3P", vop3p, "VOP3P")):
        d16 = [f for f in flds if f[0] != "SRC0"] + [
            f for f in shift32(dpp16_tail())
            if f[0] not in ("SRC0_NEG", "SRC0_ABS", "SRC1_NEG", "SRC1_ABS")]
        E.append(enc("ENC_%s_DPP16" % nm, 96, d16,
                     "%s with a DPP16 control dword (SRC0 = 0xFA)." % nm,
                     extra={"base": base, "vop3b": nm == "VOP3SD"}))
        d8 = [f for f in flds if f[0] != "SRC0"] + shift32(dpp8_tail())
        E.append(enc("ENC_%s_DPP8" % nm, 96, d8,
                     "%s with a DPP8 lane-select dword (SRC0 = 0xE9, or 0xEA with FI=1)." % nm,
                     extra={"base": base, "dpp8": True, "vop3b": nm == "VOP3SD"}))
    E.append(enc("ENC_VOPD", 64, [
        F("ENCODING", "enc", (26, 6), 0b110010), F("OP", "op", (17, 9)),
        F("SRC0X", "src", (0, 9), 256, 280), F("VSRC1X", "vgpr", (9, 8), 0, 48),
        F("SRC0Y", "src", (32, 9), 257, 297), F("VSRC1Y", "vgpr", (41, 8), 1, 51),
        F("VDSTY", "vgpry", (49, 7), 0, 20), F("VDSTX", "vgpr", (56, 8), 0, 40)],
        "Dual-issue VALU: two operations X and Y. OP is OPX*32+OPY (the instruction is the pair). "
        "VDSTY holds the Y destination VGPR divided by 2; its low bit is the inverse of VDSTX's.",
        # v_dual_mov_b32 as Y has no second source: llvm-mc rejects the pair unless VSRC1Y is 0.
        extra={"vopd": True, "alt_bases": [{"VSRC1Y": 0}]}))
    E.append(enc("ENC_VDS", 64, [
        F("ENCODING", "enc", (26, 6), 0b110110), F("OP", "op", (18, 8)),
        F("OFFSET1", "mod", (8, 8), 0, 3), F("OFFSET0", "mod", (0, 8), 0, 5),
        F("ADDR", "vgpr", (32, 8), 0, 40), F("DATA0", "vgpr", (40, 8), 0, 48),
        F("DATA1", "vgpr", (48, 8), 0, 56), F("VDST", "vgpr", (56, 8), 0, 64)],
        "Local data share."))
    E.append(enc("ENC_VBUFFER", 96, [
        F("ENCODING", "enc", (26, 6), 0b110001), F("OP", "op", (14, 8)),
        F("TFE", "mod", (22, 1), 0, 1), F("SOFFSET", "sreg", (0, 7), 0x7C, 20),
        F("NV", "mod", (7, 1), 0, 1),
        F("VDATA", "vgpr", (32, 8), 0, 48), F("RSRC", "sreg", (41, 9), 4, 12),
        F("SCOPE", "mod", (50, 2), 0, 1), F("TH", "mod", (52, 3), 0, 1),
        F("FORMAT", "mod", (55, 7), 1, 0x22), F("OFFEN", "mod", (62, 1), 1, 0),
        F("IDXEN", "mod", (63, 1), 0, 1),
        F("VADDR", "vgpr", (64, 8), 0, 40), F("IOFFSET", "mod", (72, 24), 0, 0x123)],
        "Buffer memory (typed and untyped). SOFFSET 0x7c is null."))
    vimg_addr = [F("VADDR0", "vgpr", (64, 8), 0, 40), F("VADDR1", "vgpr", (72, 8), 0, 41),
                 F("VADDR2", "vgpr", (80, 8), 0, 42), F("VADDR3", "vgpr", (88, 8), 0, 43)]
    E.append(enc("ENC_VIMAGE", 96, [
        F("ENCODING", "enc", (26, 6), 0b110100), F("OP", "op", (14, 8)),
        F("DIM", "mod", (0, 3), 0, 1), F("R128", "mod", (4, 1), 0, 1),
        F("D16", "mod", (5, 1), 0, 1), F("A16", "mod", (6, 1), 0, 1),
        F("DMASK", "mod", (22, 4), 1, 3),
        F("VDATA", "vgpr", (32, 8), 0, 48), F("RSRC", "sreg", (41, 9), 0, 8),
        F("NV", "mod", (7, 1), 0, 1),
        F("TFE", "mod", (55, 1), 0, 1), F("SCOPE", "mod", (50, 2), 0, 1),
        F("TH", "mod", (52, 3), 0, 1), F("VADDR4", "vgpr", (56, 8), 0, 44)] + vimg_addr,
        "Image memory without sampler. Address VGPRs are VADDR0..4 (unused ones hold 0).",
        extra={"alt_bases": [{"DMASK": 0xF, "R128": 1}, {"DMASK": 0xF},
                             {"DMASK": 0xF, "R128": 1, "A16": 1}]}))
    E.append(enc("ENC_VSAMPLE", 96, [
        F("ENCODING", "enc", (26, 6), 0b111001), F("OP", "op", (14, 8)),
        F("DIM", "mod", (0, 3), 0, 1), F("TFE", "mod", (3, 1), 0, 1),
        F("R128", "mod", (4, 1), 0, 1), F("D16", "mod", (5, 1), 0, 1),
        F("A16", "mod", (6, 1), 0, 1), F("NV", "mod", (7, 1), 0, 1),
        F("UNORM", "mod", (13, 1), 0, 1), F("DMASK", "mod", (22, 4), 1, 3),
        F("VDATA", "vgpr", (32, 8), 0, 48), F("LWE", "mod", (40, 1), 0, 1),
        F("RSRC", "sreg", (41, 9), 0, 8),
        F("SCOPE", "mod", (50, 2), 0, 1), F("TH", "mod", (52, 3), 0, 1),
        F("SAMP", "sreg", (55, 9), 0, 4)] + vimg_addr,
        "Image sample. Address VGPRs are VADDR0..3 (unused ones hold 0).",
        extra={"alt_bases": [{"DMASK": 0xF}]}))
    vflat = [F("ENCODING", "enc", (26, 6), 0b111011), F("OP", "op", (14, 7)),
             F("SADDR", "sreg", (0, 7), 0x7C, 20), F("NV", "mod", (7, 1), 0, 1),
             F("VDST", "vgpr", (32, 8), 0, 64), F("SCALE_OFFSET", "mod", (48, 1), 0, 1),
             F("SVE", "mod", (49, 1), 0, 1), F("SCOPE", "mod", (50, 2), 0, 1),
             F("TH", "mod", (52, 3), 0, 1), F("VDATA", "vgpr", (55, 8), 0, 48),
             F("VADDR", "vgpr", (64, 8), 0, 40), F("IOFFSET", "mod", (72, 24), 0, 0x123)]
    for nm, seg in (("ENC_VFLAT", 0), ("ENC_VSCRATCH", 1), ("ENC_VGLOBAL", 2)):
        extra = [F("SEG", "id", (24, 2), seg)]
        flds = [f if not (f[0] == "SVE" and seg == 1) else F("SVE", "mod", (49, 1), 1, 0)
                for f in vflat]
        E.append(enc(nm, 96, flds + extra,
                     "FLAT family, SEG=%d. SADDR 0x7c (null) prints as off. SVE=1: scratch uses "
                     "VADDR." % seg))
    E.append(enc("ENC_VEXPORT", 64, [
        F("ENCODING", "enc", (26, 6), 0b111110), F("OP", "op", []),
        F("EN", "mod", (0, 4), 0xF, 0x5), F("TARGET", "imm", (4, 6), 0, 12),
        F("DONE", "mod", (11, 1), 0, 1), F("ROW", "mod", (13, 1), 0, 1),
        F("VSRC0", "vgpr", (32, 8), 0, 40), F("VSRC1", "vgpr", (40, 8), 0, 48),
        F("VSRC2", "vgpr", (48, 8), 0, 56), F("VSRC3", "vgpr", (56, 8), 0, 64)],
        "Export. No opcode field: the single instruction has opcode 0."))
    E.append(enc("ENC_VINTERP", 64, [
        F("ENCODING", "enc", (24, 8), 0b11001101), F("OP", "op", (16, 5)),
        F("CLAMP", "mod", (15, 1), 0, 1), F("OPSEL", "mod", (11, 4), 0, 1),
        F("WAIT_EXP", "mod", (8, 3), 0, 1), F("VDST", "vgpr", (0, 8), 0, 40),
        F("SRC0", "src", (32, 9), 256, 280), F("SRC1", "src", (41, 9), 256, 296),
        F("SRC2", "src", (50, 9), 256, 312), F("NEG", "mod", (61, 3), 0, 1)],
        "Interpolation with VGPR inputs."))
    E.append(enc("ENC_VDSDIR", 32, [
        F("ENCODING", "enc", (24, 8), 0b11001110), F("OP", "op", (20, 2)),
        F("WAIT_VA_VDST", "mod", (16, 4), 0, 1), F("WAIT_VM_VSRC", "mod", (23, 1), 0, 1),
        F("ATTR", "imm", (10, 6), 0, 5), F("ATTRCHAN", "imm", (8, 2), 0, 2),
        F("VDST", "vgpr", (0, 8), 0, 40)],
        "LDS direct / parameter load."))
    return E


ARCH = {"gfx1013": ("AMD RDNA 1 (gfx1013, GFX10.1)", 5, gfx10),
        "gfx1201": ("AMD RDNA 4 (gfx1201, GFX12)", 10, gfx12)}
