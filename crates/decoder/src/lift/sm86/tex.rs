//! Texture instructions: `TEX`, `TLD`, `TLD4`, `TXD`, `TXQ` on sm_86 and sm_50, and sm_50's
//! `TEXS`, `TLDS`, `TLD4S`, as the IR's image sample, load, gather and size-query ops.
//!
//! Every register fact below comes from `tools/tex_layout.py`: PTX texture instructions whose
//! inputs are distinct constants and whose used result channels are stored to distinct words,
//! compiled by ptxas 12.9 for sm_50 and sm_86 and followed through nvdisasm's listing.
//!
//! Handles. `TEX.SCR ..., 0x0, 0x5a, 2D` names the 32-bit word index of the texture handle in a
//! constant bank (sm_50 `TEXS ..., 0x52, 2D` the word index alone, in bank 0), as surfaces do
//! (`surface.rs`). The IR names no driver, so the binding is explicit: **a texture handle is the
//! global address of the IR image descriptor (T#, eight words) followed by the IR sampler
//! descriptor (S#, four words)**; the S# gives filtering, address modes and normalized or
//! texel coordinates. Handles in registers (`.B`) stay a typed error.
//!
//! Results. The enabled channels (the trailing mask `0x4`, sm_86's default 0xf unprinted;
//! sm_50 `TEXS`'s component list `RGBA`, `GBA`, `B`, ...) are written in x, y, z, w order to
//! consecutive result slots: on sm_86 and for sm_50's `TEXS` / `TLDS` / `TLD4S` the slots are the
//! second printed register and the one after it, then the first printed register and the one
//! after it (`tex2d_yzw`: `TEX ... R33, R12, ..., 0xe` puts y, z in R12, R13 and w in R33; a
//! first register `RZ` drops its slots: `tex2d_z`: `TEX RZ, R29, ..., 0x4` puts z in R29); for
//! the other sm_50 forms they are the destination register and those after it (`TLD4.A.T R2,
//! R2, ..., 0xa`: y in R2, w in R3).
//!
//! Sources. The values an instruction reads form one list: the array index (integer) first for
//! arrays, then the coordinates, then the LOD of `.LL` (`tex1d`: ptxas samples a 1D texture as
//! 2D with y = 0). A texture fetch without an explicit level in a compute kernel is `.LL` with
//! LOD -32.0 (`tex2d`: `0xc2000000` in the second source). On sm_86 and for sm_50's `TEXS`,
//! `TLDS` and `TLD4S` the list is split over the two source registers: two values one in each
//! (`tex2d_s32`: `TLD.LZ ..., R12, R13, 2D` x, y; `tld4g`), three as a pair and one
//! (`level2d`: x, y in Ra, Ra+1, the LOD in Rb; `tex3d`, `texa2d`: index and x, then y), four as
//! two pairs (`level3d`, `levela2d`), one in the first (`tex1d_s32`: `TLD.LZ ..., R0, 1D`);
//! except sm_50's `TLDS ... ARRAY_2D`, whose first source holds the index and the second x, y
//! (`texa2d_s32`). sm_50's other forms read the index and coordinates from the first source
//! register on and the LOD from the second (`level3d`: `TEX.LL.T R16, R16, R19, 3D`: x, y, z in
//! R16-R18, the LOD in R19). `TXD` (2D) reads x, y from the first source and the derivatives
//! from the second as d/dx of x, d/dy of x, d/dx of y, d/dy of y (`grad2d`, both targets).
//! `TLD` takes integer texel coordinates and with `.LL` a level (`level2d_s32`); `TLD4` gathers
//! channel R, G, B or A (the suffix) of the four bilinear texels of level 0, in PTX's order,
//! which is the IR gather's; `TXQ TEX_HEADER_DIMENSION` at the level in its source gives width
//! (mask 0x1), height (0x2) and depth (0x4) (`txq_width`, `txq_lheight`, `txq_depth`; what it
//! gives for an array texture is not derived: the IR's 3D view answers slices >> level).
//!
//! Not derived, so typed errors: depth compare, texel offsets, bias and the other LOD forms,
//! `.CL`, `.NDV`, the `.EF` predicate forms, other `TXQ` queries and the levels channel, `TMML`,
//! and dimensions other than those named above. A cube fetch (`texcube`, `levelcube`: x, y, z
//! as a 3D fetch's) lifts onto the IR's direction-form cube sample (`ImageDim::CubeDir`: the
//! face and its coordinates by CUDA's cubemap table, `ops::sample`).

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::soft::{FloatMode, Round};
use isabridge_ir::ops::image::{ImageDim, ImageKind, ImageOp, LodMode};
use isabridge_ir::ops::int::{IntOp, Overflow};
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// Register number of RZ.
const RZ: u16 = 255;

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    match name {
        "TEX" | "TLD" | "TLD4" | "TXD" | "TXQ" | "TEXS" | "TLDS" | "TLD4S" => Some(texture(cx, at, name)),
        "TMML" => Some(Err(cx.unsupported(at, "TMML (LOD query): register layout not derived"))),
        _ => None,
    }
}

