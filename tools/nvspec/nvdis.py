"""Wrapper around nvdisasm 12.8: batched raw-word disassembly and listing parsing."""
import os
import re
import subprocess
import tempfile

TOOLS = os.environ.get("TOOLS", "/opt/oracles")
NVDISASM = os.environ.get("NVDISASM", os.path.join(TOOLS, "nvdisasm12"))

# sm50 filler bundle: control word + 3 NOPs, known to be accepted.
SM50_FILL_CTRL = 0x001F8000FC0007E0
SM50_NOP = 0x50B0000000070F00
SM86_NOP = (0x000FC00000000000 << 64) | 0x0000000000007918

_LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s*(.*?)\s*(?:/\* (0x[0-9a-f]{16}) \*/)?\s*$")
_HEX = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/\s*$")
_ILLEGAL = re.compile(r"(?:address|offset)\s*(0x[0-9a-f]+)", re.I)


def clean_text(t):
    """nvdisasm text without the trailing ' ;' (also ';' glued to the text)."""
    t = t.rstrip()
    if t.endswith(";"):
        t = t[:-1].rstrip()
    return t


def parse_listing(out, arch):
    """Parse `nvdisasm -hex` output. Returns a list of dicts:
    {offset, text, words:[u64...], vliw, ctrl (sm50 only)} in listing order.
    vliw is "{" or "}" when sm50 nvdisasm prints a dual-issue pair in braces (the braces are
    removed from text), else None."""
    res = []
    ctrl = None
    cur = None
    for line in out.splitlines():
        m = _LINE.match(line)
        if m:
            text, vliw = m.group(2), None
            if text.startswith("{"):
                text, vliw = text[1:].strip(), "{"
            elif text.endswith("}"):
                text, vliw = text[:-1].strip(), "}"
            cur = {"offset": int(m.group(1), 16), "text": text, "words": [], "vliw": vliw}
            if m.group(3):
                cur["words"].append(int(m.group(3), 16))
            if arch == 50:
                cur["ctrl"] = ctrl
            res.append(cur)
            continue
        m = _HEX.match(line)
        if m:
            w = int(m.group(1), 16)
            if arch == 50 and (cur is None or cur["words"]):
                ctrl = w  # a lone hex line on sm50 is the bundle's control word
                cur = None
            elif cur is not None:
                cur["words"].append(w)
            continue
        if line.strip():
            cur = None
    return res


def run_raw(blob, arch, extra=()):
    """Disassemble raw bytes. Returns (rc, stdout, stderr)."""
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        f.write(blob)
        path = f.name
    try:
        p = subprocess.run([NVDISASM, "-b", "SM%d" % arch, "-hex", *extra, path],
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr
    finally:
        os.unlink(path)


def illegal_offsets(stderr):
    return sorted({int(x, 16) for x in _ILLEGAL.findall(stderr)})
