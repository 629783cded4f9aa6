//! Maxwell conversions that sm_86's conversion family does not read the same way:
//! - `I2F.dst.src[.rnd]`: the model spells an extra integer type before the printed one
//!   (`I2F.F32.S32` has suffixes F32, U32, S32), so the source type is the last integer
//!   suffix.
//! - `F2F.F32.F32.{ROUND,FLOOR,CEIL,TRUNC}` (the form's integral-rounding bit, `CVT_RINT`):
//!   rounding to an integral value (sm_86's FRND), the direction from the rounding field
//!   (`CVT_RND`: nearest, down, up, toward zero; the model spells these forms `.PASS` and a
//!   rounding suffix), also `F2F.F64.F64.*` and `.SAT` (clamped to [0, 1] after rounding).
//!   Other F2F forms go to sm_86's F2F.
//! - `I2I.dst.src[.SAT] d, [-][|]a[|]`: the low byte, halfword or word of a as the source
//!   type, `|x|` then `-x` in 64 bits, then clamped to the destination type with `.SAT`, else
//!   its low bits; the register gets the result extended by the destination type's signedness
//!   (as sm_86's I2I does). PTX `cvt.sat.{u16,u8}.u32`, `cvt.sat.u16.s16`, `neg.s16`,
//!   `abs.s32` (kernels k_cvtsat, k_iabs of fixtures/nvidia/lift/cc.sm50.ptx, checked by
//!   sm50_cc.rs). Byte and halfword source selects other than the lowest are typed errors.

use crate::lift::sm86::{self, At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp};
use isabridge_ir::ops::int::{IntOp, Overflow};
use isabridge_ir::soft::Round;
use isabridge_ir::Type;

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    match name {
        "I2F" => Some(i2f(cx, at)),
        "I2I" => Some(i2i(cx, at)),
        "F2F" if at.inst.named("CVT_RINT") == Some(1) => Some(rint(cx, at)),
        _ => None,
    }
}

fn shape(cx: &Cx, at: &At) -> Result<(), LiftError> {
    if at.dsts().len() != 1 || at.srcs().len() != 1 || super::writes_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    Ok(())
}

/// I2F.{F32,F64}.{S8,U8,S16,U16,S32,U32,S64,U64}[.rnd] d, a (the low byte or halfword of a, the
/// register pair a for 64 bits).
fn i2f(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at)?;
    if at.inst.named("SEL_RA").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "I2F of a byte or halfword other than the lowest"));
    }
    let ints: Vec<&str> = at.sfx.iter().copied().filter(|s| ["S8", "U8", "S16", "U16", "S32", "U32", "S64", "U64"].contains(s)).collect();
    // The source's size and sign from its bits (`CVT_SRC`: size 10-11, sign 13, as the
    // decoder prints `I2F.F32.U64`), where the suffixes spell 32 bits whatever the size.
    let (bits, signed) = match (at.inst.named("CVT_SRC"), ints.last()) {
        (Some(v), _) => (8 << (v & 3), v & 4 != 0),
        (None, Some(&"S32")) => (32, true),
        (None, Some(&"U32")) => (32, false),
        _ => return Err(cx.unsupported(at, "I2F source type other than S32 / U32")),
    };
    if bits < 32 && at.inst.named("CVT_SEL").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "I2F of a byte or halfword other than the lowest"));
    }
    let ty = match at.one_of(&["F16", "F32", "F64"]) {
        Some("F32") => Type::F32,
        Some("F64") => Type::F64,
        _ => return Err(cx.unsupported(at, "I2F destination type other than F32 / F64")),
    };
    let src = at.srcs()[0];
    if bits != 32 && (src.mods.neg || src.mods.abs || src.mods.not) {
        return Err(cx.unsupported(at, "I2F of a negated or absolute 8-, 16- or 64-bit source"));
    }
    let x = match bits {
        64 => cx.src64(at, src)?,
        32 => cx.src_int(at, src)?,
        _ => {
            let w = cx.src_int(at, src)?;
            let narrow = if bits == 8 { Type::I8 } else { Type::I16 };
            cx.b().conv(ConvOp::IToI { signed: false }, narrow, w)
        }
    };
    let mut mode = sm86::float32::mode_of(at);
    mode.ftz_in = false;
    let r = cx.b().conv(ConvOp::IToF { mode, signed }, ty, x);
    let d = at.dsts()[0];
    if ty == Type::F64 {
        cx.def64(at, d, r)
    } else {
        cx.def32(at, d, r)
    }
}

