//! Packed 16-bit floats: HADD2, HMUL2, HFMA2 (`.BF16_V2`, `.FTZ`, `.SAT`, `.RELU`, `.F32`
//! results), HMNMX2 (`.NAN`), HSETP2 (one predicate per half), HSET2 (1.0 or a mask per half). Register sources carry a
//! swizzle: both halves as they are, `.H0_H0` / `.H1_H1` (one half in both lanes) or `.F32`
//! (an f32 rounded to the lane format in both lanes).

use super::float32::{bool_op, fcmp_of, mode_of, FCMP_NAMES};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{ConstType, Operand, OperandKind, RegClass};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp};
use isabridge_ir::soft::{FFmt, FloatMode, MinMaxKind, Round};
use isabridge_ir::{Scalar, Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "HADD2" => arith(cx, at, FloatKind::Add, 2),
        "HMUL2" => arith(cx, at, FloatKind::Mul, 2),
        "HFMA2" => arith(cx, at, FloatKind::Fma, 3),
        "HMNMX2" => minmax(cx, at),
        "HSETP2" => hsetp2(cx, at),
        "HSET2" => hset2(cx, at),
        _ => return None,
    })
}

fn fmt_of(at: &At) -> FFmt {
    if !matches!(at.inst.name, "HSETP2" | "HSET2") && at.inst.named("H_BF16").unwrap_or(0) == 1 {
        FFmt::BF16
    } else {
        FFmt::F16
    }
}

fn vty(f: FFmt) -> Type {
    Type::V(Scalar::F(f), 2)
}

/// The swizzle of source `k` (0 both halves, 1 `.F32`, 2 `.H0_H0`, 3 `.H1_H1`): registers and
/// constant-bank words carry one, immediates none. HSETP2 has no high swizzle bit (that bit
/// means something else there); HFMA2 takes swizzles only in its register form.
fn swizzle(cx: &Cx, at: &At, k: usize, op: &Operand) -> Result<u64, LiftError> {
    let g = |n: &str| at.inst.named(n).unwrap_or(0);
    let swizzled = matches!(op.kind, OperandKind::Reg(r) if matches!(r.class, RegClass::R | RegClass::Ur))
        || matches!(op.kind, OperandKind::Special { .. } | OperandKind::ConstBank { .. });
    let hi = if matches!(at.inst.name, "HSETP2" | "HSET2") { 0 } else { g("H_SWZ_B_HI") << 2 };
    if at.inst.name == "HFMA2" && g("H_FORM") != 1 {
        if g("H_SWZ_A") | g("H_SWZ_B") | hi | g("H_SWZ_C") != 0 {
            return Err(cx.unsupported(at, "HFMA2 swizzle of a non-register form"));
        }
        return Ok(0);
    }
    let v = match k {
        0 => g("H_SWZ_A"),
        1 => g("H_SWZ_B") | hi,
        _ => g("H_SWZ_C"),
    };
    if !swizzled {
        return Ok(0);
    }
    if v > 3 {
        return Err(cx.unsupported(at, "swizzle"));
    }
    Ok(v)
}

/// A source of a packed instruction: an operand, or a pair of 16-bit immediates (the first
/// printed is the high half: `HADD2 R18, R5.H0_H0, 1, 1`).
enum HSrc<'a> {
    Op(&'a Operand),
    Pair(u32),
}

/// The sources in order, immediate pairs merged.
fn hsrcs<'a>(at: &At<'a>) -> Vec<HSrc<'a>> {
    let srcs = at.srcs();
    let mut out = Vec::new();
    let mut i = 0;
    while i < srcs.len() {
        if let (OperandKind::FImm { bits: hi, ty: ConstType::F16 | ConstType::Bf16 }, Some(OperandKind::FImm { bits: lo, .. })) =
            (srcs[i].kind, srcs.get(i + 1).map(|o| o.kind))
        {
            out.push(HSrc::Pair(((hi as u32) & 0xffff) << 16 | (lo as u32) & 0xffff));
            i += 2;
            continue;
        }
        out.push(HSrc::Op(srcs[i]));
        i += 1;
    }
    out
}

/// Source `k` as a pair of `f`, swizzled, with `|x|` / `-x` on both halves.
fn src(cx: &mut Cx, at: &At, k: usize, f: FFmt) -> Result<Value, LiftError> {
    let op = match hsrcs(at).get(k) {
        Some(HSrc::Op(o)) => *o,
        Some(HSrc::Pair(bits)) => {
            let w = cx.k32(*bits);
            return Ok(cx.b().bitcast(vty(f), w));
        }
        None => return Err(cx.unsupported(at, "operand shape")),
    };
    let sw = swizzle(cx, at, k, op)?;
    let w = cx.word(at, op, 0)?;
    let w = if sw == 1 {
        // An f32 operand, rounded to the lane format, in both lanes.
        let w = cx.sign_mods(op, w, 0x8000_0000);
        let x = cx.b().bitcast(Type::F32, w);
        let h = cx.b().conv(ConvOp::FToF { mode: FloatMode::nv(Round::Rn), satfinite: false }, Type::S(Scalar::F(f)), x);
        return Ok(cx.b().build(vty(f), &[h, h]));
    } else {
        cx.sign_mods(op, w, 0x8000_8000)
    };
    let v = cx.b().bitcast(vty(f), w);
    Ok(match sw {
        2 | 3 => {
            let h = cx.b().extract(Type::S(Scalar::F(f)), v, (sw - 2) as u8);
            cx.b().build(vty(f), &[h, h])
        }
        _ => v,
    })
}

