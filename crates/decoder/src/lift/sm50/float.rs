//! Maxwell float instructions sm_86 does not have: FSET (a compare giving a mask or 1.0),
//! RRO (the range reduction before MUFU), and the 32-bit-immediate forms FADD32I, FMUL32I,
//! (sm_86's FADD / FMUL on the immediate), DMNMX, DSET (FSET on f64).
//!
//! RRO's output is a format of the hardware's own that only MUFU reads; here it is an f32 that
//! sm_86's MUFU takes: `RRO.SINCOS` gives the angle in revolutions (x times 1/2π rounded toward
//! zero, as ptxas computes it before MUFU.SIN on sm_86), `RRO.EX2` the value itself.

use crate::lift::sm86::{self, At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::float::{FloatKind, FloatOp};
use isabridge_ir::soft::{MinMaxKind, NanRule, Round};
use crate::operand::Operand;
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "FSET" => fset(cx, at),
        "RRO" => rro(cx, at),
        "FADD32I" => immediate(cx, at, "FADD"),
        "FMUL32I" => immediate(cx, at, "FMUL"),
        "DMNMX" => dmnmx(cx, at),
        "DSET" => dset(cx, at),
        _ => return None,
    })
}

/// FSET.cmp[.FTZ].bop[.BF] d, a, b, p: r = (a cmp b) bop p; d = r ? 0xffffffff : 0, or with
/// `.BF` r ? 1.0 : 0.0.
fn fset(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 || super::writes_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let cmp = at.one_of(&sm86::float32::FCMP_NAMES).and_then(sm86::float32::fcmp_of).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let a = cx.src_f32(at, srcs[0])?;
    let b = cx.src_f32(at, srcs[1])?;
    let p = cx.pred(at, srcs[2])?;
    let r = match cmp {
        Some(k) => cx.b().fcmp(k, at.has("FTZ"), a, b),
        None => cx.k(Type::B1, at.has("T") as u64),
    };
    set_result(cx, at, r, p, dsts[0])
}

/// DSET.cmp.bop[.BF] d, a, b, p: FSET on f64 operands: r = (a cmp b) bop p; d = r ?
/// 0xffffffff : 0, or with `.BF` r ? 1.0 : 0.0. PTX `set.cmp.{u32,f32}.f64`, all 14 compares
/// (kernel k_dset of fixtures/nvidia/lift/cc.sm50.ptx, checked by sm50_cc.rs).
fn dset(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 || super::writes_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let cmp = at.one_of(&sm86::float32::FCMP_NAMES).and_then(sm86::float32::fcmp_of).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let a = sm86::float64::src_f64(cx, at, srcs[0])?;
    let b = sm86::float64::src_f64(cx, at, srcs[1])?;
    let p = cx.pred(at, srcs[2])?;
    let r = match cmp {
        Some(k) => cx.b().fcmp(k, false, a, b),
        None => cx.k(Type::B1, at.has("T") as u64),
    };
    set_result(cx, at, r, p, dsts[0])
}

/// The result FSET and DSET share: r = r bop p; d = r ? 0xffffffff : 0, or with `.BF`
/// r ? 1.0 : 0.0.
fn set_result(cx: &mut Cx, at: &At, r: Value, p: Value, dst: &Operand) -> Result<(), LiftError> {
    let r = sm86::float32::bool_op(cx, at, r, p)?;
    let one = cx.k32(if at.has("BF") { 0x3f80_0000 } else { 0xffff_ffff });
    let zero = cx.k32(0);
    let v = cx.b().select(Type::I32, r, one, zero);
    cx.def32(at, dst, v)
}

/// RRO.{SINCOS,EX2} d, a (see the module comment).
fn rro(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 1 || super::writes_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.src_f32(at, srcs[0])?;
    let r = match at.one_of(&["SINCOS", "EX2"]) {
        Some("SINCOS") => {
            let k = cx.k32(0x3e22_f983);
            let k = cx.b().bitcast(Type::F32, k);
            cx.b().float(FloatOp::nv(FloatKind::Mul, Round::Rz), Type::F32, &[a, k])
        }
        Some(_) => a,
        None => return Err(cx.unsupported(at, "range reduction kind")),
    };
    cx.def32(at, dsts[0], r)
}

/// The 32-bit-immediate forms: the sm_86 instruction `base` on the same operands.
fn immediate(cx: &mut Cx, at: &At, base: &str) -> Result<(), LiftError> {
    if super::writes_cc(at) {
        return Err(cx.unsupported(at, "condition code destination"));
    }
    sm86::float32::lift(cx, at, base).unwrap_or_else(|| Err(cx.unsupported(at, "no lifter")))
}

/// DMNMX d, a, b, p: p ? min(a, b) : max(a, b) of f64s (a NaN operand gives the other).
fn dmnmx(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 || super::writes_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = sm86::float64::src_f64(cx, at, srcs[0])?;
    let b = sm86::float64::src_f64(cx, at, srcs[1])?;
    let p = cx.pred(at, srcs[2])?;
    let mut op = FloatOp::nv(FloatKind::Min(MinMaxKind::Num), Round::Rn);
    op.mode.nan = NanRule::NvF64;
    let mn = cx.b().float(op, Type::F64, &[a, b]);
    op.kind = FloatKind::Max(MinMaxKind::Num);
    let mx = cx.b().float(op, Type::F64, &[a, b]);
    let r = cx.b().select(Type::F64, p, mn, mx);
    cx.def64(at, dsts[0], r)
}
