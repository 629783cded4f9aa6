//! Conversions: F2I, I2F / I2FP, F2F, F2FP (f16 / bf16 packing), FRND (round to integral),
//! I2I (saturating narrowing), F2IP (to a byte). Types come from the mnemonic: F2F and F2I name the destination
//! first (`F2F.F16.F32`, `F2I.U32.F64`); the default float is f32 and the default integer s32.
//! A 16-bit result sits in the low half of its register, the high half zero.

use super::float32::mode_of;
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{OperandKind, SpecialReg};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp};
use isabridge_ir::ops::int::IntOp;
use isabridge_ir::soft::FFmt;
use isabridge_ir::{Scalar, Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "F2I" => f2i(cx, at),
        "I2F" | "I2FP" => i2f(cx, at),
        "F2F" => f2f(cx, at),
        "F2FP" => f2fp(cx, at),
        "FRND" => frnd(cx, at),
        "I2I" => i2i(cx, at),
        "F2IP" => f2ip(cx, at),
        _ => return None,
    })
}

const FLOATS: [&str; 4] = ["F16", "BF16", "F32", "F64"];
const INTS: [&str; 8] = ["S8", "U8", "S16", "U16", "S32", "U32", "S64", "U64"];

fn fmt_of(s: &str) -> FFmt {
    match s {
        "F16" => FFmt::F16,
        "BF16" => FFmt::BF16,
        "F64" => FFmt::F64,
        _ => FFmt::F32,
    }
}

fn ftype(f: FFmt) -> Type {
    Type::S(Scalar::F(f))
}

/// (bits, signed) of an integer type suffix.
fn int_of(s: &str) -> (u32, bool) {
    (s[1..].parse().unwrap_or(32), s.starts_with('S'))
}

/// The float suffixes of the mnemonic, in order.
fn floats<'a>(at: &At<'a>) -> Vec<&'a str> {
    at.sfx.iter().copied().filter(|s| FLOATS.contains(s)).collect()
}

/// A float source of format `f` (f16 / bf16: the low half of the register; f64: the pair).
fn fsrc(cx: &mut Cx, at: &At, k: usize, f: FFmt) -> Result<Value, LiftError> {
    let op = at.srcs()[k];
    Ok(match f {
        FFmt::F64 => {
            let lo = cx.word(at, op, 0)?;
            let hi = cx.word(at, op, 1)?;
            let hi = cx.sign_mods(op, hi, 0x8000_0000);
            let v = cx.join64(lo, hi);
            cx.b().bitcast(Type::F64, v)
        }
        FFmt::F32 => cx.src_f32(at, op)?,
        _ => {
            let w = cx.word(at, op, 0)?;
            let w = cx.sign_mods(op, w, 0x8000);
            let h = cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, w);
            cx.b().bitcast(ftype(f), h)
        }
    })
}

/// Write a float result of format `f` to the first destination.
fn fdef(cx: &mut Cx, at: &At, f: FFmt, v: Value) -> Result<(), LiftError> {
    let d = at.dsts()[0];
    match f {
        FFmt::F64 => cx.def64(at, d, v),
        FFmt::F32 => cx.def32(at, d, v),
        _ => {
            let h = cx.b().bitcast(Type::I16, v);
            let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, h);
            cx.def_word(at, d, 0, w)
        }
    }
}

fn shape(cx: &Cx, at: &At, srcs: usize) -> Result<(), LiftError> {
    if at.dsts().len() != 1 || at.srcs().len() != srcs {
        return Err(cx.unsupported(at, "operand shape"));
    }
    Ok(())
}

