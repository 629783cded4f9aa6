"""Split nvdisasm instruction text into guard, mnemonic, operands and operand tokens."""
import re

_GUARD = re.compile(r"^@(!?)(U?P(?:T|\d))\s+")
TOKEN = re.compile(
    r"(?P<reg>\bURZ\b|\bUPT\b|\bRZ\b|\bPT\b|\bUR\d+\b|\bUP\d+\b|\bR\d+\b|\bP\d+\b|\bB\d+\b|\bBZ\b|\bSR_[A-Z0-9_.]+|\bSRZ\b)"
    r"|(?P<num>[-+]?0x[0-9a-f]+|[-+]?\d+\.\d+(?:e[-+]?\d+)?|[-+]?INF|[-+]?QNAN|[-+]?NAN|\b\d+\b)")


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
    return guard, parts[0], split_ops(parts[1]) if len(parts) > 1 else []


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
