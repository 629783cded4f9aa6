"""Write a form model as isa-specs XML (see isa-specs/SCHEMA.md and isa-specs/nvidia/README.md)."""
from xml.sax.saxutils import escape

BRANCH = {"BRA", "BRX", "JMP", "JMX", "CAL", "JCAL", "CALL", "RET", "EXIT", "BRK", "CONT", "SYNC",
          "KIL", "PRET", "PBK", "PCNT", "SSY", "PEXIT", "BREAK", "BSYNC", "BSSY", "WARPSYNC", "KILL"}
INDIRECT = {"BRX", "JMX", "RET"}
# Control-flow kinds beyond IsBranch (isa-specs/SCHEMA.md): calls, returns, branch-listed
# instructions that never jump (they name a target or touch the reconvergence state), jumps to
# the target on the reconvergence stack, and instructions that end the thread.
CALL = {"CAL", "JCAL", "CALL"}
RETURN = {"RET"}
NO_JUMP = {"SSY", "PBK", "PCNT", "BSSY", "PRET", "PEXIT", "PLONGJMP", "BREAK", "BSYNC", "WARPSYNC"}
STACK_JUMP = {"SYNC", "BRK", "CONT"}
TERMINATOR = {"EXIT", "KIL", "KILL"}
REGTYPE = {"R": ("OPR_REG", "R%d", {255: "RZ"}), "P": ("OPR_PRED", "P%d", {7: "PT"}),
           "UR": ("OPR_UREG", "UR%d", {63: "URZ"}), "UP": ("OPR_UPRED", "UP%d", {7: "UPT"}),
           "B": ("OPR_BREG", "B%d", {})}
CTRL_FIELDS_86 = [("STALL", 105, 4), ("YIELD", 109, 1), ("WRBAR", 110, 3), ("RDBAR", 113, 3),
                  ("WAITMASK", 116, 6), ("REUSE", 122, 4)]


def bin_str(v, n):
    return format(v, "0%db" % n)


def ranges(bits):
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


def field_xml(name, bits, ind):
    s = ind + "<Field>\n" + ind + "  <FieldName>%s</FieldName>\n" % name + ind + "  <BitLayout>\n"
    for o, r in enumerate(ranges(bits)):
        s += ind + '    <Range Order="%d"><BitCount>%d</BitCount><BitOffset>%d</BitOffset></Range>\n' % (o, len(r), r[0])
    return s + ind + "  </BitLayout>\n" + ind + "</Field>\n"


def opnd_type(fd, types):
    """Register the OperandType of a field; return (type name, data format, size)."""
    k = fd["kind"]
    if k == "PRED":
        return "OPR_PRED", "FMT_PRED", 1
    if k == "PRED_NEG":
        return "OPR_GUARD_NEG", "FMT_PRED", 1
    if k == "prefix":
        nm = {"-": "OPR_NEG", "|": "OPR_ABS", "!": "OPR_NOT", "~": "OPR_INV"}[fd["char"]]
        types.setdefault(nm, {1: fd["char"]})
        return nm, "FMT_MOD", 1
    if k in ("mod", "val"):
        vals = {v: s for v, s in sorted(fd["values"].items())}
        base = "OPR_" + fd["name"].rstrip("0123456789")
        nm, i = base, 2
        while nm in types and types[nm] != vals:
            nm = "%s_%d" % (base, i)
            i += 1
        types[nm] = vals
        return nm, "FMT_MOD", len(fd["bits"])
    rc = fd.get("rclass")
    if rc in REGTYPE:
        return REGTYPE[rc][0], "FMT_NUM_B32", 32
    if rc == "SR":
        vals = fd.get("values", {})
        nm, i = "OPR_SREG", 2
        while nm in types and types[nm] != vals:
            nm = "OPR_SREG_%d" % i
            i += 1
        types[nm] = vals
        return nm, "FMT_NUM_B32", 32
    fmt = fd.get("numfmt", "U")
    nm = {"U": "OPR_UIMM", "S": "OPR_SIMM", "F": "OPR_FIMM"}[fmt]
    return nm, "FMT_NUM_B32" if fmt != "F" else "FMT_NUM_F32", len(fd["bits"])


