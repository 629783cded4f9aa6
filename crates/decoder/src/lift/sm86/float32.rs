//! f32 arithmetic, compares and selects: FADD, FMUL, FFMA (rounding `.RM` / `.RP` / `.RZ`,
//! `.FTZ`, `.SAT`, `.FMZ`), FMNMX (`.NAN`), FSEL, FSETP, FCHK.

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::float::{FCmp, FloatKind, FloatOp};
use isabridge_ir::ops::int::IntOp;
use isabridge_ir::soft::{FloatMode, MinMaxKind};
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "FADD" => arith(cx, at, FloatKind::Add, 2),
        "FMUL" => arith(cx, at, FloatKind::Mul, 2),
        "FFMA" => arith(cx, at, FloatKind::Fma, 3),
        "FMNMX" => minmax(cx, at),
        "FSEL" => fsel(cx, at),
        "FSETP" => fsetp(cx, at),
        "FCHK" => fchk(cx, at),
        _ => return None,
    })
}

/// The float mode of an instruction: its rounding, `.FTZ` (inputs and results) and `.SAT`.
pub(crate) fn mode_of(at: &At) -> FloatMode {
    let mut m = FloatMode::nv(at.round());
    let ftz = at.has("FTZ");
    m.ftz_in = ftz;
    m.ftz_out = ftz;
    m.sat = at.has("SAT");
    m
}

fn arith(cx: &mut Cx, at: &At, kind: FloatKind, n: usize) -> Result<(), LiftError> {
    if let Some(s) = at.one_of(&["D2", "D4", "D8", "M2", "M4", "M8"]) {
        return Err(cx.unsupported(at, &format!("FMUL scaling .{s}")));
    }
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != n {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let mut args = Vec::with_capacity(n);
    for s in &srcs {
        args.push(cx.src_f32(at, s)?);
    }
    let op = FloatOp { mode: mode_of(at), fmz: at.has("FMZ"), ..FloatOp::nv(kind, at.round()) };
    let r = cx.b().float(op, Type::F32, &args);
    cx.def32(at, dsts[0], r)
}

/// FMNMX d, a, b, p: p ? min(a, b) : max(a, b); `.NAN` gives NaN when either operand is NaN.
fn minmax(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if at.has("XORSIGN") {
        return Err(cx.unsupported(at, "FMNMX .XORSIGN"));
    }
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.src_f32(at, srcs[0])?;
    let b = cx.src_f32(at, srcs[1])?;
    let p = cx.pred(at, srcs[2])?;
    let k = if at.has("NAN") { MinMaxKind::NanPropagating } else { MinMaxKind::Num };
    let mode = mode_of(at);
    let mn = cx.b().float(FloatOp { mode, ..FloatOp::nv(FloatKind::Min(k), mode.round) }, Type::F32, &[a, b]);
    let mx = cx.b().float(FloatOp { mode, ..FloatOp::nv(FloatKind::Max(k), mode.round) }, Type::F32, &[a, b]);
    let r = cx.b().select(Type::F32, p, mn, mx);
    cx.def32(at, dsts[0], r)
}

/// FSEL d, a, b, p: p ? a : b (the bits as they are, sign modifiers applied).
fn fsel(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if at.has("FTZ") {
        return Err(cx.unsupported(at, "FSEL .FTZ"));
    }
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.word(at, srcs[0], 0)?;
    let a = cx.sign_mods(srcs[0], a, 0x8000_0000);
    let b = cx.word(at, srcs[1], 0)?;
    let b = cx.sign_mods(srcs[1], b, 0x8000_0000);
    let p = cx.pred(at, srcs[2])?;
    let r = cx.b().select(Type::I32, p, a, b);
    cx.def32(at, dsts[0], r)
}

/// The compare of a `xSETP` suffix (`T` and `F` give None: constant results).
pub(crate) fn fcmp_of(s: &str) -> Option<Option<FCmp>> {
    Some(Some(match s {
        "LT" => FCmp::Lt,
        "EQ" => FCmp::Eq,
        "LE" => FCmp::Le,
        "GT" => FCmp::Gt,
        "NE" => FCmp::Ne,
        "GE" => FCmp::Ge,
        "NUM" => FCmp::Num,
        "NAN" => FCmp::Nan,
        "LTU" => FCmp::Ltu,
        "EQU" => FCmp::Equ,
        "LEU" => FCmp::Leu,
        "GTU" => FCmp::Gtu,
        "NEU" => FCmp::Neu,
        "GEU" => FCmp::Geu,
        "T" | "F" => return Some(None),
        _ => return None,
    }))
}

/// The compare suffixes of float `xSETP` forms.
pub(crate) const FCMP_NAMES: [&str; 16] =
    ["F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T"];

/// Combine a compare result with a predicate by the `.AND` / `.OR` / `.XOR` suffix.
pub(crate) fn bool_op(cx: &mut Cx, at: &At, r: Value, c: Value) -> Result<Value, LiftError> {
    let op = match at.one_of(&["AND", "OR", "XOR"]) {
        Some("AND") => IntOp::And,
        Some("OR") => IntOp::Or,
        Some("XOR") => IntOp::Xor,
        _ => return Err(cx.unsupported(at, "no .AND / .OR / .XOR")),
    };
    Ok(cx.b().int(op, Type::B1, &[r, c]))
}

/// Write a `xSETP` result: Pd = r op c, Pq = !r op c.
pub(crate) fn setp_defs(cx: &mut Cx, at: &At, r: Value, c: Value) -> Result<(), LiftError> {
    let dsts = at.dsts();
    if dsts.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let p = bool_op(cx, at, r, c)?;
    let nr = cx.not1(r);
    let q = bool_op(cx, at, nr, c)?;
    cx.def_pred(at, dsts[0], p)?;
    cx.def_pred(at, dsts[1], q)
}

/// FSETP.cmp.bop Pd, Pq, a, b, Pc.
fn fsetp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let srcs = at.srcs();
    if srcs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let cmp = at.one_of(&FCMP_NAMES).and_then(fcmp_of).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let a = cx.src_f32(at, srcs[0])?;
    let b = cx.src_f32(at, srcs[1])?;
    let c = cx.pred(at, srcs[2])?;
    let r = match cmp {
        Some(k) => cx.b().fcmp(k, at.has("FTZ"), a, b),
        None => cx.k(Type::B1, at.has("T") as u64),
    };
    setp_defs(cx, at, r, c)
}