fn arith(cx: &mut Cx, at: &At, kind: FloatKind, n: usize) -> Result<(), LiftError> {
    let dsts = at.dsts();
    if dsts.len() != 1 || hsrcs(at).len() != n || at.inst.named("H_MMA").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let f = fmt_of(at);
    let mut args = Vec::new();
    for k in 0..n {
        args.push(src(cx, at, k, f)?);
    }
    if at.inst.name == "HADD2" && at.inst.named("H_ABS_A").unwrap_or(0) == 1 && at.inst.named("H_F32").unwrap_or(0) == 0 {
        // |a|: both halves.
        let mut abs = FloatOp::nv(FloatKind::Abs, Round::Rn);
        abs.mode.nan = isabridge_ir::soft::NanRule::Propagate;
        args[0] = cx.b().float(abs, vty(f), &[args[0]]);
    }
    let mut op = FloatOp { mode: mode_of(at), fmz: at.has("FMZ"), ..FloatOp::nv(kind, Round::Rn) };
    op.relu = at.has("RELU");
    if at.inst.named("H_F32").unwrap_or(0) == 1 {
        // `.F32`: the low lanes widened to f32 (exactly) and combined in f32.
        let wide: Vec<Value> = args
            .iter()
            .map(|v| {
                let h = cx.b().extract(Type::S(Scalar::F(f)), *v, 0);
                cx.b().conv(ConvOp::FToF { mode: FloatMode::nv(Round::Rn), satfinite: false }, Type::F32, h)
            })
            .collect();
        let r = cx.b().float(op, Type::F32, &wide);
        return cx.def32(at, dsts[0], r);
    }
    let r = cx.b().float(op, vty(f), &args);
    cx.def32(at, dsts[0], r)
}

/// HMNMX2 d, a, b, p: per half p ? min : max (`.NAN`: NaN when either is NaN).
fn minmax(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let dsts = at.dsts();
    let hs = hsrcs(at);
    if dsts.len() != 1 || hs.len() != 3 || at.has("XORSIGN") {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let HSrc::Op(pop) = hs[2] else { return Err(cx.unsupported(at, "operand shape")) };
    let f = fmt_of(at);
    let a = src(cx, at, 0, f)?;
    let b = src(cx, at, 1, f)?;
    let p = cx.pred(at, pop)?;
    let k = if at.has("NAN") { MinMaxKind::NanPropagating } else { MinMaxKind::Num };
    let mode = mode_of(at);
    let mn = cx.b().float(FloatOp { mode, ..FloatOp::nv(FloatKind::Min(k), Round::Rn) }, vty(f), &[a, b]);
    let mx = cx.b().float(FloatOp { mode, ..FloatOp::nv(FloatKind::Max(k), Round::Rn) }, vty(f), &[a, b]);
    let mi = cx.b().bitcast(Type::I32, mn);
    let xi = cx.b().bitcast(Type::I32, mx);
    let r = cx.b().select(Type::I32, p, mi, xi);
    cx.def_word(at, dsts[0], 0, r)
}

/// HSETP2.cmp.bop Pd, Pq, a, b, Pc: Pd from the low halves, Pq from the high halves (the
/// `.H_AND` form, one result of both, is not lifted).
fn hsetp2(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let dsts = at.dsts();
    let hs = hsrcs(at);
    if dsts.len() != 2 || hs.len() != 3 || at.has("H_AND") {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let HSrc::Op(pop) = hs[2] else { return Err(cx.unsupported(at, "operand shape")) };
    let f = fmt_of(at);
    let cmp = at.one_of(&FCMP_NAMES).and_then(fcmp_of).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let a = src(cx, at, 0, f)?;
    let b = src(cx, at, 1, f)?;
    let c = cx.pred(at, pop)?;
    let ftz = at.has("FTZ");
    for (lane, d) in dsts.iter().enumerate() {
        let x = cx.b().extract(Type::S(Scalar::F(f)), a, lane as u8);
        let y = cx.b().extract(Type::S(Scalar::F(f)), b, lane as u8);
        let r = match cmp {
            Some(k) => cx.b().fcmp(k, ftz, x, y),
            None => cx.k(Type::B1, at.has("T") as u64),
        };
        let p = bool_op(cx, at, r, c)?;
        cx.def_pred(at, d, p)?;
    }
    Ok(())
}

/// HSET2[.BF].cmp.bop d, a, b, Pc: per half, (a cmp b) bop Pc as 1.0 (`.BF`) or all ones,
/// else 0.
fn hset2(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let dsts = at.dsts();
    let hs = hsrcs(at);
    if dsts.len() != 1 || hs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let HSrc::Op(pop) = hs[2] else { return Err(cx.unsupported(at, "operand shape")) };
    let f = FFmt::F16;
    let cmp = at.one_of(&FCMP_NAMES).and_then(fcmp_of).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let a = src(cx, at, 0, f)?;
    let b = src(cx, at, 1, f)?;
    let c = cx.pred(at, pop)?;
    let ftz = at.has("FTZ");
    let t = cx.b().konst(Type::I16, if at.has("BF") { 0x3c00 } else { 0xffff });
    let z = cx.b().konst(Type::I16, 0);
    let mut halves = Vec::new();
    for lane in 0..2u8 {
        let x = cx.b().extract(Type::S(Scalar::F(f)), a, lane);
        let y = cx.b().extract(Type::S(Scalar::F(f)), b, lane);
        let r = match cmp {
            Some(k) => cx.b().fcmp(k, ftz, x, y),
            None => cx.k(Type::B1, at.has("T") as u64),
        };
        let p = bool_op(cx, at, r, c)?;
        halves.push(cx.b().select(Type::I16, p, t, z));
    }
    let v = cx.b().build(Type::V(Scalar::I16, 2), &halves);
    cx.def32(at, dsts[0], v)
}
