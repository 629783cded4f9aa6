//! 16-bit vector integer ALU (VOP2 / VOP3 / SDWA forms): add, sub, mul_lo, shifts, min / max,
//! min3 / max3 / med3, mad, and the ones with a 32-bit result (v_mad_u32_u16, v_mad_i32_i16;
//! v_sad_u16 is with the other SADs in vmad.rs). A 16-bit source is the low half of its
//! register, or the high half with VOP3 op_sel; a 16-bit result goes to the low half (the high
//! half with op_sel bit 3), the other half kept. clamp saturates add / sub / mad to the type's
//! range.

use super::lanes::Valu;
use super::vfloat::{def16, vop3_op_sel};
use super::vop3p::{half, mad16};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{IntOp, Overflow, ShiftRule};
use isabridge_ir::{Type, Value};

/// Lift a 16-bit integer instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let op = name.strip_prefix("V_")?;
    let (base, ty) = op.rsplit_once('_')?;
    if !matches!(ty, "U16" | "I16" | "B16") {
        return None;
    }
    let known = matches!(
        base,
        "ADD_NC" | "SUB_NC" | "SUBREV_NC" | "MUL_LO" | "LSHLREV" | "LSHRREV" | "ASHRREV" | "MIN" | "MAX" | "MIN3" | "MAX3" | "MED3" | "MAD"
            | "MAD_U32" | "MAD_I32"
    );
    if !known {
        return None;
    }
    Some(int16(cx, at, base, ty == "I16"))
}

fn int16(cx: &mut Cx, at: &At, base: &str, signed: bool) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    let arity = match base {
        "MIN3" | "MAX3" | "MED3" | "MAD" | "MAD_U32" | "MAD_I32" => 3,
        _ => 2,
    };
    if srcs.len() < arity {
        return Err(cx.unsupported(at, "16-bit integer operands"));
    }
    let sel = vop3_op_sel(at);
    let mut w = Vec::new();
    for (i, o) in srcs.iter().enumerate().take(arity) {
        w.push(valu.src32(cx, at, o, i, 0)?);
    }
    let h: Vec<Value> = w.iter().enumerate().map(|(i, &x)| half(cx, x, sel >> i & 1 != 0)).collect();
    let clamp = at.has(Modifier::Clamp);
    let sat = match (clamp, signed) {
        (false, _) => Overflow::Wrap,
        (true, true) => Overflow::SatS,
        (true, false) => Overflow::SatU,
    };
    let t = Type::I16;
    let r = match base {
        "ADD_NC" => cx.b().int(IntOp::Add(sat), t, &[h[0], h[1]]),
        "SUB_NC" => cx.b().int(IntOp::Sub(sat), t, &[h[0], h[1]]),
        "SUBREV_NC" => cx.b().int(IntOp::Sub(sat), t, &[h[1], h[0]]),
        "MUL_LO" => cx.b().int(IntOp::MulLo, t, &[h[0], h[1]]),
        // The shifts shift source 1 by source 0's low 4 bits.
        "LSHLREV" => cx.b().int(IntOp::Shl(ShiftRule::Wrap), t, &[h[1], h[0]]),
        "LSHRREV" => cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), t, &[h[1], h[0]]),
        "ASHRREV" => cx.b().int(IntOp::Shr(true, ShiftRule::Wrap), t, &[h[1], h[0]]),
        "MIN" => cx.b().int(IntOp::Min(signed), t, &[h[0], h[1]]),
        "MAX" => cx.b().int(IntOp::Max(signed), t, &[h[0], h[1]]),
        "MIN3" | "MAX3" => {
            let k = if base == "MIN3" { IntOp::Min(signed) } else { IntOp::Max(signed) };
            let a = cx.b().int(k, t, &[h[0], h[1]]);
            cx.b().int(k, t, &[a, h[2]])
        }
        "MED3" => {
            let lo = cx.b().int(IntOp::Min(signed), t, &[h[0], h[1]]);
            let hi = cx.b().int(IntOp::Max(signed), t, &[h[0], h[1]]);
            let hc = cx.b().int(IntOp::Min(signed), t, &[hi, h[2]]);
            cx.b().int(IntOp::Max(signed), t, &[lo, hc])
        }
        "MAD" => mad16(cx, &h, signed, clamp),
        _ => return wide(cx, &valu, at, &d, base, &h, w[2], clamp),
    };
    def16(cx, &valu, at, &d, r)
}

/// The 32-bit results of v_mad_u32_u16 / v_mad_i32_i16 (a * b + c, c 32 bits); clamp
/// saturates to 32 bits.
#[allow(clippy::too_many_arguments)]
fn wide(cx: &mut Cx, valu: &Valu, at: &At, d: &Operand, base: &str, h: &[Value], c: Value, clamp: bool) -> Result<(), LiftError> {
    let signed = base == "MAD_I32";
    let a = cx.b().conv(ConvOp::IToI { signed }, Type::I64, h[0]);
    let b = cx.b().conv(ConvOp::IToI { signed }, Type::I64, h[1]);
    let c = cx.b().conv(ConvOp::IToI { signed }, Type::I64, c);
    let ab = cx.b().int(IntOp::MulLo, Type::I64, &[a, b]);
    let r = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[ab, c]);
    let r = if clamp {
        let (lo, hi) = if signed { (i32::MIN as i64 as u64, i32::MAX as u64) } else { (0, u32::MAX as u64) };
        let lo = cx.k(Type::I64, lo);
        let hi = cx.k(Type::I64, hi);
        let r = cx.b().int(IntOp::Max(true), Type::I64, &[r, lo]);
        cx.b().int(IntOp::Min(true), Type::I64, &[r, hi])
    } else {
        r
    };
    let r = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, r);
    cx.def_v32(at, d, 0, r, valu.mask)
}
