//! Packed 16-bit vector ALU (VOP3P, and v_pk_fmac_f16 in its VOP2 and DPP forms): each op
//! runs on a low lane and a high lane and packs the two 16-bit results, low lane in bits 15:0.
//!
//! Source i's low-lane operand is its high half when op_sel bit i is set, else its low half;
//! its high-lane operand is the high half when op_sel_hi bit i is set. neg_lo / neg_hi negate
//! a float operand of the low / high lane. clamp saturates each float result to [0, 1] (under
//! the MODE register's DX10_CLAMP rule for NaN) and each integer result to its type's range.
//! The packed ops lower to per-half scalar IR ops on 16-bit values.

use super::lanes::Valu;
use super::vfloat::{clamp_keeping_nan, fty, ieee, min_max_kind, mode, nan_survives_clamp};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::int::{IntOp, Overflow, ShiftRule};
use isabridge_ir::soft::{FFmt, NanRule};
use isabridge_ir::{Type, Value};

/// Lift a packed 16-bit instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let op = name.strip_prefix("V_PK_")?;
    Some(match op {
        "ADD_F16" | "MUL_F16" | "FMA_F16" | "FMAC_F16" | "MIN_F16" | "MAX_F16" => float(cx, at, op),
        "ADD_U16" | "ADD_I16" | "SUB_U16" | "SUB_I16" | "MUL_LO_U16" | "MIN_U16" | "MIN_I16" | "MAX_U16" | "MAX_I16"
        | "LSHLREV_B16" | "LSHRREV_B16" | "ASHRREV_I16" | "MAD_U16" | "MAD_I16" => int(cx, at, op),
        _ => return None,
    })
}

/// The half-select bits of an instruction: (op_sel, op_sel_hi). The VOP2 / DPP form of
/// v_pk_fmac_f16 has no such fields: each lane reads its own half.
fn selects(at: &At) -> (u8, u8) {
    if !at.inst.encoding.starts_with("ENC_VOP3P") {
        return (0, 0b111);
    }
    let mut sel = (0, 0);
    for m in &at.inst.modifiers {
        match *m {
            Modifier::OpSel(x) => sel.0 = x,
            Modifier::OpSelHi(x) => sel.1 = x,
            _ => {}
        }
    }
    sel
}

/// The neg_hi bits (VOP3P's NEG_HI field).
fn neg_hi(at: &At) -> u8 {
    at.inst.modifiers.iter().find_map(|m| if let Modifier::Named("NEG_HI", v) = m { Some(*v as u8) } else { None }).unwrap_or(0)
}

/// Half `hi` of a 32-bit word as i16.
pub(super) fn half(cx: &mut Cx, w: Value, hi: bool) -> Value {
    let w = if hi {
        let k = cx.k32(16);
        cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[w, k])
    } else {
        w
    };
    cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, w)
}

/// Two i16 values packed into an i32, `lo` in bits 15:0.
pub(super) fn pack(cx: &mut Cx, lo: Value, hi: Value) -> Value {
    let lo = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, lo);
    let hi = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, hi);
    let k = cx.k32(16);
    let hi = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[hi, k]);
    cx.b().int(IntOp::Or, Type::I32, &[lo, hi])
}

/// The sources as 32-bit words (DPP applied to source 0), with the destination appended as
/// the accumulator of v_pk_fmac_f16.
fn words(cx: &mut Cx, valu: &Valu, at: &At, acc: bool) -> Result<(Vec<Operand>, Vec<Value>), LiftError> {
    let mut srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    let mut w = Vec::new();
    for (i, o) in srcs.iter().enumerate() {
        w.push(valu.src32(cx, at, o, i, 0)?);
    }
    if acc {
        let mut d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
        d.mods = Default::default();
        w.push(cx.src32(at, &d, 0)?);
        srcs.push(d);
    }
    Ok((srcs, w))
}

/// Each lane's operands: for lane `hi`, source i's selected half.
fn lane_operands(cx: &mut Cx, at: &At, w: &[Value], hi: bool) -> Vec<Value> {
    let (op_sel, op_sel_hi) = selects(at);
    let bits = if hi { op_sel_hi } else { op_sel };
    w.iter().enumerate().map(|(i, &x)| half(cx, x, bits >> i & 1 != 0)).collect()
}

