//! Image instructions (MIMG: `image_load*`, `image_store*`, `image_sample*`, `image_gather4*`,
//! `image_get_lod`, `image_get_resinfo`, `image_atomic_*`) to the IR's `img.*` ops, one op per
//! result channel, under EXEC.
//!
//! Address dwords come in AMD's order: offset, bias, depth-compare reference, derivatives,
//! coordinates, then LOD, mip level or LOD clamp (NSA forms name each dword's register, the
//! others one range). With `a16` the coordinates and what follows them are 16 bits, two a dword,
//! low half first, and so are the derivatives, each direction's group starting a dword; f16
//! values convert to f32 exactly, 16-bit integers zero-extend. `dmask` picks the channels: the
//! enabled ones fill consecutive VDATA registers (gather4: the single enabled channel of the four
//! texels), two a register with `d16`. `tfe` / `lwe` add one more register, the residency status,
//! which is 0 (the IR has no partially resident surfaces). `dim` gives the shape; `unorm` makes
//! sampling coordinates texels.

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::image::{ImageDim, ImageKind, ImageOp, LodMode};
use isabridge_ir::ops::int::{IntOp, ShiftRule};
use isabridge_ir::ops::mem::AtomicKind;
use isabridge_ir::ops::Op;
use isabridge_ir::soft::{FloatMode, NanRule, Round, Tininess};
use isabridge_ir::{Scalar, Type, Value};

/// What an instruction name asks for.
struct Form {
    kind: ImageKind,
    lod: LodMode,
    mip: bool,
    clamp: bool,
    compare: bool,
    offset: bool,
}

fn form(name: &str) -> Option<Form> {
    let rest = name.strip_prefix("IMAGE_")?;
    let plain = |kind, mip| Form { kind, lod: LodMode::Lod, mip, clamp: false, compare: false, offset: false };
    let atomic = |k| Some(plain(ImageKind::Atomic(k), false));
    match rest {
        "LOAD" => return Some(plain(ImageKind::Load, false)),
        "LOAD_MIP" => return Some(plain(ImageKind::Load, true)),
        "STORE" => return Some(plain(ImageKind::Store, false)),
        "STORE_MIP" => return Some(plain(ImageKind::Store, true)),
        "GET_RESINFO" => return Some(plain(ImageKind::ResInfo, false)),
        "GET_LOD" => return Some(Form { lod: LodMode::Implicit, ..plain(ImageKind::GetLod, false) }),
        "ATOMIC_SWAP" => return atomic(AtomicKind::Exch),
        "ATOMIC_CMPSWAP" => return atomic(AtomicKind::CmpExch),
        "ATOMIC_ADD" => return atomic(AtomicKind::Add),
        "ATOMIC_SMIN" => return atomic(AtomicKind::Min(true)),
        "ATOMIC_UMIN" => return atomic(AtomicKind::Min(false)),
        "ATOMIC_SMAX" => return atomic(AtomicKind::Max(true)),
        "ATOMIC_UMAX" => return atomic(AtomicKind::Max(false)),
        "ATOMIC_AND" => return atomic(AtomicKind::And),
        "ATOMIC_OR" => return atomic(AtomicKind::Or),
        "ATOMIC_XOR" => return atomic(AtomicKind::Xor),
        "ATOMIC_INC" => return atomic(AtomicKind::Inc),
        "ATOMIC_DEC" => return atomic(AtomicKind::Dec),
        _ => {}
    }
    let (kind, mods) = if let Some(m) = rest.strip_prefix("SAMPLE") {
        (ImageKind::Sample, m)
    } else if let Some(m) = rest.strip_prefix("GATHER4") {
        (ImageKind::Gather, m)
    } else {
        return None;
    };
    let mut f = Form { kind, lod: LodMode::Implicit, mip: false, clamp: false, compare: false, offset: false };
    for m in mods.split('_').filter(|m| !m.is_empty()) {
        match m {
            "C" => f.compare = true,
            "D" | "CD" => f.lod = LodMode::Grad,
            "L" => f.lod = LodMode::Lod,
            "B" => f.lod = LodMode::Bias,
            "LZ" => f.lod = LodMode::Zero,
            "CL" => f.clamp = true,
            "O" => f.offset = true,
            _ => return None,
        }
    }
    Some(f)
}

/// Lift an image instruction; None when `name` is not one this file knows.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let f = form(name)?;
    Some(image(cx, at, &f))
}

