//! Vector transcendental and special-function ALU: v_rcp / v_rcp_iflag / v_rsq / v_sqrt /
//! v_log / v_exp / v_sin / v_cos in f16, f32 and f64 (as the IR's `approx.*` ops),
//! v_mullit_f32, v_trig_preop_f64 and the class tests v_cmp_class / v_cmpx_class.
//!
//! The hardware units are not correctly rounded; the IR's `approx` ops give the correctly
//! rounded value of the exact function, and the RDNA2 vectors compare these results under the
//! tolerance their harness states (NanQuieting: sqrt/rcp only where a NaN is expected;
//! LogNearOne: per-row ulps; F64Transcendental: relative 2^-23). NaNs are exact: a NaN operand
//! comes out as the mode's NaN rule gives it (unchanged with IEEE off, quieted with IEEE on, for
//! f16 and f32 alike: RDNA2 NanQuieting, v_sqrt/v_rcp f32 and f16; f64 quieted: RDNA2
//! F64Transcendental), an invalid operand (a negative square root, ...) gives the mode's
//! invalid-operation NaN (RDNA2 F64Transcendental: v_rsq_f64(-1) = 0xfff8000000000000).

use super::lanes::Valu;
use super::vfloat::{fdef, fmt_of, fsrc, fty, mode, post};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand};
use isabridge_ir::ops::float::{FCmp, FloatKind, FloatOp, Omod};
use isabridge_ir::ops::int::IntOp;
use isabridge_ir::soft::approx::ApproxFn;
use isabridge_ir::soft::{self, FFmt, FloatMode, NanRule};
use isabridge_ir::Type;

/// Lift a transcendental instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    if name == "V_MULLIT_F32" {
        return Some(mullit(cx, at));
    }
    if name == "V_TRIG_PREOP_F64" {
        return Some(trig_preop(cx, at));
    }
    if let Some(ty) = name.strip_prefix("V_CMP_CLASS_").or_else(|| name.strip_prefix("V_CMPX_CLASS_")) {
        return Some(class(cx, at, name.starts_with("V_CMPX_"), fmt_of(ty)?));
    }
    let rest = name.strip_prefix("V_")?;
    let (op, ty) = rest.rsplit_once('_')?;
    let fmt = fmt_of(ty)?;
    let f = match op {
        "RCP" | "RCP_IFLAG" => ApproxFn::Rcp,
        "RSQ" => ApproxFn::Rsq,
        "SQRT" => ApproxFn::Sqrt,
        "LOG" if fmt != FFmt::F64 => ApproxFn::Lg2,
        "EXP" if fmt != FFmt::F64 => ApproxFn::Ex2,
        "SIN" if fmt != FFmt::F64 => ApproxFn::SinRev,
        "COS" if fmt != FFmt::F64 => ApproxFn::CosRev,
        _ => return None,
    };
    Some(approx(cx, at, f, fmt))
}

/// The NaN rule of a transcendental in `fmt`: NaN operands unchanged with IEEE off (f16 and
/// f32), else quieted; an invalid operation gives the sign-set default NaN with IEEE off.
fn nan_rule(cx: &Cx, fmt: FFmt) -> NanRule {
    let ieee = cx.mode >> 9 & 1 != 0;
    match (fmt, ieee) {
        (FFmt::F64, false) => NanRule::PropagateNeg,
        (_, false) => NanRule::Keep,
        _ => NanRule::Propagate,
    }
}

fn approx(cx: &mut Cx, at: &At, f: ApproxFn, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s0 = *at.srcs().first().copied().ok_or_else(|| cx.unsupported(at, "no source"))?;
    let x = fsrc(cx, &valu, at, &s0, 0, fmt)?;
    let r = approx_value(cx, f, fmt, x);
    let r = post(cx, at, r, fmt);
    fdef(cx, &valu, at, &d, r, fmt)
}

/// The transcendental `f` of `x` in `fmt` under the current MODE, NaNs as the mode gives them.
pub(super) fn approx_value(cx: &mut Cx, f: ApproxFn, fmt: FFmt, x: isabridge_ir::Value) -> isabridge_ir::Value {
    let m = mode(cx, fmt, false);
    let t = fty(fmt);
    let r = cx.b().approx(f, m.ftz_in, t, x);
    let rule = nan_rule(cx, fmt);
    // An invalid operation (the model's NaN for a non-NaN operand) gives the mode's NaN.
    let invalid = cx.k(t, soft::nan_result(fmt, rule, &[]));
    let r_nan = cx.b().fcmp(FCmp::Nan, false, r, r);
    let r = cx.b().select(t, r_nan, invalid, r);
    // A NaN operand: unchanged under `Keep`, quieted otherwise (`propnanneg` quiets the
    // operand; its invalid NaN never arises here).
    let keep_rule = if rule == NanRule::Keep { NanRule::Keep } else { NanRule::PropagateNeg };
    let nan_mode = FloatMode { nan: keep_rule, ..FloatMode::nv(soft::Round::Rn) };
    let q = cx.b().float(FloatOp { kind: FloatKind::Canon, mode: nan_mode, fmz: false, relu: false, omod: Omod::None }, t, &[x]);
    let x_nan = cx.b().fcmp(FCmp::Nan, false, x, x);
    cx.b().select(t, x_nan, q, r)
}

