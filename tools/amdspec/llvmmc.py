"""Batch disassembly through llvm-mc-22.

Each candidate is written on its own line as a bracketed byte group, padded with three
`s_nop 0` dwords (so a truncated instruction never reaches the end of the group, which
crashes llvm-mc), and followed by a sentinel group `s_nop 0x3fa5`.  Stdout is split on the
sentinel lines; stderr warnings carry line:column, which tells which candidate's first dword
was rejected.
"""
import re
import subprocess
import tempfile
import os

LLVM_MC = os.environ.get("LLVM_MC", "llvm-mc-22")
PAD = bytes([0x00, 0x00, 0x80, 0xBF])          # s_nop 0 (also -1.0 as a literal)
SENTINEL = bytes([0xA5, 0x3F, 0x80, 0xBF])     # s_nop 0x3fa5
SENTINEL_TEXT = "s_nop 0x3fa5"
CHUNK = 40000

_line_re = re.compile(r"^\t(.*?)\s*; encoding: \[([0-9a-fx,]*)\]\s*$")
_err_re = re.compile(r"^<stdin>:(\d+):(\d+): warning: invalid instruction encoding")


def version():
    out = subprocess.run([LLVM_MC, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"LLVM version ([0-9.]+)", out)
    return m.group(1) if m else "unknown"


def _grp(b):
    return "[" + ",".join("0x%02x" % x for x in b) + "]"


def _run_chunk(mcpu, cands, npad):
    lines = []
    for c in cands:
        lines.append(_grp(bytes(c) + PAD * npad))
        lines.append(_grp(SENTINEL))
    text = "\n".join(lines) + "\n"
    p = subprocess.run([LLVM_MC, "--disassemble", "-arch=amdgcn", "-mcpu=" + mcpu,
                        "-show-encoding"], input=text, capture_output=True, text=True)
    if p.returncode < 0:
        raise Crash()
    if p.returncode not in (0, 1):
        raise RuntimeError("llvm-mc failed (rc=%d): %s" % (p.returncode, p.stderr[-2000:]))
    invalid = set()
    for l in p.stderr.splitlines():
        m = _err_re.match(l)
        if m and int(m.group(2)) == 2:
            ln = int(m.group(1))
            if ln % 2 == 1:
                invalid.add((ln - 1) // 2)
    groups = [[]]
    for l in p.stdout.splitlines():
        m = _line_re.match(l)
        if not m:
            continue
        t = m.group(1).strip()
        if t == SENTINEL_TEXT and m.group(2) == "0xa5,0x3f,0x80,0xbf":
            groups.append([])
            continue
        enc = bytes(int(x, 16) for x in m.group(2).split(",") if x)
        groups[-1].append((t, enc))
    groups = groups[:-1]
    if len(groups) != len(cands):
        raise RuntimeError("group mismatch %d vs %d" % (len(groups), len(cands)))
    res = []
    for i, g in enumerate(groups):
        if i in invalid or not g:
            res.append(None)
        else:
            res.append(g[0])
    return res


class Crash(Exception):
    pass


def _safe_chunk(mcpu, cands, npad):
    """Run a chunk; if llvm-mc crashes on some word, bisect and report those words as None."""
    try:
        return _run_chunk(mcpu, cands, npad)
    except Crash:
        if len(cands) == 1:
            return [None]
        h = len(cands) // 2
        return _safe_chunk(mcpu, cands[:h], npad) + _safe_chunk(mcpu, cands[h:], npad)


def disasm(mcpu, cands, npad=4):
    """cands: list of bytes. Returns list of (text, canonical_encoding_bytes) or None."""
    out = []
    for i in range(0, len(cands), CHUNK):
        out.extend(_safe_chunk(mcpu, cands[i:i + CHUNK], npad))
    return out
