#!/usr/bin/env python3
"""Convert `llvm-objdump -d` output for amdgcn objects into JSON lines.

One JSON object per instruction (or `.long` word):
  {"function": ..., "offset": ..., "bytes": ..., "text": ...}

* function: the symbol label the instruction falls under (`<name>:` lines); for code before
  any label, the section name.
* offset:   byte address printed in the trailing `// ADDR: WORDS` comment.  For relocatable
  objects (section VMA 0) this is the byte offset within the section.
* bytes:    lowercase hex in memory order, rebuilt from the printed dwords (each dword is
  printed as a big-endian number of a little-endian word, so each is byte-swapped).
* text:     the instruction text exactly as printed, without the leading tab, the padding
  and the `// ...` comment.

Usage: objdump_to_jsonl.py LISTING.txt [OUT.jsonl]   (stdlib only)
"""
import json
import re
import sys

SECTION_RE = re.compile(r"^Disassembly of section (.+):$")
LABEL_RE = re.compile(r"^([0-9a-fA-F]+) <(.*)>:$")
# text, then optional spaces, then `// ADDR: W1 W2 ...` and maybe ` <target+0x..>`
COMMENT_RE = re.compile(
    r"^(?P<text>.*?)\s*// (?P<addr>[0-9A-Fa-f]+): (?P<words>[0-9A-Fa-f]{8}(?: [0-9A-Fa-f]{8})*)(?: <[^<>]*>)?$"
)


def words_to_bytes(words):
    out = []
    for w in words.split():
        b = bytes.fromhex(w)
        out.append(b[::-1].hex())
    return "".join(out)


def convert(lines):
    section = None
    function = None
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        m = SECTION_RE.match(line)
        if m:
            section = m.group(1)
            function = None
            continue
        m = LABEL_RE.match(line)
        if m:
            function = m.group(2)
            continue
        if not line.startswith("\t"):
            continue
        body = line[1:]
        if body.strip() == "...":
            # zero-fill skipped by objdump: no instruction printed
            continue
        m = COMMENT_RE.match(body)
        if not m:
            raise SystemExit("line %d: cannot parse instruction line: %r" % (lineno, line))
        yield {
            "function": function if function is not None else section,
            "offset": int(m.group("addr"), 16),
            "bytes": words_to_bytes(m.group("words")),
            "text": m.group("text"),
        }


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        records = list(convert(f))
    out = open(sys.argv[2], "w", encoding="utf-8", newline="\n") if len(sys.argv) == 3 else sys.stdout
    for r in records:
        out.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
