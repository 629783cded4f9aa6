#!/usr/bin/env python3
"""Derive the register layout of NVIDIA texture instructions from ptxas.

Each form below is one PTX texture instruction whose coordinate / LOD / gradient / array-index
inputs are distinct constants (floats 1.0, 2.0, ... or integers 0x101, 0x102, ...) and whose
used result channels are stored to distinct words of `out`. The script compiles the PTX with
ptxas 12 for sm_50 and sm_86, lists it with nvdisasm, follows constants and copies through the
straight-line SASS, and prints per texture instruction which constant each source register
holds and which result channel each destination register receives. The facts in
crates/decoder/src/lift/sm86/tex.rs come from its output (`tools/tex_layout.py`, or
`tools/tex_layout.py --ptx` for the PTX alone).

Usage: tools/tex_layout.py [--ptx] [--arch 50|86]
"""
import re
import struct
import subprocess
import sys
import tempfile
import os

PTXAS = os.environ.get("PTXAS", "/opt/oracles/ptxas12")
NVDISASM = os.environ.get("NVDISASM", "/opt/oracles/nvdisasm12")

# (name, PTX with {d} = the result vector, {h} = handle, inputs as F<k> (float k) or I<k>
#  (integer 0x100 + k), used = result channels stored, vector = the result vector size)
FORMS = [
    ("tex2d", "tex.2d.v4.f32.f32 {d}, [{h}, {{F1, F2}}];", [0, 1, 2, 3]),
    ("tex2d_z", "tex.2d.v4.f32.f32 {d}, [{h}, {{F3, F4}}];", [2]),
    ("tex2d_xw", "tex.2d.v4.f32.f32 {d}, [{h}, {{F5, F6}}];", [0, 3]),
    ("tex2d_yzw", "tex.2d.v4.f32.f32 {d}, [{h}, {{F7, F8}}];", [1, 2, 3]),
    ("tex2d_xyz", "tex.2d.v4.f32.f32 {d}, [{h}, {{F9, F10}}];", [0, 1, 2]),
    ("tex2d_y", "tex.2d.v4.f32.f32 {d}, [{h}, {{F11, F12}}];", [1]),
    ("tex1d", "tex.1d.v4.f32.f32 {d}, [{h}, {{F13}}];", [0, 1, 2, 3]),
    ("tex1d_s32", "tex.1d.v4.f32.s32 {d}, [{h}, {{I14}}];", [0, 1, 2, 3]),
    ("tex3d", "tex.3d.v4.f32.f32 {d}, [{h}, {{F15, F16, F17, F17}}];", [0, 1, 2, 3]),
    ("texcube", "tex.cube.v4.f32.f32 {d}, [{h}, {{F18, F19, F20, F20}}];", [0, 1, 2, 3]),
    ("texa1d", "tex.a1d.v4.f32.f32 {d}, [{h}, {{I21, F22}}];", [0, 1, 2, 3]),
    ("texa2d", "tex.a2d.v4.f32.f32 {d}, [{h}, {{I23, F24, F25, F25}}];", [0, 1, 2, 3]),
    ("level2d", "tex.level.2d.v4.f32.f32 {d}, [{h}, {{F26, F27}}], F28;", [0, 1, 2, 3]),
    ("level3d", "tex.level.3d.v4.f32.f32 {d}, [{h}, {{F29, F30, F31, F31}}], F32;", [0, 1, 2, 3]),
    ("levela2d", "tex.level.a2d.v4.f32.f32 {d}, [{h}, {{I33, F34, F35, F35}}], F36;", [0, 1, 2, 3]),
    ("levela1d", "tex.level.a1d.v4.f32.f32 {d}, [{h}, {{I37, F38}}], F39;", [0, 1, 2, 3]),
    ("levelcube", "tex.level.cube.v4.f32.f32 {d}, [{h}, {{F40, F41, F42, F42}}], F43;", [0, 1, 2, 3]),
    ("grad2d", "tex.grad.2d.v4.f32.f32 {d}, [{h}, {{F44, F45}}], {{F46, F47}}, {{F48, F49}};", [0, 1, 2, 3]),
    ("grad2d_x", "tex.grad.2d.v4.f32.f32 {d}, [{h}, {{F50, F51}}], {{F52, F53}}, {{F54, F55}};", [0]),
    ("tld4r", "tld4.r.2d.v4.f32.f32 {d}, [{h}, {{F56, F57}}];", [0, 1, 2, 3]),
    ("tld4g", "tld4.g.2d.v4.f32.f32 {d}, [{h}, {{F58, F59}}];", [0, 1, 2, 3]),
    ("tld4a_yw", "tld4.a.2d.v4.f32.f32 {d}, [{h}, {{F60, F61}}];", [1, 3]),
    ("tex2d_s32", "tex.2d.v4.f32.s32 {d}, [{h}, {{I62, I63}}];", [0, 1, 2, 3]),
    ("tex2d_s32_w", "tex.2d.v4.f32.s32 {d}, [{h}, {{I64, I65}}];", [3]),
    ("tex1d_s32_xy", "tex.1d.v4.f32.s32 {d}, [{h}, {{I66}}];", [0, 1]),
    ("tex3d_s32", "tex.3d.v4.f32.s32 {d}, [{h}, {{I67, I68, I69, I69}}];", [0, 1, 2, 3]),
    ("texa2d_s32", "tex.a2d.v4.f32.s32 {d}, [{h}, {{I70, I71, I72, I72}}];", [0, 1, 2, 3]),
    ("level2d_s32", "tex.level.2d.v4.f32.s32 {d}, [{h}, {{I73, I74}}], I75;", [0, 1, 2, 3]),
]
QUERIES = [
    ("txq_width", "txq.width.b32 {d}, [{h}];"),
    ("txq_height", "txq.height.b32 {d}, [{h}];"),
    ("txq_depth", "txq.depth.b32 {d}, [{h}];"),
    ("txq_levels", "txq.num_mipmap_levels.b32 {d}, [{h}];"),
    ("txq_array", "txq.array_size.b32 {d}, [{h}];"),
    ("txq_lwidth", "txq.level.width.b32 {d}, [{h}], I76;"),
    ("txq_lheight", "txq.level.height.b32 {d}, [{h}], I77;"),
]


