//! f64 arithmetic and compares: DADD, DMUL, DFMA (rounding `.RM` / `.RP` / `.RZ`), DSETP
//! (including `.MIN` / `.MAX`, the selection predicates ptxas builds min.f64 / max.f64 from).
//! NaN results follow the H200's f64 rule ([`NanRule::NvF64`]).

use super::float32::{fcmp_of, setp_defs, FCMP_NAMES};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::float::{FCmp, FloatKind, FloatOp};
use isabridge_ir::ops::int::{ICmp, IntOp};
use isabridge_ir::soft::NanRule;
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "DADD" => arith(cx, at, FloatKind::Add, 2),
        "DMUL" => arith(cx, at, FloatKind::Mul, 2),
        "DFMA" => arith(cx, at, FloatKind::Fma, 3),
        "DSETP" => dsetp(cx, at),
        _ => return None,
    })
}

/// An f64 source: a register pair, a constant-bank pair or an immediate, with `|x|` and `-x`
/// on the sign bit.
pub(crate) fn src_f64(cx: &mut Cx, at: &At, op: &Operand) -> Result<Value, LiftError> {
    let lo = cx.word(at, op, 0)?;
    let hi = cx.word(at, op, 1)?;
    let hi = cx.sign_mods(op, hi, 0x8000_0000);
    let v = cx.join64(lo, hi);
    Ok(cx.b().bitcast(Type::F64, v))
}

fn arith(cx: &mut Cx, at: &At, kind: FloatKind, n: usize) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != n {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let mut args = Vec::with_capacity(n);
    for s in &srcs {
        args.push(src_f64(cx, at, s)?);
    }
    let mut op = FloatOp::nv(kind, at.round());
    op.mode.nan = NanRule::NvF64;
    let r = cx.b().float(op, Type::F64, &args);
    cx.def64(at, dsts[0], r)
}

/// DSETP.cmp.bop Pd, Pq, a, b, Pc. `.MIN` / `.MAX`: Pd is whether a is min(a, b) (max): a is
/// not NaN and (b is NaN, or a orders before b, -0 before +0); Pq is whether both are NaN.
fn dsetp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let srcs = at.srcs();
    if srcs.len() != 3 || at.dsts().len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = src_f64(cx, at, srcs[0])?;
    let b = src_f64(cx, at, srcs[1])?;
    let c = cx.pred(at, srcs[2])?;
    if let Some(m) = at.one_of(&["MIN", "MAX"]) {
        let min = m == "MIN";
        let a_nan = cx.b().fcmp(FCmp::Nan, false, a, a);
        let b_nan = cx.b().fcmp(FCmp::Nan, false, b, b);
        let before = cx.b().fcmp(if min { FCmp::Lt } else { FCmp::Gt }, false, a, b);
        let eq = cx.b().fcmp(FCmp::Eq, false, a, b);
        // Equal values: a wins unless it is +0 against -0 (min) or -0 against +0 (max).
        let ai = cx.b().bitcast(Type::I64, a);
        let bi = cx.b().bitcast(Type::I64, b);
        let tie = cx.b().int(IntOp::Cmp(if min { ICmp::Sle } else { ICmp::Sge }), Type::I64, &[ai, bi]);
        let eq_win = cx.b().int(IntOp::And, Type::B1, &[eq, tie]);
        let wins = cx.b().int(IntOp::Or, Type::B1, &[before, eq_win]);
        let wins = cx.b().int(IntOp::Or, Type::B1, &[wins, b_nan]);
        let a_ok = cx.not1(a_nan);
        let pick_a = cx.b().int(IntOp::And, Type::B1, &[a_ok, wins]);
        let both = cx.b().int(IntOp::And, Type::B1, &[a_nan, b_nan]);
        let dsts = at.dsts();
        let p = super::float32::bool_op(cx, at, pick_a, c)?;
        let q = super::float32::bool_op(cx, at, both, c)?;
        cx.def_pred(at, dsts[0], p)?;
        return cx.def_pred(at, dsts[1], q);
    }
    let cmp = at.one_of(&FCMP_NAMES).and_then(fcmp_of).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let r = match cmp {
        Some(k) => cx.b().fcmp(k, false, a, b),
        None => cx.k(Type::B1, at.has("T") as u64),
    };
    setp_defs(cx, at, r, c)
}