/// F2I[.FTZ][.int][.float][.rnd][.NTZ] d, a: rounds with the mode (to nearest even without a
/// suffix), saturates to the destination's range, NaN gives 0.
fn f2i(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at, 1)?;
    let f = floats(at).first().map(|s| fmt_of(s)).unwrap_or(FFmt::F32);
    let (bits, signed) = at.one_of(&INTS).map(int_of).unwrap_or((32, true));
    let x = fsrc(cx, at, 0, f)?;
    let mut mode = mode_of(at);
    mode.ftz_out = false;
    let ity = Type::S(Scalar::int(bits).ok_or_else(|| cx.unsupported(at, "integer type"))?);
    let r = cx.b().conv(ConvOp::FToI { mode, signed }, ity, x);
    let d = at.dsts()[0];
    match bits {
        64 => cx.def64(at, d, r),
        32 => cx.def_word(at, d, 0, r),
        _ => {
            let w = cx.b().conv(ConvOp::IToI { signed }, Type::I32, r);
            cx.def_word(at, d, 0, w)
        }
    }
}

/// I2F / I2FP[.float][.int][.rnd] d, a: an integer (the low bits of the register for 8 and 16
/// bits, the pair for 64) to a float, rounded with the mode.
fn i2f(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at, 1)?;
    if at.inst.named("SRC_SEL").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "I2F of a byte or halfword other than the lowest"));
    }
    let f = floats(at).first().map(|s| fmt_of(s)).unwrap_or(FFmt::F32);
    let (bits, signed) = at.one_of(&INTS).map(int_of).unwrap_or((32, true));
    let op = at.srcs()[0];
    let x = if bits == 64 {
        cx.src64(at, op)?
    } else {
        let w = cx.src_int(at, op)?;
        match bits {
            32 => w,
            _ => {
                let ity = Type::S(Scalar::int(bits).ok_or_else(|| cx.unsupported(at, "integer type"))?);
                cx.b().conv(ConvOp::IToI { signed: false }, ity, w)
            }
        }
    };
    let mut mode = mode_of(at);
    mode.ftz_in = false;
    let r = cx.b().conv(ConvOp::IToF { mode, signed }, ftype(f), x);
    fdef(cx, at, f, r)
}

/// F2F.dst.src[.rnd][.FTZ] d, a.
fn f2f(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at, 1)?;
    let fs = floats(at);
    if fs.len() != 2 {
        return Err(cx.unsupported(at, "F2F types"));
    }
    let (to, from) = (fmt_of(fs[0]), fmt_of(fs[1]));
    if at.has("SAT") {
        return Err(cx.unsupported(at, "F2F .SAT"));
    }
    let x = fsrc(cx, at, 0, from)?;
    let r = cx.b().conv(ConvOp::FToF { mode: mode_of(at), satfinite: false }, ftype(to), x);
    fdef(cx, at, to, r)
}

/// ReLU of a 16-bit float: negative values become +0, NaN the canonical NaN.
fn relu16(cx: &mut Cx, f: FFmt, v: Value) -> Value {
    let mut op = FloatOp::nv(FloatKind::Canon, isabridge_ir::soft::Round::Rn);
    op.relu = true;
    cx.b().float(op, ftype(f), &[v])
}

/// F2FP[.BF16].PACK_AB[.RELU][.SATFINITE][.RZ] d, a, b: d = {hi: cvt(a), lo: cvt(b)}.
/// F2FP[.RELU][.BF16].MERGE_C d, a, RZ: d = {hi: 0, lo: cvt(a)} (`cvt.rn.relu.bf16.f32` of
/// fixtures/nvidia/src/bf16.cu assembles to `F2FP.RELU.BF16.MERGE_C R10, R4, RZ`, whose result
/// the listing reads as `R10 & 0xffff`); which half of a C other than RZ is kept is not
/// derived, so that form is a typed error.
fn f2fp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at, 2)?;
    if at.has("MERGE_C") {
        return f2fp_merge_c(cx, at);
    }
    if !at.has("PACK_AB") {
        return Err(cx.unsupported(at, "F2FP form other than PACK_AB or MERGE_C"));
    }
    let f = if at.has("BF16") { FFmt::BF16 } else { FFmt::F16 };
    let conv = ConvOp::FToF { mode: mode_of(at), satfinite: at.has("SATFINITE") };
    let mut halves = Vec::new();
    for k in [1, 0] {
        let x = fsrc(cx, at, k, FFmt::F32)?;
        let mut h = cx.b().conv(conv, ftype(f), x);
        if at.has("RELU") {
            h = relu16(cx, f, h);
        }
        halves.push(h);
    }
    let v = cx.b().build(Type::V(Scalar::F(f), 2), &halves);
    cx.def32(at, at.dsts()[0], v)
}