def const_text(tok):
    kind, k = tok[0], int(tok[1:])
    if kind == "F":
        return "0f%08X" % struct.unpack("<I", struct.pack("<f", float(k)))[0]
    return str(0x100 + k)


def subst(s):
    return re.sub(r"\b([FI]\d+)\b", lambda m: const_text(m.group(1)), s)


def ptx():
    out = [".version 7.1", ".target sm_50", ".address_size 64",
           ".visible .entry k(.param .u64 out, .param .u64 t)", "{",
           "  .reg .u64 %o, %h;", "  .reg .f32 %f<4>;", "  .reg .b32 %q;",
           "  ld.param.u64 %o, [out];", "  ld.param.u64 %h, [t];"]
    for i, (name, body, used) in enumerate(FORMS):
        out.append(f"  // {name}")
        out.append("  " + subst(body.format(d="{%f0, %f1, %f2, %f3}", h="%h")))
        for c in used:
            out.append(f"  st.global.f32 [%o+{16 * i + 4 * c}], %f{c};")
    base = 16 * len(FORMS)
    for i, (name, body) in enumerate(QUERIES):
        out.append(f"  // {name}")
        out.append("  " + subst(body.format(d="%q", h="%h")))
        out.append(f"  st.global.u32 [%o+{base + 4 * i}], %q;")
    out += ["  ret;", "}"]
    return "\n".join(out) + "\n"


def value_name(v):
    """Name the constant v as the form input that has it."""
    if v == 0:
        return "0"
    if 0x100 < v < 0x200:
        return "I%d" % (v - 0x100)
    f = struct.unpack("<f", struct.pack("<I", v))[0]
    if f == int(f) and 0 < f < 200:
        return "F%d" % int(f)
    return "0x%x" % v


TEXOPS = ("TEX", "TLD", "TLD4", "TXD", "TXQ", "TMML", "TEXS", "TLDS", "TLD4S")


def listing(arch, src):
    with tempfile.TemporaryDirectory() as d:
        p, c = os.path.join(d, "t.ptx"), os.path.join(d, "t.cubin")
        open(p, "w").write(src)
        subprocess.run([PTXAS, f"-arch=sm_{arch}", p, "-o", c], check=True)
        text = subprocess.run([NVDISASM, "-c", c], check=True, capture_output=True, text=True).stdout
    lines = []
    for ln in text.splitlines():
        m = re.match(r"\s*/\*([0-9a-f]{4})\*/\s*\{?\s*(.*?)\s*[;}]?\s*(/\*.*)?$", ln)
        if m and m.group(2):
            lines.append((int(m.group(1), 16), m.group(2).rstrip(" ;}")))
    return lines


