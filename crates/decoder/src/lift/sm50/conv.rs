//! Maxwell conversions that sm_86's conversion family does not read the same way:
//! - `I2F.dst.src[.rnd]`: the model spells an extra integer type before the printed one
//!   (`I2F.F32.S32` has suffixes F32, U32, S32), so the source type is the last integer
//!   suffix.
//! - `F2F.F32.F32.{ROUND,FLOOR,CEIL,TRUNC}` (the form's integral-rounding bit, `CVT_RINT`):
//!   rounding to an integral value (sm_86's FRND), the direction from the rounding field
//!   (`CVT_RND`: nearest, down, up, toward zero; the model spells these forms `.PASS` and a
//!   rounding suffix). Other F2F forms go to sm_86's F2F.

use crate::lift::sm86::{self, At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp};
use isabridge_ir::soft::Round;
use isabridge_ir::Type;

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    match name {
        "I2F" => Some(i2f(cx, at)),
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

/// I2F.{F32,F64}.{S32,U32}[.rnd] d, a.
fn i2f(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    shape(cx, at)?;
    if at.inst.named("SEL_RA").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "I2F of a byte or halfword other than the lowest"));
    }
    let ints: Vec<&str> = at.sfx.iter().copied().filter(|s| ["S8", "U8", "S16", "U16", "S32", "U32", "S64", "U64"].contains(s)).collect();
    let signed = match ints.last() {
        Some(&"S32") => true,
        Some(&"U32") => false,
        _ => return Err(cx.unsupported(at, "I2F source type other than S32 / U32")),
    };
    let ty = match at.one_of(&["F16", "F32", "F64"]) {
        Some("F32") => Type::F32,
        Some("F64") => Type::F64,
        _ => return Err(cx.unsupported(at, "I2F destination type other than F32 / F64")),
    };
    let src = at.srcs()[0];
    let x = cx.src_int(at, src)?;
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
    if floats != ["F32", "F32"] || at.has("SAT") {
        return Err(cx.unsupported(at, "F2F rounding to an integral value of a type other than F32"));
    }
    let round = match at.inst.named("CVT_RND") {
        Some(0) => Round::Rn,
        Some(1) => Round::Rm,
        Some(2) => Round::Rp,
        Some(3) => Round::Rz,
        _ => return Err(cx.unsupported(at, "rounding field")),
    };
    let x = cx.src_f32(at, at.srcs()[0])?;
    let mut mode = sm86::float32::mode_of(at);
    mode.round = round;
    let r = cx.b().float(FloatOp { mode, ..FloatOp::nv(FloatKind::RoundInt, round) }, Type::F32, &[x]);
    cx.def32(at, at.dsts()[0], r)
}