/// The printed instruction, split: mnemonic suffixes and operand tokens.
struct Text {
    sfx: Vec<String>,
    ops: Vec<String>,
}

impl Text {
    fn of(cx: &Cx, at: &At) -> Text {
        let mut text = String::new();
        cx.isa.plugin().print(at.d, at.inst.addr, &mut text);
        let text = text.trim().trim_end_matches(';').trim();
        let text = match text.strip_prefix('@') {
            Some(t) => t.split_once(' ').map_or("", |(_, r)| r.trim()),
            None => text,
        };
        let (m, rest) = text.split_once(' ').unwrap_or((text, ""));
        Text {
            sfx: m.split('.').skip(1).map(str::to_string).collect(),
            ops: rest.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
        }
    }
}

/// A register token: its number (RZ 255).
fn reg(tok: &str) -> Option<u16> {
    if tok == "RZ" {
        return Some(RZ);
    }
    tok.strip_prefix('R')?.parse::<u16>().ok().filter(|n| *n < RZ)
}

fn imm(tok: &str) -> Option<u32> {
    u32::from_str_radix(tok.strip_prefix("0x")?, 16).ok()
}

/// What the instruction does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Filtered fetch at a LOD (`TEX`, `TEXS`).
    Sample,
    /// Texel fetch (`TLD`, `TLDS`).
    Fetch,
    /// Gather of one channel (`TLD4`, `TLD4S`).
    Gather(u8),
    /// Filtered fetch with derivatives (`TXD`).
    Grad,
    /// Size query (`TXQ`).
    Query,
}