def regno(tok):
    tok = tok.strip()
    if tok == "RZ":
        return 255
    m = re.match(r"R(\d+)", tok)
    return int(m.group(1)) if m else None


def trace(arch):
    """Follow the listing: constants into texture sources, texture results into stores."""
    regs = {}
    texes = []
    stores = {}
    for addr, text in listing(arch, ptx()):
        parts = text.split(None, 1)
        if not parts:
            continue
        op, rest = parts[0], parts[1] if len(parts) > 1 else ""
        args = [a.strip() for a in rest.split(",")]
        base = op.split(".")[0]
        if base in ("MOV", "MOV32I") and len(args) >= 2:
            r, v = regno(args[0]), args[1]
            if r is None:
                continue
            if v.startswith("0x") or v.startswith("-0x"):
                regs[r] = ("k", int(v, 16) & 0xffffffff)
            elif regno(v) is not None:
                s = regno(v)
                regs[r] = ("k", 0) if s == 255 else regs.get(s, ("?", s))
            else:
                regs[r] = ("?", v)
        elif op == "IMAD.MOV.U32" and len(args) == 4:
            r, v = regno(args[0]), args[3]
            if v.startswith("0x") or v.startswith("-0x"):
                regs[r] = ("k", int(v, 16) & 0xffffffff)
            elif regno(v) is not None:
                s = regno(v)
                regs[r] = ("k", 0) if s == 255 else regs.get(s, ("?", s))
        elif base in TEXOPS:
            t = len(texes)
            srcs = {}
            for a in args:
                r = regno(a)
                if r is not None and r != 255:
                    for k in range(4):
                        srcs.setdefault(r + k, regs.get(r + k, ("?", None)))
            texes.append((addr, text, srcs))
            # destination ranges: sm_86 two of two registers; sm_50 TEXS / TLDS / TLD4S two of
            # two, the other sm_50 forms one of four
            if arch == 86 or base in ("TEXS", "TLDS", "TLD4S"):
                ndst, nd = 2, 2
            else:
                ndst, nd = 1, 4
            for j in range(ndst):
                r = regno(args[j])
                if r is not None and r != 255:
                    for k in range(nd):
                        regs[r + k] = ("t", (t, j, k))
        elif base == "STG":
            m = re.match(r"\[R(\d+)(?:\.64)?(?:\+(0x[0-9a-f]+))?\]", args[0])
            off = int(m.group(2), 16) if m and m.group(2) else 0
            width = {"STG.E.64": 2, "STG.E.128": 4}.get(op, 1)
            r = regno(args[1])
            for k in range(width):
                stores[off + 4 * k] = regs.get(r + k, ("?", r + k))
        else:
            # any other write kills what the trace knows about its first register operand
            r = regno(args[0]) if args else None
            if r is not None:
                regs.pop(r, None)
    return texes, stores


def report(arch):
    texes, stores = trace(arch)
    print(f"== sm_{arch}")
    back = {}
    for off, v in stores.items():
        if v[0] == "t":
            back.setdefault(v[1][0], []).append((v[1][1], v[1][2], off))
    for t, (addr, text, srcs) in enumerate(texes):
        print(f"{addr:04x}  {text}")
        s = ", ".join(f"R{r}={value_name(v[1]) if v[0] == 'k' else '?'}" for r, v in sorted(srcs.items()) if v[0] == "k")
        print(f"      sources: {s}")
        for (j, k, off) in sorted(back.get(t, [])):
            if off < 16 * len(FORMS):
                form, ch = FORMS[off // 16][0], "xyzw"[(off % 16) // 4]
            else:
                form, ch = QUERIES[(off - 16 * len(FORMS)) // 4][0], "r"
            print(f"      result operand {j} register +{k} -> {form}.{ch}")


def main():
    if "--ptx" in sys.argv:
        sys.stdout.write(ptx())
        return
    archs = [int(sys.argv[sys.argv.index("--arch") + 1])] if "--arch" in sys.argv else [50, 86]
    for a in archs:
        report(a)


if __name__ == "__main__":
    main()