/// FCHK P, a, b: whether the division a / b must take ptxas's slow path. Modelled
/// conservatively: false only when both operands are normal (not zero) and the exponent
/// difference keeps the reciprocal-based quotient and its residual normal; true otherwise.
/// A true where the hardware gives false only sends the division through the exact slow path,
/// so the quotient is the same.
fn fchk(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.word(at, srcs[0], 0)?;
    let a = cx.sign_mods(srcs[0], a, 0x8000_0000);
    let b = cx.word(at, srcs[1], 0)?;
    let b = cx.sign_mods(srcs[1], b, 0x8000_0000);
    let exp = |cx: &mut Cx, x: Value| {
        let s = cx.k32(23);
        let m = cx.k32(0xff);
        let e = cx.b().int(IntOp::Shr(false, isabridge_ir::ops::int::ShiftRule::Clamp), Type::I32, &[x, s]);
        cx.b().int(IntOp::And, Type::I32, &[e, m])
    };
    use isabridge_ir::ops::int::ICmp;
    let ea = exp(cx, a);
    let eb = exp(cx, b);
    // a: zero or a biased exponent in [96, 158]; b: a biased exponent in [96, 158] (the quotient stays far from overflow and underflow).
    let in_range = |cx: &mut Cx, e: Value| {
        let lo = cx.k32(96);
        let hi = cx.k32(158);
        let x = cx.b().int(IntOp::Cmp(ICmp::Uge), Type::I32, &[e, lo]);
        let y = cx.b().int(IntOp::Cmp(ICmp::Ule), Type::I32, &[e, hi]);
        cx.b().int(IntOp::And, Type::B1, &[x, y])
    };
    // A zero a takes the slow path too: the fast path's `FFMA q, a, rcp, RZ` adds +0, so it
    // would give +0 for a = -0, and the H200 row `div_rn 80000000 4b800000` (-0 / 2^24) is -0.
    let a_ok = in_range(cx, ea);
    let b_ok = in_range(cx, eb);
    let ok = cx.b().int(IntOp::And, Type::B1, &[a_ok, b_ok]);
    let r = cx.not1(ok);
    cx.def_pred(at, dsts[0], r)
}