fn exact() -> FloatMode {
    FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::Propagate, tininess: Tininess::AfterRounding }
}

fn image(cx: &mut Cx, at: &At, f: &Form) -> Result<(), LiftError> {
    let n = |k: &str| at.inst.named(k).unwrap_or(0);
    let (a16, d16, tfe) = (n("A16") != 0, n("D16") != 0, n("TFE") != 0 || n("LWE") != 0);
    let dmask = n("DMASK") as u8 & 0xf;
    let dim = *ImageDim::ALL.get(n("DIM") as usize).ok_or_else(|| cx.unsupported(at, "image dim"))?;
    if n("R128") != 0 {
        return Err(cx.unsupported(at, "128-bit image descriptors (R128)"));
    }
    let samples = matches!(f.kind, ImageKind::Sample | ImageKind::Gather | ImageKind::GetLod);
    let op = ImageOp {
        kind: f.kind,
        dim,
        chan: 0,
        comp: 0,
        lod: f.lod,
        mip: f.mip,
        clamp: f.clamp,
        compare: f.compare,
        offset: f.offset,
        unorm: samples && n("UNORM") != 0,
        d16,
    };
    if a16 && (f.offset || f.compare || f.lod == LodMode::Bias) {
        return Err(cx.unsupported(at, "a16 with offset, bias or compare operands (their width is not established)"));
    }
    let data = at.field("VDATA").copied().ok_or_else(|| cx.unsupported(at, "no VDATA"))?;
    let rsrc = at.field("SRSRC").copied().ok_or_else(|| cx.unsupported(at, "no SRSRC"))?;
    let dwords = super::bvh::address_dwords(cx, at)?;
    let addr = address(cx, at, &op, a16, &dwords)?;
    let samp = if samples { Some(at.field("SSAMP").copied().ok_or_else(|| cx.unsupported(at, "no SSAMP"))?) } else { None };
    let mut args = Vec::new();
    if cx.isa == crate::Isa::Gfx1201 {
        args = super::gfx12_image::descriptors(cx, at, &rsrc, samp.as_ref())?;
    } else {
        for k in 0..4 {
            let lo = cx.src32(at, &rsrc, 2 * k)?;
            let hi = cx.src32(at, &rsrc, 2 * k + 1)?;
            args.push(cx.join64(lo, hi));
        }
        if let Some(samp) = samp {
            for k in 0..2 {
                let lo = cx.src32(at, &samp, 2 * k)?;
                let hi = cx.src32(at, &samp, 2 * k + 1)?;
                args.push(cx.join64(lo, hi));
            }
        }
    }
    args.extend(addr);
    let exec = cx.exec();
    let chans: Vec<u8> = (0..4u8).filter(|c| dmask >> c & 1 != 0).collect();
    match f.kind {
        ImageKind::Store => {
            let mut vals = Vec::new();
            for (i, _) in chans.iter().enumerate() {
                let w = cx.src32(at, &data, if d16 { i as u16 / 2 } else { i as u16 })?;
                let v = if d16 {
                    let sh = cx.k32(16 * (i as u32 % 2));
                    let s = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[w, sh]);
                    let m = cx.k32(0xffff);
                    cx.b().int(IntOp::And, Type::I32, &[s, m])
                } else {
                    w
                };
                vals.push(v);
            }
            let zero = cx.k32(0);
            let mut four = [zero; 4];
            for (c, v) in chans.iter().zip(vals) {
                four[*c as usize] = v;
            }
            let mut a = args.clone();
            a.extend(four);
            a.push(exec);
            cx.b().ins(Op::Image(ImageOp { comp: dmask, ..op }), &a, None);
        }
        ImageKind::Atomic(k) => {
            let glc = n("GLC") != 0;
            let words = if k == AtomicKind::CmpExch { 2 } else { 1 };
            let mut a = args.clone();
            for w in 0..words {
                a.push(cx.src32(at, &data, w)?);
            }
            a.push(exec);
            let r = cx.b().ins(Op::Image(op), &a, Some(Type::I32));
            if glc {
                cx.def_v32(at, &data, 0, r, exec)?;
            }
        }
        ImageKind::Gather => {
            let comp = chans.first().copied().unwrap_or(0);
            let mut out = Vec::new();
            for c in 0..4u8 {
                let mut a = args.clone();
                a.push(exec);
                out.push(cx.b().ins(Op::Image(ImageOp { chan: c, comp, ..op }), &a, Some(Type::I32)));
            }
            write_results(cx, at, &data, &out, d16, tfe, exec)?;
        }
        _ => {
            let mut out = Vec::new();
            for &c in &chans {
                let mut a = args.clone();
                a.push(exec);
                out.push(cx.b().ins(Op::Image(ImageOp { chan: c, ..op }), &a, Some(Type::I32)));
            }
            write_results(cx, at, &data, &out, d16, tfe, exec)?;
        }
    }
    Ok(())
}

