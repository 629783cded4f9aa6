//! Vector float ALU: add, sub, mul, fma / fmac, min / max, rounding to integral, conversions
//! between float and integer, with abs / neg source modifiers, clamp and omod, and the MODE
//! register's rounding and denormal controls.

use super::lanes::Valu;
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand, OperandKind};
use isabridge_ir::ops::amd::AmdMode;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::int::IntOp;
use isabridge_ir::soft::{FFmt, FloatMode, MinMaxKind, NanRule, Round};
use isabridge_ir::{Type, Value};

/// The float format of a type suffix (`F32`, `F16`, `F64`).
pub(super) fn fmt_of(ty: &str) -> Option<FFmt> {
    Some(match ty {
        "F32" => FFmt::F32,
        "F16" => FFmt::F16,
        "F64" => FFmt::F64,
        _ => return None,
    })
}

fn fty(fmt: FFmt) -> Type {
    Type::S(isabridge_ir::Scalar::F(fmt))
}

/// The float mode of an op in `fmt` under the current MODE register.
pub(super) fn mode(cx: &Cx, fmt: FFmt, clamp: bool) -> FloatMode {
    AmdMode::from_bits(cx.mode).float_mode(fmt, clamp)
}

/// Explicit source `i` read as a float of `fmt`, with DPP, abs and neg applied.
pub(super) fn fsrc(cx: &mut Cx, valu: &Valu, at: &At, op: &Operand, i: usize, fmt: FFmt) -> Result<Value, LiftError> {
    let v = match fmt {
        FFmt::F64 => {
            let bits = if let OperandKind::Literal(_) | OperandKind::InlineConst { .. } = op.kind {
                cx.src64(at, op, true)?
            } else {
                let lo = valu.src32(cx, at, op, i, 0)?;
                let hi = valu.src32(cx, at, op, i, 1)?;
                cx.join64(lo, hi)
            };
            cx.b().bitcast(fty(fmt), bits)
        }
        FFmt::F16 => {
            let w = valu.src32(cx, at, op, i, 0)?;
            let h = cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, w);
            cx.b().bitcast(fty(fmt), h)
        }
        _ => {
            let w = valu.src32(cx, at, op, i, 0)?;
            cx.b().bitcast(fty(fmt), w)
        }
    };
    let sign = |kind| FloatOp {
        kind,
        mode: FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::Propagate },
        fmz: false,
        relu: false,
        omod: Omod::None,
    };
    let mut v = v;
    if op.mods.abs {
        v = cx.b().float(sign(FloatKind::Abs), fty(fmt), &[v]);
    }
    if op.mods.neg {
        v = cx.b().float(sign(FloatKind::Neg), fty(fmt), &[v]);
    }
    Ok(v)
}

/// Write a float result of `fmt` to a VGPR destination under the write mask.
pub(super) fn fdef(cx: &mut Cx, valu: &Valu, at: &At, d: &Operand, v: Value, fmt: FFmt) -> Result<(), LiftError> {
    match fmt {
        FFmt::F64 => {
            let bits = cx.b().bitcast(Type::I64, v);
            let (lo, hi) = cx.split64(bits);
            cx.def_v32(at, d, 0, lo, valu.mask)?;
            cx.def_v32(at, d, 1, hi, valu.mask)
        }
        FFmt::F16 => {
            // A 16-bit result replaces the low half; the high half keeps its bits.
            let h = cx.b().bitcast(Type::I16, v);
            let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, h);
            let key = cx.key_of(d, 0).ok_or_else(|| cx.unsupported(at, "destination"))?;
            let old = cx.rd(key);
            let hi = cx.k32(0xffff_0000);
            let keep = cx.b().int(IntOp::And, Type::I32, &[old, hi]);
            let w = cx.b().int(IntOp::Or, Type::I32, &[keep, w]);
            cx.def_v32(at, d, 0, w, valu.mask)
        }
        _ => {
            let w = cx.b().bitcast(Type::I32, v);
            cx.def_v32(at, d, 0, w, valu.mask)
        }
    }
}

fn omod(at: &At) -> Omod {
    at.inst
        .modifiers
        .iter()
        .find_map(|m| match m {
            Modifier::Omod(1) => Some(Omod::Mul2),
            Modifier::Omod(2) => Some(Omod::Mul4),
            Modifier::Omod(3) => Some(Omod::Div2),
            _ => None,
        })
        .unwrap_or(Omod::None)
}

