"""Shared helpers: word packing and llvm-mc text parsing."""
import re

FLAGS = {"glc", "slc", "dlc", "offen", "idxen", "lds", "tfe", "lwe", "unorm", "r128", "a16",
         "d16", "da", "gds", "done", "vm", "compr", "clamp", "nv", "row_en", "fi",
         "bound_ctrl", "scale_offset", "high"}


def field_mask_value(field, value):
    """Spread value over the field's ranges (least significant range first)."""
    name, kind, ranges, base, alt = field
    w = 0
    shift = 0
    for off, cnt in ranges:
        w |= ((value >> shift) & ((1 << cnt) - 1)) << off
        shift += cnt
    return w


def field_width(field):
    return sum(c for _, c in field[2])


def field_mask(field):
    return field_mask_value(field, (1 << field_width(field)) - 1)


def field_get(field, word):
    v = 0
    shift = 0
    for off, cnt in field[2]:
        v |= ((word >> off) & ((1 << cnt) - 1)) << shift
        shift += cnt
    return v


def pack(enc, values, nbytes=None):
    w = 0
    for f in enc["fields"]:
        v = values.get(f[0], f[3])
        w |= field_mask_value(f, v)
    nb = nbytes or enc["bits"] // 8
    return w.to_bytes(nb, "little")


def split_top(s, seps):
    """Split s at top-level (outside () and []) separator characters; returns (token, sep)."""
    out = []
    depth = 0
    cur = ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if depth == 0 and ch in seps:
            out.append((cur, ch))
            cur = ""
        else:
            cur += ch
    out.append((cur, ""))
    return out


def is_modifier(tok):
    if tok in FLAGS:
        return True
    if re.match(r"^[a-z_0-9]+:", tok):
        return True
    return False


def parse_one(text):
    """'mnemonic op, op op mod mod' -> (mnemonic, [operands], [modifiers])."""
    text = text.strip()
    if " " not in text:
        return text, [], []
    mn, rest = text.split(" ", 1)
    if mn == "s_delay_alu":
        return mn, [rest], []
    toks = split_top(rest, ", ")
    ops, mods = [], []
    prev_sep = ","
    for tok, sep in toks:
        if tok == "":
            prev_sep = sep if sep == "," else prev_sep
            continue
        if is_modifier(tok) or tok == "|":
            mods.append(tok)
        elif prev_sep == " " and ops and mn not in ("exp", "export") and not mods:
            ops[-1] = ops[-1] + " " + tok
        else:
            if mods and prev_sep != ",":
                # an operand-looking token after modifiers (e.g. s_delay_alu parts)
                mods.append(tok)
            else:
                ops.append(tok)
        prev_sep = sep
    return mn, ops, mods


def parse(text):
    """Handles VOPD 'X ... :: Y ...'. Returns (mnemonic, operands, modifiers).
    llvm-mc's /* ... */ remarks (invalid register class etc.) are dropped."""
    text = re.sub(r"/\*.*?\*/", "", text)
    if " :: " in text:
        a, b = text.split(" :: ", 1)
        m1, o1, d1 = parse_one(a)
        m2, o2, d2 = parse_one(b)
        return m1 + "::" + m2, o1 + o2, d1 + d2
    return parse_one(text)


def core(op):
    """Strip printing modifiers around a register/constant."""
    s = op
    changed = True
    while changed:
        changed = False
        for pre, post in (("-", ""), ("|", "|"), ("neg(", ")"), ("abs(", ")"), ("sext(", ")"),
                          ("lit(", ")")):
            if s.startswith(pre) and s.endswith(post) and len(s) > len(pre) + len(post):
                s = s[len(pre):len(s) - len(post)] if post else s[len(pre):]
                changed = True
    return s


SUFFIXES = ("_e32", "_e64_dpp", "_e64", "_dpp8", "_dpp", "_sdwa")


def base_name(mn):
    parts = mn.split("::")
    out = []
    for p in parts:
        for suf in SUFFIXES:
            if p.endswith(suf):
                p = p[:-len(suf)]
                break
        out.append(p)
    return "::".join(out).upper()


def reg_size(tok):
    t = core(tok)
    m = re.match(r"^(?:s|v|ttmp|a)\[(\d+):(\d+)\]$", t)
    if m:
        return 32 * (int(m.group(2)) - int(m.group(1)) + 1)
    if t.startswith("[") and t.endswith("]"):
        return sum(reg_size(x.strip()) or 32 for x in t[1:-1].split(","))
    if re.match(r"^(?:s|v|ttmp|a)\d+$", t):
        return 32
    if t in ("vcc", "exec", "flat_scratch", "xnack_mask", "tba", "tma"):
        return 64
    if re.match(r"^[a-z_]+_(lo|hi)$", t) or t in ("m0", "null", "scc", "src_scc", "vccz",
                                                     "execz", "off"):
        return 32
    return None