/// Write result channels into VDATA (two a register with d16), then the status register.
fn write_results(
    cx: &mut Cx,
    at: &At,
    data: &crate::operand::Operand,
    out: &[Value],
    d16: bool,
    tfe: bool,
    exec: Value,
) -> Result<(), LiftError> {
    let mut regs = Vec::new();
    if d16 {
        for pair in out.chunks(2) {
            let lo = pair[0];
            let v = match pair.get(1) {
                Some(hi) => {
                    let sh = cx.k32(16);
                    let h = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[*hi, sh]);
                    cx.b().int(IntOp::Or, Type::I32, &[lo, h])
                }
                None => lo,
            };
            regs.push(v);
        }
    } else {
        regs.extend_from_slice(out);
    }
    if tfe {
        regs.push(cx.k32(0));
    }
    for (k, v) in regs.into_iter().enumerate() {
        cx.def_v32(at, data, k as u16, v, exec)?;
    }
    Ok(())
}

/// The IR's address operands from the instruction's address dwords.
fn address(cx: &mut Cx, at: &At, op: &ImageOp, a16: bool, dw: &[Value]) -> Result<Vec<Value>, LiftError> {
    let samples = op.samples();
    let ints = !samples;
    let mut out = Vec::new();
    let mut i = 0usize;
    let too_few = |cx: &Cx| cx.unsupported(at, "fewer address registers than the form needs");
    // Full dwords first: offset, bias, compare.
    let heads = op.offset as usize + (op.lod == LodMode::Bias) as usize + op.compare as usize;
    if op.kind != ImageKind::ResInfo {
        for h in 0..heads {
            let v = *dw.get(i).ok_or_else(|| too_few(cx))?;
            i += 1;
            let is_offset = op.offset && h == 0;
            out.push(if is_offset { v } else { cx.b().bitcast(Type::F32, v) });
        }
    }
    // Derivatives: per direction, `grads` values (a16: packed, each direction a whole dword count).
    let halves = |cx: &mut Cx, i: &mut usize, count: usize, float: bool| -> Result<Vec<Value>, LiftError> {
        let mut vals = Vec::new();
        if a16 {
            for k in 0..count {
                let w = *dw.get(*i + k / 2).ok_or_else(|| too_few(cx))?;
                let p = cx.b().bitcast(Type::V(Scalar::I16, 2), w);
                let h = cx.b().extract(Type::I16, p, (k % 2) as u8);
                vals.push(if float {
                    let hf = cx.b().bitcast(Type::F16, h);
                    cx.b().conv(ConvOp::FToF { mode: exact(), satfinite: false }, Type::F32, hf)
                } else {
                    cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, h)
                });
            }
            *i += count.div_ceil(2);
        } else {
            for k in 0..count {
                let w = *dw.get(*i + k).ok_or_else(|| too_few(cx))?;
                vals.push(if float { cx.b().bitcast(Type::F32, w) } else { w });
            }
            *i += count;
        }
        Ok(vals)
    };
    if op.kind == ImageKind::ResInfo {
        out.extend(halves(cx, &mut i, 1, false)?);
        return Ok(out);
    }
    if op.lod == LodMode::Grad {
        for _ in 0..2 {
            out.extend(halves(cx, &mut i, op.dim.grads(), true)?);
        }
    }
    // Coordinates and what follows them, one packed group with a16.
    let tail = (op.lod == LodMode::Lod && samples) as usize + op.mip as usize + op.clamp as usize;
    let body = halves(cx, &mut i, op.dim.coords() + tail, !ints)?;
    out.extend(body);
    if at.inst.named("NSA").unwrap_or(0) != 0 && i != dw.len() {
        return Err(cx.unsupported(at, "NSA address count differs from the form's"));
    }
    Ok(out)
}