/// v_mullit_f32 (a lighting multiply): -MAX_FLOAT when b is -MAX_FLOAT, -inf or NaN, or c is not
/// above 0 (NaN included); else a × b with 0 × anything = 0 (RDNA2 NanQuieting: mullit(1, NaN, 3)
/// and mullit(1, 2, NaN) give 0xff7fffff, mullit(NaN, 2, 3) the NaN operand).
fn mullit(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if srcs.len() < 3 {
        return Err(cx.unsupported(at, "mullit operands"));
    }
    let fmt = FFmt::F32;
    let t = fty(fmt);
    let mut s = Vec::new();
    for (i, o) in srcs.iter().enumerate().take(3) {
        s.push(fsrc(cx, &valu, at, o, i, fmt)?);
    }
    let m = mode(cx, fmt, at.has(Modifier::Clamp));
    let ftz = m.ftz_in;
    let neg_max = cx.k(t, 0xff7f_ffff);
    let neg_inf = cx.k(t, 0xff80_0000);
    let zero = cx.k(t, 0);
    let c1 = cx.b().fcmp(FCmp::Eq, ftz, s[1], neg_max);
    let c2 = cx.b().fcmp(FCmp::Eq, ftz, s[1], neg_inf);
    let c3 = cx.b().fcmp(FCmp::Nan, ftz, s[1], s[1]);
    let c4 = cx.b().fcmp(FCmp::Leu, ftz, s[2], zero);
    let any = cx.b().int(IntOp::Or, Type::B1, &[c1, c2]);
    let any = cx.b().int(IntOp::Or, Type::B1, &[any, c3]);
    let any = cx.b().int(IntOp::Or, Type::B1, &[any, c4]);
    let mut mm = m;
    mm.sat = false;
    let mul = FloatOp { kind: FloatKind::Mul, mode: mm, fmz: true, relu: false, omod: Omod::None };
    let p = cx.b().float(mul, t, &s[..2]);
    let r = cx.b().select(t, any, neg_max, p);
    let r = post(cx, at, r, fmt);
    fdef(cx, &valu, at, &d, r, fmt)
}

/// v_trig_preop_f64: the 53-bit slice src1 of 2/π for reducing src0 (the IR's `ftwooverpi`);
/// the output modifier is ignored (RDNA2 F64Transcendental: trig_preop with mul:2 gives the
/// slice unscaled).
fn trig_preop(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if srcs.len() < 2 {
        return Err(cx.unsupported(at, "trig_preop operands"));
    }
    let x = fsrc(cx, &valu, at, &srcs[0], 0, FFmt::F64)?;
    let seg = valu.src32(cx, at, &srcs[1], 1, 0)?;
    let m = mode(cx, FFmt::F64, at.has(Modifier::Clamp));
    let op = FloatOp { kind: FloatKind::TwoOverPiSlice, mode: m, fmz: false, relu: false, omod: Omod::None };
    let r = cx.b().float(op, fty(FFmt::F64), &[x, seg]);
    fdef(cx, &valu, at, &d, r, FFmt::F64)
}

/// v_cmp_class / v_cmpx_class: whether src0's IEEE class (after abs / neg; subnormals not
/// flushed) is among the classes set in src1's bits 0-9 (the IR's `fclass` order: signalling
/// NaN, quiet NaN, -inf, -normal, -subnormal, -0, +0, +subnormal, +normal, +inf), as a lane
/// mask in VCC or an SGPR pair (inactive lanes 0); the x form also writes EXEC.
fn class(cx: &mut Cx, at: &At, x: bool, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if srcs.len() < 2 {
        return Err(cx.unsupported(at, "class operands"));
    }
    let v = fsrc(cx, &valu, at, &srcs[0], 0, fmt)?;
    let mask = valu.src32(cx, at, &srcs[1], 1, 0)?;
    let c = cx.b().conv(isabridge_ir::ops::conv::ConvOp::Class, Type::I32, v);
    let hit = cx.b().int(IntOp::And, Type::I32, &[c, mask]);
    let zero = cx.k32(0);
    let cond = cx.b().int(IntOp::Cmp(isabridge_ir::ops::int::ICmp::Ne), Type::B1, &[hit, zero]);
    let m = cx.b().lane(isabridge_ir::ops::lane::LaneOp::Ballot, Type::Mask, &[cond, valu.mask]);
    let d = *at.inst.operands.iter().find(|o| o.access.writes()).ok_or_else(|| cx.unsupported(at, "no destination"))?;
    if !(x && d.implicit && cx.key_of(&d, 0) == Some(super::EXEC_LO)) {
        super::vint::write_mask(cx, at, &d, m)?;
    }
    if x {
        cx.write_mask_pair(super::EXEC_LO, m);
    }
    Ok(())
}