fn texture(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let t = Text::of(cx, at);
    let sm50 = !matches!(cx.isa, crate::Isa::Sm86);
    let paired = !sm50 || name.ends_with('S');
    let mut kind = match name {
        "TEX" | "TEXS" => Kind::Sample,
        "TLD" | "TLDS" => Kind::Fetch,
        "TXD" => Kind::Grad,
        "TXQ" => Kind::Query,
        _ => Kind::Gather(0),
    };
    let mut lod = None;
    for s in &t.sfx {
        match s.as_str() {
            // ".SCR" names the handle by constant bank and index (the binding above); sm_50's
            // ".T" / ".P" and ".NODEP" change no register in the derivation (tex2d as TEXS.P
            // and as TEXS.T read and fill the same registers).
            "SCR" | "T" | "P" | "NODEP" => {}
            "LL" | "LZ" if lod.is_none() && matches!(kind, Kind::Sample | Kind::Fetch) => lod = Some(s.as_str() == "LL"),
            "R" | "G" | "B" | "A" if matches!(kind, Kind::Gather(_)) => kind = Kind::Gather(b"RGBA".iter().position(|c| *c == s.as_bytes()[0]).unwrap_or(0) as u8),
            _ => return Err(cx.unsupported(at, &format!("texture suffix .{s} (meaning not derived)"))),
        }
    }
    // sm_50's fetch without a LOD suffix: the same PTX (`tex.2d`, `tex.3d`, `tex.a1d`, ... in
    // a compute kernel) is `.LL` with LOD -32.0 on sm_86, and both must compute what PTX
    // defines, so it is lifted as that LOD.
    let implicit = matches!(kind, Kind::Sample) && lod.is_none() && sm50;
    if matches!(kind, Kind::Sample | Kind::Fetch) && lod.is_none() && !implicit {
        return Err(cx.unsupported(at, "texture fetch without .LL or .LZ (implicit LOD: register layout not derived)"));
    }
    let lod_ll = lod == Some(true);
    // Operand tokens: the destination registers, the source registers, then the handle, the
    // dimension or query, the channel mask.
    let mut regs = Vec::new();
    let mut rest = Vec::new();
    for tok in &t.ops {
        match reg(tok) {
            Some(r) if rest.is_empty() => regs.push(r),
            _ => rest.push(tok.as_str()),
        }
    }
    let ndst = if paired { 2 } else { 1 };
    if regs.len() < ndst + 1 || regs.len() > ndst + 2 {
        return Err(cx.unsupported(at, "texture operand shape"));
    }
    let (dst, src) = regs.split_at(ndst);
    let ra = src[0];
    let rb = src.get(1).copied().unwrap_or(RZ);
    // The handle: sm_86 bank and word index, sm_50 the word index in bank 0.
    let mut rest = rest.into_iter();
    if kind == Kind::Query && rest.next() != Some("TEX_HEADER_DIMENSION") {
        return Err(cx.unsupported(at, "TXQ query other than TEX_HEADER_DIMENSION (not derived)"));
    }
    let bank = if sm50 { Some(0) } else { rest.next().and_then(imm) };
    let index = rest.next().and_then(imm);
    let (Some(0), Some(index)) = (bank, index) else {
        return Err(cx.unsupported(at, "texture handle other than a constant bank 0 word (meaning not derived)"));
    };
    // A size query asks the IR's 3D view: width, height and depth of the level, 1 where the
    // texture has no such axis.
    let dim = if kind == Kind::Query {
        ImageDim::D3
    } else if name == "TLD4S" {
        ImageDim::D2
    } else {
        match rest.next() {
            Some("1D") => ImageDim::D1,
            Some("2D") => ImageDim::D2,
            Some("3D") => ImageDim::D3,
            Some("CUBE") => ImageDim::CubeDir,
            Some("ARRAY_1D") => ImageDim::D1Array,
            Some("ARRAY_2D") => ImageDim::D2Array,
            _ => return Err(cx.unsupported(at, "texture dimension (register layout not derived)")),
        }
    };
    let mask = match rest.next() {
        None if name != "TEXS" && name != "TLDS" => 0xf,
        Some(m) if name == "TEXS" || name == "TLDS" => {
            let mut bits = 0u8;
            for c in m.bytes() {
                let Some(k) = b"RGBA".iter().position(|x| *x == c) else {
                    return Err(cx.unsupported(at, "texture component list"));
                };
                bits |= 1 << k;
            }
            bits
        }
        Some(m) => match imm(m) {
            Some(b @ 1..=15) => b as u8,
            _ => return Err(cx.unsupported(at, "texture channel mask")),
        },
        None => return Err(cx.unsupported(at, "texture component list")),
    };
    if rest.next().is_some() {
        return Err(cx.unsupported(at, "texture operand shape"));
    }
    if kind == Kind::Query && mask & 8 != 0 {
        return Err(cx.unsupported(at, "TXQ levels channel (not derived)"));
    }
    let array = matches!(dim, ImageDim::D1Array | ImageDim::D2Array);
    let coords = dim.coords();
    let n = match kind {
        Kind::Query => 1,
        Kind::Grad => {
            if dim != ImageDim::D2 {
                return Err(cx.unsupported(at, "TXD other than 2D (register layout not derived)"));
            }
            2
        }
        _ => coords + lod_ll as usize,
    };
    if matches!(kind, Kind::Gather(_)) && dim != ImageDim::D2 {
        return Err(cx.unsupported(at, "TLD4 other than 2D (register layout not derived)"));
    }
    // The source registers holding values 0..n, as (register, offset in its range).
    let keys: Vec<(u16, u16)> = if name == "TLDS" && dim == ImageDim::D2Array {
        vec![(ra, 0), (rb, 0), (rb, 1)]
    } else if paired && kind != Kind::Grad {
        match n {
            1 => vec![(ra, 0)],
            2 => vec![(ra, 0), (rb, 0)],
            3 => vec![(ra, 0), (ra, 1), (rb, 0)],
            4 => vec![(ra, 0), (ra, 1), (rb, 0), (rb, 1)],
            _ => return Err(cx.unsupported(at, "texture source count (register layout not derived)")),
        }
    } else {
        let mut v: Vec<(u16, u16)> = (0..coords.min(n) as u16).map(|k| (ra, k)).collect();
        if n > coords {
            v.push((rb, 0));
        }
        v
    };
    let mut vals = Vec::new();
    for (r, k) in keys {
        vals.push(match r {
            RZ => cx.k32(0),
            _ if r + k >= RZ => return Err(cx.unsupported(at, "texture source register range past R254")),
            _ => cx.rd(r + k),
        });
    }
    // Result slots in fill order, as (register, offset in its range).
    let slots: Vec<(u16, u16)> = if paired { vec![(dst[1], 0), (dst[1], 1), (dst[0], 0), (dst[0], 1)] } else { (0..4).map(|k| (dst[0], k)).collect() };
    let enabled: Vec<u8> = (0..4).filter(|k| mask >> k & 1 != 0).collect();
    if slots.iter().take(enabled.len()).any(|(r, k)| *r != RZ && r + k >= RZ) {
        return Err(cx.unsupported(at, "texture result register range past R254"));
    }
    // The handle's descriptors.
    let samples = !matches!(kind, Kind::Fetch | Kind::Query);
    let words = handle(cx, index, if samples { 6 } else { 4 });
    let mut op = ImageOp {
        kind: ImageKind::Sample,
        dim,
        chan: 0,
        comp: 0,
        lod: LodMode::Lod,
        mip: false,
        clamp: false,
        compare: false,
        offset: false,
        unorm: false,
        d16: false,
    };
    let mut addr = Vec::new();
    match kind {
        Kind::Query => {
            op.kind = ImageKind::ResInfo;
            addr.push(vals[0]);
        }
        Kind::Fetch => {
            op.kind = ImageKind::Load;
            op.mip = lod_ll;
            // The IR orders the array slice after the coordinates, before the level.
            if array {
                addr.extend(&vals[1..coords]);
                addr.push(vals[0]);
                addr.extend(&vals[coords..]);
            } else {
                addr.extend(&vals);
            }
        }
        Kind::Sample | Kind::Gather(_) | Kind::Grad => {
            let mode = FloatMode::nv(Round::Rn);
            let mut f: Vec<Value> = Vec::new();
            if kind == Kind::Grad {
                // d/dx x, d/dy x, d/dx y, d/dy y -> the IR's d/dx x, d/dx y, d/dy x, d/dy y.
                let g = [rb, rb.saturating_add(1), rb.saturating_add(2), rb.saturating_add(3)];
                if g.iter().any(|k| *k >= RZ) {
                    return Err(cx.unsupported(at, "TXD derivative registers"));
                }
                for k in [g[0], g[2], g[1], g[3]] {
                    let v = cx.rd(k);
                    f.push(cx.b().bitcast(Type::F32, v));
                }
                op.lod = LodMode::Grad;
            } else if let Kind::Gather(c) = kind {
                op.kind = ImageKind::Gather;
                op.comp = c;
                op.lod = LodMode::Zero;
            } else if !lod_ll && !implicit {
                op.lod = LodMode::Zero;
            }
            if kind == Kind::Grad {
                op.kind = ImageKind::Sample;
            }
            let (c, l) = vals.split_at(coords.min(vals.len()));
            let (idx, c) = if array { (Some(c[0]), &c[1..]) } else { (None, c) };
            for v in c {
                f.push(cx.b().bitcast(Type::F32, *v));
            }
            if let Some(i) = idx {
                // PTX's array index is an unsigned integer; the IR's slice coordinate is a float
                // rounded to the nearest slice and clamped to the last.
                f.push(cx.b().conv(ConvOp::IToF { mode, signed: false }, Type::F32, i));
            }
            if lod_ll && kind == Kind::Sample {
                f.push(cx.b().bitcast(Type::F32, l[0]));
            } else if implicit {
                f.push(cx.k(Type::F32, (-32.0f32).to_bits() as u64));
            }
            addr = f;
        }
    }
    let lane_mask = cx.guard_mask();
    let mut results = Vec::new();
    for (s, ch) in enabled.iter().enumerate() {
        let (r, k) = slots[s];
        if r == RZ {
            continue;
        }
        let mut o = op;
        o.chan = *ch;
        let mut args = words.clone();
        args.extend(&addr);
        args.extend(lane_mask);
        let v = cx.b().ins(Op::Image(o), &args, Some(Type::I32));
        results.push((r + k, v));
    }
    // Write after every read: a result register may also be a source.
    for (k, v) in results {
        cx.wr(k, v);
    }
    Ok(())
}

/// The descriptor words at the address that the handle in `c[0x0][4 * index]` holds: `n` i64
/// (four for the T#, six for the T# and S#).
fn handle(cx: &mut Cx, index: u32, n: usize) -> Vec<Value> {
    let off = cx.k32(index.wrapping_mul(4));
    let h = cx.b().load(MemOp::Load(Space::Constant(0)), Type::I32, off);
    let addr = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, h);
    (0..n)
        .map(|k| {
            let o = cx.k(Type::I64, 8 * k as u64);
            let a = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[addr, o]);
            super::mem::mem_op(cx, MemOp::Load(Space::Global), &[a], Some(Type::I64))
        })
        .collect()
}