def emit(arch, forms, path, provenance, suffix_order=None):
    nb = 64 if arch == 50 else 128
    opbits = list(range(51, 64)) if arch == 50 else list(range(0, 12))
    types = {}
    for nm, (_t, _f, pre) in ():
        pass
    for rc, (tn, _fmt, pre) in REGTYPE.items():
        types[tn] = {v: s for v, s in pre.items()}
    types["OPR_PRED"] = {7: "PT"}
    types["OPR_GUARD_NEG"] = {1: "!"}
    enc_xml, by_base = [], {}
    for f in forms:
        mask = sum(1 << b for b in f["mask_bits"])
        value = f["example"] & mask
        s = "      <Encoding>\n"
        s += "        <EncodingName>%s</EncodingName>\n" % f["enc_name"]
        s += "        <BitCount>%d</BitCount>\n" % nb
        s += '        <EncodingIdentifierMask Radix="2">%s</EncodingIdentifierMask>\n' % bin_str(mask, nb)
        s += '        <EncodingIdentifiers><EncodingIdentifier Radix="2">%s</EncodingIdentifier></EncodingIdentifiers>\n' % bin_str(value, nb)
        s += "        <Description>example 0x%0*x: %s</Description>\n" % (nb // 4, f["example"], escape(f["text"]))
        s += "        <Syntax>%s</Syntax>\n" % escape(f["syntax"])
        s += "        <MicrocodeFormat><BitMap>\n"
        s += field_xml("OP", [b for b in opbits if b in f["mask_bits"]], "          ")
        for fd in f["fields"]:
            s += field_xml(fd["name"], fd["bits"], "          ")
        for k, name in sorted(f.get("reuse", {}).items()):
            s += field_xml("REUSE_" + name, [122 + k], "          ")
        if arch == 86:
            for name, off, n in CTRL_FIELDS_86:
                s += field_xml(name, list(range(off, off + n)), "          ")
        s += "        </BitMap></MicrocodeFormat>\n      </Encoding>\n"
        enc_xml.append(s)
        by_base.setdefault(f["base"], []).append(f)
    ins_xml = []
    for base in sorted(by_base):
        s = "      <Instruction>\n        <InstructionName>%s</InstructionName>\n" % escape(base)
        s += "        <InstructionFlags><IsBranch>%s</IsBranch><IsConditionalBranch>FALSE</IsConditionalBranch>" \
             "<IsIndirectBranch>%s</IsIndirectBranch><IsProgramTerminator>%s</IsProgramTerminator>%s</InstructionFlags>\n" % (
                 "TRUE" if base in BRANCH else "FALSE", "TRUE" if base in INDIRECT else "FALSE",
                 "TRUE" if base in TERMINATOR else "FALSE",
                 ("<IsCall>TRUE</IsCall>" if base in CALL else "") + ("<IsReturn>TRUE</IsReturn>" if base in RETURN else "")
                 + ("<IsNoJump>TRUE</IsNoJump>" if base in NO_JUMP else "")
                 + ("<IsStackJump>TRUE</IsStackJump>" if base in STACK_JUMP else ""))
        so = (suffix_order or {}).get(base)
        if so:
            # nvdisasm's suffix order (nvspec.order): a printer sorts suffixes stably by rank
            s += "        <SuffixOrder>%s</SuffixOrder>\n" % "".join(
                '<Suffix Rank="%d">%s</Suffix>' % (r, escape(x)) for x, r in so)
        s += "        <InstructionEncodings>\n"
        for f in by_base[base]:
            opv = sum(((f["example"] >> b) & 1) << i for i, b in enumerate(x for x in opbits if x in f["mask_bits"]))
            s += "          <InstructionEncoding>\n            <EncodingName>%s</EncodingName>\n" % f["enc_name"]
            s += "            <EncodingCondition>default</EncodingCondition>\n"
            s += '            <Opcode Radix="10">%d</Opcode>\n            <Operands>\n' % opv
            for order, fd in enumerate(f["print_order"]):
                tn, fmt, size = opnd_type(fd, types)
                role = fd.get("role", "in")
                s += '              <Operand Input="%s" Output="%s" IsImplicit="false" Order="%d">' % (
                    "true" if role != "out" else "false", "true" if role == "out" else "false", order)
                s += "<FieldName>%s</FieldName><DataFormatName>%s</DataFormatName><OperandType>%s</OperandType>" \
                     "<OperandSize>%d</OperandSize>" % (fd["name"], fmt, tn, size)
                if fd.get("scale", 1) != 1:
                    s += "<Scale>%d</Scale>" % fd["scale"]
                if fd.get("omit_zero"):
                    s += "<OmitZero>TRUE</OmitZero>"
                s += "</Operand>\n"
            s += "            </Operands>\n          </InstructionEncoding>\n"
        s += "        </InstructionEncodings>\n      </Instruction>\n"
        ins_xml.append(s)
    ty_xml = []
    for tn in sorted(types):
        vals = types[tn]
        s = "      <OperandType>\n        <OperandTypeName>%s</OperandTypeName>\n" % tn
        if vals:
            s += "        <OperandPredefinedValues>\n"
            for v in sorted(vals):
                s += "          <PredefinedValue><Name>%s</Name><Value>%d</Value></PredefinedValue>\n" % (escape(vals[v]), v)
            s += "        </OperandPredefinedValues>\n"
        ty_xml.append(s + "      </OperandType>\n")
    with open(path, "w") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<Spec>\n  <Document>\n')
        out.write("    <Copyright>Derived by probing NVIDIA nvdisasm 12.8; no NVIDIA documentation used.</Copyright>\n")
        out.write("    <SchemaVersion>isabridge-1</SchemaVersion>\n")
        out.write("    <Provenance>%s</Provenance>\n  </Document>\n" % escape(provenance))
        out.write("  <ISA>\n    <Architecture><ArchitectureName>%s</ArchitectureName><ArchitectureId>%d</ArchitectureId></Architecture>\n"
                  % ("Maxwell sm_50" if arch == 50 else "Ampere sm_86", arch))
        out.write("    <Encodings>\n" + "".join(enc_xml) + "    </Encodings>\n")
        out.write("    <Instructions>\n" + "".join(ins_xml) + "    </Instructions>\n")
        out.write("    <OperandTypes>\n" + "".join(ty_xml) + "    </OperandTypes>\n  </ISA>\n</Spec>\n")
