"""Print words from the probed form model and compare with nvdisasm's text."""
import re

from .probe import get_field
from .textparse import denormalize

_PH = re.compile(r"\{([A-Z0-9_]+)\}")
REG = {"R": (255, "RZ", "R%d"), "P": (7, "PT", "P%d"), "UR": (63, "URZ", "UR%d"),
       "UP": (7, "UPT", "UP%d"), "B": (None, None, "B%d")}


def index_forms(forms):
    forms = sorted(forms, key=lambda f: -len(f["mask_bits"]))
    out = []
    for f in forms:
        mask = sum(1 << b for b in f["mask_bits"])
        out.append((mask, f["example"] & mask, f))
    return out


def render_field(fd, v):
    k = fd["kind"]
    if k in ("mod", "val"):
        return fd["values"].get(v)
    if k == "prefix":
        return fd["char"] if v else ""
    rc = fd.get("rclass")
    if rc in REG:
        z, zn, fmt = REG[rc]
        return zn if v == z else fmt % v
    if rc == "SR":
        return fd.get("values", {}).get(v)
    fmt = fd.get("numfmt", "U")
    n = len(fd["bits"])
    if fmt == "F":
        return None
    if fmt == "S" and v >> (n - 1):
        v -= 1 << n
    v *= fd.get("scale", 1)
    return ("-0x%x" % -v) if v < 0 else ("0x%x" % v)


def render(f, w):
    byname = {fd["name"]: fd for fd in f["fields"]}
    guard = ""
    if "PRED" in byname:
        p = get_field(w, byname["PRED"]["bits"])
        neg = get_field(w, byname["PRED_NEG"]["bits"]) if "PRED_NEG" in byname else 0
        if p != 7 or neg:
            pre = "UP" if f["guard"].lstrip("@!").startswith("UP") else "P"
            guard = "@" + ("!" if neg else "") + (pre + "T" if p == 7 else "%s%d" % (pre, p)) + " "
    elif f["guard"]:
        guard = f["guard"] + " "
    ok = [True]

    def sub(m):
        fd = byname.get(m.group(1))
        if fd is None:
            ok[0] = False
            return "?"
        r = render_field(fd, get_field(w, fd["bits"]))
        if r is None:
            ok[0] = False
            return "?"
        return r
    syntax = f["syntax"]
    for fd in f["fields"]:
        # an OmitZero value field at zero is left out with its separator
        if fd["kind"] == "val" and fd.get("omit_zero") and get_field(w, fd["bits"]) == 0:
            syntax = syntax.replace(", {%s}" % fd["name"], "").replace(" {%s}" % fd["name"], "")
    text = guard + _PH.sub(sub, syntax)
    return text if ok[0] else None


def check(index, pairs):
    """pairs: (word, nvdisasm text). -> (n, matched, agree, mismatches by base)"""
    n = matched = agree = 0
    bad = {}
    for w, t in pairs:
        n += 1
        f = next((f for mask, val, f in index if w & mask == val), None)
        if f is None:
            bad.setdefault("<no form>", []).append(t)
            continue
        matched += 1
        p = render(f, w)
        if p is not None:
            p = denormalize(p)
        t = t.replace(".reuse", "")  # reuse flags come from scheduling bits, not modelled here
        if p == t:
            agree += 1
        else:
            bad.setdefault(f["base"], []).append((t, p))
    return n, matched, agree, bad
