"""Name the probed fields, build print templates, and print words from the model."""
import re

from .textparse import parse, tokens, reg_class, TOKEN

REGNAMES = {"R": ["RA", "RB", "RC", "RE", "RF", "RG", "RH"], "P": ["PA", "PB", "PC", "PE"],
            "UR": ["URA", "URB", "URC", "URE"], "UP": ["UPA", "UPB", "UPC"], "B": ["BA", "BB"]}
DEST = {"R": "RD", "P": "PD", "UR": "URD", "UP": "UPD", "B": "BD"}
PREFIX_NAME = {"-": "NEG", "|": "ABS", "!": "NOT", "~": "INV"}
ROUND = {".RN", ".RM", ".RP", ".RZ"}


def mod_name(values):
    sp = sorted({s for s in values.values() if s})
    if sp and set(sp) <= ROUND:
        return "RND"
    if sp == [".FTZ"]:
        return "FTZ"
    if sp == [".SAT"]:
        return "SAT"
    words = []
    for s in sp:
        for w in s.strip(".").split("."):
            if w not in words:
                words.append(w)
    return "MOD_" + "_".join(words[:4]).replace("-", "M") if words else "MOD_NONE"


def val_name(f, fd):
    """Name of an operand value field (probe.value_fields): `SET` for a barrier set `{5,3,0}`,
    `SEL_<register field>` for a suffix right after a register (`.H0`), else the letters the
    spellings start with (`SB`), else `OPV`."""
    sp = [s for s in fd["values"].values() if s]
    if sp and all(re.match(r"^\{[0-9,]*\}$", s) for s in sp):
        return "SET"
    a = fd["span"][0]
    if sp and all(s.startswith(".") for s in sp):
        for x in f["fields"]:
            if x["kind"] == "tok" and x["op"] == fd["op"] and x.get("name"):
                spans = [(m.start(), m.end()) for m in TOKEN.finditer(f["ops"][fd["op"]])]
                if x["tok"] < len(spans) and spans[x["tok"]][1] == a:
                    return "SEL_" + x["name"]
        return "SEL"
    lead = re.match(r"^[A-Z]+", sp[0]) if sp else None
    if lead and all(s.startswith(lead.group(0)) for s in sp):
        return lead.group(0)
    return "OPV"


def name_fields(f):
    """Assign names and the print template (syntax) to a form."""
    used = set()

    def uniq(n):
        k, m = 2, n
        while m in used:
            m = "%s%d" % (n, k)
            k += 1
        used.add(m)
        return m

    for fd in f["fields"]:
        if fd["kind"] in ("PRED", "PRED_NEG"):
            fd["name"] = uniq(fd["kind"])
    counters = {}
    ops = f["ops"]
    tok_field = {}
    for fd in f["fields"]:
        if fd["kind"] == "tok":
            tok_field[(fd["op"], fd["tok"])] = fd
    f["tok_field"] = dict(tok_field)
    for fd in f["fields"]:
        if fd["kind"] == "tok":
            for kj in fd.get("tied", []):
                f["tok_field"].setdefault(tuple(kj), fd)
    for k, op in enumerate(ops):
        skel, toks = tokens(op)
        for j, (kind, txt) in enumerate(toks):
            fd = tok_field.get((k, j))
            if not fd:
                continue
            if kind == "reg":
                rc = reg_class(txt)
                fd["rclass"] = rc
                if rc == "SR":
                    fd["name"] = uniq("SR")
                elif k == 0 and skel.strip("-|!~").startswith("#") and rc in DEST:
                    fd["name"] = uniq(DEST[rc])
                else:
                    lst = REGNAMES.get(rc, [rc])
                    c = counters.get(rc, 0)
                    counters[rc] = c + 1
                    fd["name"] = uniq(lst[c] if c < len(lst) else "%s%d" % (lst[0], c))
            else:
                fd["rclass"] = "NUM"
                if skel.lstrip("-|").startswith("c[#][") and j == 0:
                    fd["name"] = uniq("CBUF_BANK")
                elif skel.lstrip("-|").startswith("c[#][#]") and j == 1:
                    fd["name"] = uniq("CBUF_OFFSET")
                else:
                    fd["name"] = uniq("IMM")
    for fd in f["fields"]:
        if fd["kind"] == "val":
            fd["name"] = uniq(val_name(f, fd))
    for fd in f["fields"]:
        if fd["kind"] == "prefix":
            target = [x for x in f["fields"] if x["kind"] == "tok" and x["op"] == fd["op"]]
            on = target[0]["name"] if target else "OP%d" % fd["op"]
            fd["name"] = uniq(PREFIX_NAME[fd["char"]] + "_" + on)
        elif fd["kind"] == "mod":
            fd["name"] = uniq(mod_name(fd["values"]))
    f["syntax"] = template(f)


def template(f):
    g, mn, ops = f["guard"], f["mnemonic"], f["ops"]
    parts = mn.split(".")
    base, suf = parts[0], parts[1:]
    ex = f["example"]
    slots = []  # (start, end, name)
    for fd in f["fields"]:
        if fd["kind"] != "mod":
            continue
        v = sum(((ex >> b) & 1) << i for i, b in enumerate(fd["bits"]))
        sp = fd["values"].get(v, "")
        n = len([s for s in sp.split(".") if s])
        slots.append((fd["pos"], fd["pos"] + n, fd["name"]))
    slots.sort()
    out, i = base, 0
    for (s, e, name) in slots:
        while i < s and i < len(suf):
            out += "." + suf[i]
            i += 1
        out += "{%s}" % name
        i = max(i, e)
    while i < len(suf):
        out += "." + suf[i]
        i += 1
    optxt = []
    for k, op in enumerate(ops):
        pre = [fd for fd in f["fields"] if fd["kind"] == "prefix" and fd["op"] == k]
        val = [fd for fd in f["fields"] if fd["kind"] == "val" and fd["op"] == k]
        if val:
            # the value field's span becomes a marker (no token, kept by the skeleton)
            a, b = val[0]["span"]
            op = op[:a] + "\x01" + op[b:]
        core = op
        chars = {fd["char"]: fd["name"] for fd in pre}
        lead = ""
        if "-" in chars and core.startswith("-"):
            core = core[1:]
        if "|" in chars and core.startswith("|") and core.endswith("|"):
            core = core[1:-1]
        for ch in "!~":
            if ch in chars and core.startswith(ch):
                core = core[1:]
        for ch in "-!~|":
            if ch in chars:
                lead += "{%s}" % chars[ch]
        trail = "{%s}" % chars["|"] if "|" in chars else ""
        skel, toks = tokens(core)
        off = len(tokens(op)[1]) - len(toks)  # tokens eaten by the prefix strip (none normally)
        pieces = skel.split("#")
        s = pieces[0]
        for j, (kind, txt) in enumerate(toks):
            fd = f["tok_field"].get((k, j + off))
            s += ("{%s}" % fd["name"]) if fd else txt
            s += pieces[j + 1]
        if val:
            s = s.replace("\x01", "{%s}" % val[0]["name"])
        optxt.append(lead + s + trail)
    return out + (" " + ", ".join(optxt) if optxt else "")