/// F2F.F32.F32.{ROUND,FLOOR,CEIL,TRUNC}[.FTZ] d, a: a rounded to an integral value.
fn rint(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at)?;
    let floats: Vec<&str> = at.sfx.iter().copied().filter(|s| ["F16", "F32", "F64"].contains(s)).collect();
    let f64 = match floats[..] {
        ["F32", "F32"] => false,
        ["F64", "F64"] if !at.has("SAT") && !at.has("FTZ") => true,
        _ => return Err(cx.unsupported(at, "F2F rounding to an integral value of another type")),
    };
    let round = match at.inst.named("CVT_RND") {
        Some(0) => Round::Rn,
        Some(1) => Round::Rm,
        Some(2) => Round::Rp,
        Some(3) => Round::Rz,
        _ => return Err(cx.unsupported(at, "rounding field")),
    };
    let mut mode = sm86::float32::mode_of(at);
    mode.round = round;
    let op = FloatOp { mode, ..FloatOp::nv(FloatKind::RoundInt, round) };
    if f64 {
        let x = sm86::float64::src_f64(cx, at, at.srcs()[0])?;
        let r = cx.b().float(op, Type::F64, &[x]);
        return cx.def64(at, at.dsts()[0], r);
    }
    let x = cx.src_f32(at, at.srcs()[0])?;
    let r = cx.b().float(op, Type::F32, &[x]);
    cx.def32(at, at.dsts()[0], r)
}

/// (bits, signed) of an integer type suffix.
fn int_type(s: &str) -> Option<(u32, bool)> {
    Some(match s {
        "U8" => (8, false),
        "S8" => (8, true),
        "U16" => (16, false),
        "S16" => (16, true),
        "U32" => (32, false),
        "S32" => (32, true),
        _ => return None,
    })
}

/// I2I.dst.src[.SAT] d, a (see the module comment).
fn i2i(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at)?;
    if at.inst.named("SEL_RA").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "I2I of a byte or halfword other than the lowest"));
    }
    let ints: Vec<(u32, bool)> = at.sfx.iter().filter_map(|s| int_type(s)).collect();
    let (Some(&(dbits, dsigned)), Some(&(sbits, ssigned)), true) = (ints.first(), ints.last(), ints.len() >= 2) else {
        return Err(cx.unsupported(at, "I2I types"));
    };
    let src = at.srcs()[0];
    let w = cx.word(at, src, 0)?;
    let x = if sbits == 32 {
        cx.b().conv(ConvOp::IToI { signed: ssigned }, Type::I64, w)
    } else {
        let nt = if sbits == 8 { Type::S(isabridge_ir::Scalar::I8) } else { Type::S(isabridge_ir::Scalar::I16) };
        let n = cx.b().conv(ConvOp::IToI { signed: false }, nt, w);
        cx.b().conv(ConvOp::IToI { signed: ssigned }, Type::I64, n)
    };
    let mut x = x;
    if src.mods.abs {
        let zero = cx.k(Type::I64, 0);
        let neg = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I64, &[zero, x]);
        x = cx.b().int(IntOp::Max(true), Type::I64, &[x, neg]);
    }
    if src.mods.neg {
        let zero = cx.k(Type::I64, 0);
        x = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I64, &[zero, x]);
    }
    if src.mods.not {
        return Err(cx.unsupported(at, "I2I with ~"));
    }
    let r = if at.has("SAT") {
        let (lo, hi) = if dsigned { (-(1i64 << (dbits - 1)), (1i64 << (dbits - 1)) - 1) } else { (0, (1i64 << dbits) - 1) };
        let lo = cx.k(Type::I64, lo as u64);
        let hi = cx.k(Type::I64, hi as u64);
        let c = cx.b().int(IntOp::Max(true), Type::I64, &[x, lo]);
        let c = cx.b().int(IntOp::Min(true), Type::I64, &[c, hi]);
        cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, c)
    } else {
        let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, x);
        if dbits == 32 {
            w
        } else {
            let nt = if dbits == 8 { Type::S(isabridge_ir::Scalar::I8) } else { Type::S(isabridge_ir::Scalar::I16) };
            let n = cx.b().conv(ConvOp::IToI { signed: false }, nt, w);
            cx.b().conv(ConvOp::IToI { signed: dsigned }, Type::I32, n)
        }
    };
    cx.def32(at, at.dsts()[0], r)
}