/// Lift a vector float instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let rest = name.strip_prefix("V_")?;
    let (op, ty) = rest.rsplit_once('_')?;
    if let Some(r) = convert(cx, at, op, ty) {
        return Some(r);
    }
    let fmt = fmt_of(ty)?;
    let kind = match op {
        "ADD" => FloatKind::Add,
        "SUB" | "SUBREV" => FloatKind::Sub,
        "MUL" | "MUL_LEGACY" => FloatKind::Mul,
        "FMA" | "FMAC" | "FMAAK" | "FMAMK" => FloatKind::Fma,
        "MIN" => FloatKind::Min(MinMaxKind::Num),
        "MAX" => FloatKind::Max(MinMaxKind::Num),
        "TRUNC" | "CEIL" | "FLOOR" | "RNDNE" => FloatKind::RoundInt,
        _ => return None,
    };
    Some(arith(cx, at, op, kind, fmt))
}

fn arith(cx: &mut Cx, at: &At, op: &str, kind: FloatKind, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    let mut s = Vec::new();
    for (i, o) in srcs.iter().enumerate() {
        s.push(fsrc(cx, &valu, at, o, i, fmt)?);
    }
    if op == "FMAC" {
        // The destination is the addend.
        let mut acc = d;
        acc.mods = Default::default();
        s.push(fsrc(cx, &valu, at, &acc, 2, fmt)?);
    }
    if op == "SUBREV" {
        s.swap(0, 1);
    }

    let mut m = mode(cx, fmt, at.has(Modifier::Clamp));
    if matches!(kind, FloatKind::Min(_) | FloatKind::Max(_)) && cx.mode >> 9 & 1 == 0 {
        m.nan = NanRule::Keep;
    }
    match op {
        "TRUNC" => m.round = Round::Rz,
        "CEIL" => m.round = Round::Rp,
        "FLOOR" => m.round = Round::Rm,
        "RNDNE" => m.round = Round::Rn,
        _ => {}
    }
    let need = kind.arity();
    if s.len() < need {
        return Err(cx.unsupported(at, "float operands"));
    }
    let fop = FloatOp { kind, mode: m, fmz: op.ends_with("LEGACY"), relu: false, omod: omod(at) };
    let r = cx.b().float(fop, fty(fmt), &s[..need]);
    fdef(cx, &valu, at, &d, r, fmt)
}

/// The output modifier and clamp of an instruction whose op has no fields for them (a
/// conversion), applied to its rounded result.
fn post(cx: &mut Cx, at: &At, r: Value, fmt: FFmt) -> Value {
    let (om, clamp) = (omod(at), at.has(Modifier::Clamp));
    if om == Omod::None && !clamp {
        return r;
    }
    let mut m = mode(cx, fmt, clamp);
    m.ftz_in = false;
    let op = FloatOp { kind: FloatKind::Canon, mode: m, fmz: false, relu: false, omod: om };
    cx.b().float(op, fty(fmt), &[r])
}

fn convert(cx: &mut Cx, at: &At, op: &str, ty: &str) -> Option<Result<(), LiftError>> {
    // V_CVT_<DST>_<SRC>: op is CVT_<DST>, ty the source.
    let dst = op.strip_prefix("CVT_")?;
    let (df, sf) = (fmt_of(dst), fmt_of(ty));
    let ity = |t: &str| match t {
        "I32" => Some(true),
        "U32" => Some(false),
        _ => None,
    };
    Some((|| {
        let valu = Valu::new(cx, at)?;
        let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
        let s0 = *at.srcs().first().copied().ok_or_else(|| cx.unsupported(at, "no source"))?;
        match (df, sf, ity(dst), ity(ty)) {
            (Some(df), None, _, Some(signed)) => {
                let x = valu.src32(cx, at, &s0, 0, 0)?;
                let m = mode(cx, df, false);
                let r = cx.b().conv(ConvOp::IToF { mode: m, signed }, fty(df), x);
                let r = post(cx, at, r, df);
                fdef(cx, &valu, at, &d, r, df)
            }
            (None, Some(sf), Some(signed), _) => {
                let x = fsrc(cx, &valu, at, &s0, 0, sf)?;
                let mut m = mode(cx, sf, false);
                m.round = Round::Rz;
                let r = cx.b().conv(ConvOp::FToI { mode: m, signed }, Type::I32, x);
                cx.def_v32(at, &d, 0, r, valu.mask)
            }
            (Some(df), Some(sf), _, _) => {
                let x = fsrc(cx, &valu, at, &s0, 0, sf)?;
                let mut m = mode(cx, df, false);
                m.ftz_in = mode(cx, sf, false).ftz_in;
                let r = cx.b().conv(ConvOp::FToF { mode: m, satfinite: false }, fty(df), x);
                let r = post(cx, at, r, df);
                fdef(cx, &valu, at, &d, r, df)
            }
            _ => Err(cx.unsupported(at, "conversion kind")),
        }
    })())
}