fn f2fp_merge_c(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let c = at.srcs()[1];
    if !matches!(c.kind, OperandKind::Special { reg: SpecialReg::Rz, .. }) {
        return Err(cx.unsupported(at, "F2FP.MERGE_C with a C other than RZ"));
    }
    let f = if at.has("BF16") { FFmt::BF16 } else { FFmt::F16 };
    let conv = ConvOp::FToF { mode: mode_of(at), satfinite: at.has("SATFINITE") };
    let x = fsrc(cx, at, 0, FFmt::F32)?;
    let mut h = cx.b().conv(conv, ftype(f), x);
    if at.has("RELU") {
        h = relu16(cx, f, h);
    }
    let zero = cx.k(ftype(f), 0);
    let v = cx.b().build(Type::V(Scalar::F(f), 2), &[h, zero]);
    cx.def32(at, at.dsts()[0], v)
}

/// FRND[.F16|.F64][.FTZ][.rnd] d, a: round to an integral value in the same format.
fn frnd(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at, 1)?;
    let f = floats(at).first().map(|s| fmt_of(s)).unwrap_or(FFmt::F32);
    let x = fsrc(cx, at, 0, f)?;
    let m = mode_of(at);
    let r = cx.b().float(FloatOp { mode: m, ..FloatOp::nv(FloatKind::RoundInt, m.round) }, ftype(f), &[x]);
    fdef(cx, at, f, r)
}

/// I2I.{S8,U8,S16,U16}.S32.SAT d, a: a clamped to the destination's range.
fn i2i(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at, 1)?;
    let ints: Vec<&str> = at.sfx.iter().copied().filter(|s| INTS.contains(s)).collect();
    if ints.len() != 2 || ints[1] != "S32" || !at.has("SAT") {
        return Err(cx.unsupported(at, "I2I form"));
    }
    let (bits, signed) = int_of(ints[0]);
    let (lo, hi) = if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
    let a = cx.src_int(at, at.srcs()[0])?;
    let lo = cx.k32(lo as u32);
    let hi = cx.k32(hi as u32);
    let r = cx.b().int(IntOp::Max(true), Type::I32, &[a, lo]);
    let r = cx.b().int(IntOp::Min(true), Type::I32, &[r, hi]);
    cx.def_word(at, at.dsts()[0], 0, r)
}

/// F2IP.{U8,S8}.F32[.rnd] d, RZ, a, RZ: a converted to an 8-bit integer (saturating, NaN to 0),
/// zero-extended (PTX cvt.rzi.sat.u8.f32 in fixtures/nvidia cvt.sm86). The forms that merge
/// the other bytes of the outer operands are not lifted.
fn f2ip(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at, 3)?;
    let srcs = at.srcs();
    let rz = |o: &crate::operand::Operand| matches!(o.kind, crate::operand::OperandKind::Special { reg: crate::operand::SpecialReg::Rz, .. });
    if !rz(srcs[0]) || !rz(srcs[2]) || at.has("RELU") {
        return Err(cx.unsupported(at, "F2IP merging other bytes"));
    }
    let (bits, signed) = at.one_of(&["U8", "S8"]).map(int_of).ok_or_else(|| cx.unsupported(at, "F2IP type"))?;
    let x = fsrc(cx, at, 1, FFmt::F32)?;
    let mut mode = mode_of(at);
    mode.ftz_out = false;
    let ity = Type::S(Scalar::int(bits).ok_or_else(|| cx.unsupported(at, "integer type"))?);
    let r = cx.b().conv(ConvOp::FToI { mode, signed }, ity, x);
    let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, r);
    cx.def_word(at, at.dsts()[0], 0, w)
}
