"""Write the machine-readable reference for one cubin: one JSON object per instruction.

usage: python3 -m nvspec.corpus_ref CUBIN SM OUT.jsonl LISTING.txt

Each object: function (symbol containing the instruction), section, offset (as nvdisasm
prints it: from the start of the code section), bytes (lowercase hex, memory order),
text (nvdisasm 12.8 on the section's raw bytes, `-b SMxx`: branch targets are absolute
addresses), listing_text (the same instruction in the cubin listing, which may use labels
and annotations), vliw ("{" / "}" where sm50 nvdisasm brackets a dual-issue pair; the
braces are not part of text), and for sm50 ctrl (the bundle's control word, hex).
"""
import json
import re
import subprocess
import sys

from . import nvdis
from .cubin import Cubin

_SEC = re.compile(r"^\s*\.section\s+([^,\s]+)")


def listing_by_section(listing_text, arch):
    out, cur, buf = {}, None, []
    for line in listing_text.splitlines():
        m = _SEC.match(line)
        if m:
            if cur is not None:
                out[cur] = nvdis.parse_listing("\n".join(buf), arch)
            cur, buf = m.group(1), []
        elif cur is not None:
            buf.append(line)
    if cur is not None:
        out[cur] = nvdis.parse_listing("\n".join(buf), arch)
    return out


def main(argv):
    cubin_path, sm, out_path, listing_path = argv[0], int(argv[1]), argv[2], argv[3]
    cub = Cubin(open(cubin_path, "rb").read())
    listing = subprocess.run([nvdis.NVDISASM, "-c", "-hex", cubin_path], capture_output=True,
                             text=True, check=True).stdout
    with open(listing_path, "w") as f:
        f.write(listing)
    lst = listing_by_section(listing, sm)
    rows = []
    for sec in cub.code_sections():
        rc, out, err = nvdis.run_raw(sec.data, sm)
        if rc != 0:
            raise SystemExit("%s %s: nvdisasm -b failed: %s" % (cubin_path, sec.name, err.strip()))
        raw = nvdis.parse_listing(out, sm)
        by_off = {e["offset"]: e for e in lst.get(sec.name, [])}
        funcs = cub.functions_in(sec)
        for e in raw:
            off = e["offset"]
            size = 8 if sm == 50 else 16
            b = sec.data[off:off + size]
            words = [int.from_bytes(b[k:k + 8], "little") for k in range(0, size, 8)]
            if words != e["words"]:
                raise SystemExit("%s %s+%#x: listing hex %s != bytes %s" % (cubin_path, sec.name, off, e["words"], words))
            fn = [n for o, n in funcs if o <= off][-1]
            row = {"function": fn, "section": sec.name, "offset": off, "bytes": b.hex(),
                   "text": nvdis.clean_text(e["text"])}
            if e.get("vliw"):
                row["vliw"] = e["vliw"]
            le = by_off.get(off)
            row["listing_text"] = nvdis.clean_text(le["text"]) if le else None
            if sm == 50:
                bundle = off & ~31
                row["ctrl"] = "%016x" % int.from_bytes(sec.data[bundle:bundle + 8], "little")
                if e["ctrl"] is not None and e["ctrl"] != int(row["ctrl"], 16):
                    raise SystemExit("%s: control word mismatch at %#x" % (cubin_path, off))
            rows.append(row)
    with open(out_path, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=False) + "\n")
    return len(rows)


if __name__ == "__main__":
    n = main(sys.argv[1:])
    print("%s: %d instructions" % (sys.argv[3], n))
