"""Split nvdisasm instruction text into guard, mnemonic, operands and operand tokens."""
import re

_GUARD = re.compile(r"^@(!?)(U?P(?:T|\d))\s+")
TOKEN = re.compile(
    r"(?P<reg>\bURZ\b|\bUPT\b|\bRZ\b|\bPT\b|\bUR\d+\b|\bUP\d+\b|\bR\d+\b|\bP\d+\b|\bB\d+\b|\bBZ\b|\bSR_[A-Z0-9_.]+|\bSRZ\b)"
    r"|(?P<num>-?0x[0-9a-f]+|-?\d+\.\d+(?:e[-+]?\d+)?|[-+]?INF|[-+]?QNAN|[-+]?NAN|\b\d+\b)")


def split_ops(s):
    ops, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ops


_MEM_NOOFF = re.compile(r"\[((?:U?R[0-9Z]+)(?:\.[A-Z0-9]+)*)\]")
_MEM_NOREG = re.compile(r"\[(-?0x[0-9a-f]+)\]")


def normalize_op(op):
    """Make zero offsets and absent base registers explicit: [R2] -> [R2+0x0],
    [0x10] -> [RZ+0x10] (the printer drops them again)."""
    op = _MEM_NOOFF.sub(lambda m: "[" + m.group(1) + "+0x0]", op)
    return _MEM_NOREG.sub(lambda m: "[RZ+" + m.group(1) + "]", op)


def denormalize(text):
    text = re.sub(r"\+0x0\]", "]", text)
    return text.replace("[RZ+", "[")


def parse(text):
    """-> (guard, mnemonic, [operands])"""
    guard = ""
    m = _GUARD.match(text)
    if m:
        guard = m.group(0).strip()
        text = text[m.end():]
    parts = text.split(None, 1)
    if not parts:
        return guard, "", []
    return guard, parts[0], [normalize_op(o) for o in split_ops(parts[1])] if len(parts) > 1 else []


def tokens(op):
    """-> (skeleton, [(kind, text)]) where the skeleton has '#' for every token."""
    toks, skel, pos = [], "", 0
    for m in TOKEN.finditer(op):
        skel += op[pos:m.start()] + "#"
        kind = "reg" if m.group("reg") else "num"
        toks.append((kind, m.group(0)))
        pos = m.end()
    skel += op[pos:]
    return skel, toks


def reg_class(tok):
    for p in ("SR", "UR", "UP", "R", "P", "B"):
        if tok.startswith(p):
            return p
    return "?"