fn float(cx: &mut Cx, at: &At, op: &str) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let (srcs, w) = words(cx, &valu, at, op == "FMAC_F16")?;
    let kind = match op {
        "ADD_F16" => FloatKind::Add,
        "MUL_F16" => FloatKind::Mul,
        "MIN_F16" => FloatKind::Min(min_max_kind(cx, FFmt::F16)),
        "MAX_F16" => FloatKind::Max(min_max_kind(cx, FFmt::F16)),
        _ => FloatKind::Fma,
    };
    if w.len() < kind.arity() {
        return Err(cx.unsupported(at, "packed operands"));
    }
    let mut m = mode(cx, FFmt::F16, at.has(crate::operand::Modifier::Clamp));
    if !ieee(cx) {
        // With IEEE off a packed op returns its first NaN operand unchanged, signalling ones
        // too, and an invalid one gives -qNaN 0xfe00 (RDNA2 Dx10Clamp `expected32_no_dx10`:
        // v_pk_mul_f16 / v_pk_add_f16 / v_pk_fma_f16 of 0x7c01 give 0x7c01, of 0xfd23 and
        // 0x7e00 give 0xfd23 / 0x7e00 in operand order, v_pk_fma_f16(-inf, 0, -inf) 0xfe00).
        m.nan = NanRule::Keep;
    }
    if matches!(kind, FloatKind::Min(_) | FloatKind::Max(_)) {
        // As the scalar f16 min / max (vfloat.rs): no output flush where input denormals are
        // kept.
        m.ftz_out = m.ftz_in;
    }
    // RDNA2 Dx10Clamp [expected32_no_dx10]: the packed ops' clamp leaves a NaN a NaN.
    let keep_nan = nan_survives_clamp(cx, &mut m);
    let nh = neg_hi(at);
    let t = fty(FFmt::F16);
    let mut out = Vec::new();
    for hi in [false, true] {
        let ops = lane_operands(cx, at, &w[..kind.arity()], hi);
        let mut f = Vec::new();
        for (i, x) in ops.into_iter().enumerate() {
            let x = cx.b().bitcast(t, x);
            let neg = if hi { nh >> i & 1 != 0 } else { srcs[i].mods.neg };
            f.push(if neg { super::vfloat::negate(cx, x, FFmt::F16) } else { x });
        }
        let fop = FloatOp { kind, mode: m, fmz: false, relu: false, omod: Omod::None };
        let mut r = cx.b().float(fop, t, &f);
        if keep_nan {
            r = clamp_keeping_nan(cx, r, m, FFmt::F16);
        }
        out.push(cx.b().bitcast(Type::I16, r));
    }
    let r = pack(cx, out[0], out[1]);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

fn int(cx: &mut Cx, at: &At, op: &str) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let (_, w) = words(cx, &valu, at, false)?;
    let clamp = at.has(Modifier::Clamp);
    let signed = op.ends_with("I16");
    let sat = if !clamp {
        Overflow::Wrap
    } else if signed {
        Overflow::SatS
    } else {
        Overflow::SatU
    };
    let arity = if op.starts_with("MAD") { 3 } else { 2 };
    if w.len() < arity {
        return Err(cx.unsupported(at, "packed operands"));
    }
    let mut out = Vec::new();
    for hi in [false, true] {
        let s = lane_operands(cx, at, &w[..arity], hi);
        let t = Type::I16;
        let r = match op {
            "ADD_U16" | "ADD_I16" => cx.b().int(IntOp::Add(sat), t, &[s[0], s[1]]),
            "SUB_U16" | "SUB_I16" => cx.b().int(IntOp::Sub(sat), t, &[s[0], s[1]]),
            "MUL_LO_U16" => cx.b().int(IntOp::MulLo, t, &[s[0], s[1]]),
            "MIN_U16" | "MIN_I16" => cx.b().int(IntOp::Min(signed), t, &[s[0], s[1]]),
            "MAX_U16" | "MAX_I16" => cx.b().int(IntOp::Max(signed), t, &[s[0], s[1]]),
            // The shifts take the amount from source 0 (its low 4 bits) and shift source 1.
            "LSHLREV_B16" => cx.b().int(IntOp::Shl(ShiftRule::Wrap), t, &[s[1], s[0]]),
            "LSHRREV_B16" => cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), t, &[s[1], s[0]]),
            "ASHRREV_I16" => cx.b().int(IntOp::Shr(true, ShiftRule::Wrap), t, &[s[1], s[0]]),
            _ => mad16(cx, &s, signed, clamp),
        };
        out.push(r);
    }
    let r = pack(cx, out[0], out[1]);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

/// a * b + c on 16-bit integers: the low 16 bits, or with clamp the exact value saturated to
/// the 16-bit range.
pub(super) fn mad16(cx: &mut Cx, s: &[Value], signed: bool, clamp: bool) -> Value {
    if !clamp {
        let p = cx.b().int(IntOp::MulLo, Type::I16, &[s[0], s[1]]);
        return cx.b().int(IntOp::Add(Overflow::Wrap), Type::I16, &[p, s[2]]);
    }
    let w: Vec<Value> = s.iter().map(|&x| cx.b().conv(ConvOp::IToI { signed }, Type::I64, x)).collect();
    let p = cx.b().int(IntOp::MulLo, Type::I64, &[w[0], w[1]]);
    let r = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[p, w[2]]);
    let (lo, hi) = if signed { (i16::MIN as i64 as u64, i16::MAX as u64) } else { (0, u16::MAX as u64) };
    let lo = cx.k(Type::I64, lo);
    let hi = cx.k(Type::I64, hi);
    let r = cx.b().int(IntOp::Max(true), Type::I64, &[r, lo]);
    let r = cx.b().int(IntOp::Min(true), Type::I64, &[r, hi]);
    cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, r)
}
