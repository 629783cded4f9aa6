//! 16-bit and packing conversions: f16 to and from 16-bit integers, to normalized 16-bit
//! integers (v_cvt_norm_*), the packing conversions (v_cvt_pkrtz_f16_f32, v_cvt_pknorm_*,
//! v_cvt_pk_i16_i32 / u16_u32, v_cvt_pk_u8_f32, v_sat_pk_u8_i16) and v_pack_b32_f16.

use super::lanes::Valu;
use super::vfloat::{conv_mode, def16, fsrc, fty};
use super::vop3p::{half, pack};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::int::{IntOp, ShiftRule};
use isabridge_ir::soft::{FFmt, FloatMode, MinMaxKind, NanRule, Round};
use isabridge_ir::{Type, Value};

/// Lift a 16-bit or packing conversion; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "V_CVT_NORM_I16_F16" | "V_CVT_NORM_U16_F16" => norm_f16(cx, at, name.contains("I16_")),
        "V_CVT_I16_F16" | "V_CVT_U16_F16" => f16_to_int(cx, at, name == "V_CVT_I16_F16"),
        "V_CVT_F16_I16" | "V_CVT_F16_U16" => int_to_f16(cx, at, name == "V_CVT_F16_I16"),
        "V_CVT_PKRTZ_F16_F32" => pkrtz(cx, at),
        "V_CVT_PKNORM_I16_F32" | "V_CVT_PKNORM_U16_F32" => pknorm(cx, at, FFmt::F32, name.contains("I16")),
        "V_CVT_PKNORM_I16_F16" | "V_CVT_PKNORM_U16_F16" => pknorm(cx, at, FFmt::F16, name.contains("I16")),
        "V_CVT_PK_I16_I32" | "V_CVT_PK_U16_U32" => pk_sat16(cx, at, name == "V_CVT_PK_I16_I32"),
        "V_CVT_PK_U8_F32" => pk_u8(cx, at),
        "V_SAT_PK_U8_I16" => sat_pk_u8(cx, at),
        "V_PACK_B32_F16" => pack_b32(cx, at),
        _ => return None,
    })
}

fn operands(cx: &Cx, at: &At, n: usize) -> Result<(Operand, Vec<Operand>), LiftError> {
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if s.len() < n {
        return Err(cx.unsupported(at, "conversion operands"));
    }
    Ok((d, s))
}

/// A float op with `mode` and no output modifier.
fn fop(kind: FloatKind, mode: FloatMode) -> FloatOp {
    FloatOp { kind, mode, fmz: false, relu: false, omod: Omod::None }
}

/// x (f16 or f32) as a normalized 16-bit integer: x clamped to [-1, 1] (signed) or [0, 1],
/// times 32767 or 65535, rounded to nearest even (exact in f64); NaN gives 0.
fn norm16(cx: &mut Cx, x: Value, fmt: FFmt, signed: bool) -> Value {
    let m = conv_mode(cx, fmt);
    let exact = FloatMode { round: Round::Rn, ftz_in: m.ftz_in, ftz_out: false, sat: false, nan: NanRule::Propagate, ..m };
    let x = cx.b().conv(ConvOp::FToF { mode: exact, satfinite: false }, fty(FFmt::F64), x);
    let plain = FloatMode { ftz_in: false, ..exact };
    let lo = cx.k(fty(FFmt::F64), if signed { (-1.0f64).to_bits() } else { 0 });
    let one = cx.k(fty(FFmt::F64), 1.0f64.to_bits());
    // NaN-propagating bounds keep a NaN to the integer conversion, which gives 0.
    let x = cx.b().float(fop(FloatKind::Max(MinMaxKind::NanPropagating), plain), fty(FFmt::F64), &[x, lo]);
    let x = cx.b().float(fop(FloatKind::Min(MinMaxKind::NanPropagating), plain), fty(FFmt::F64), &[x, one]);
    let scale = cx.k(fty(FFmt::F64), if signed { 32767.0f64 } else { 65535.0f64 }.to_bits());
    let x = cx.b().float(fop(FloatKind::Mul, plain), fty(FFmt::F64), &[x, scale]);
    let r = cx.b().conv(ConvOp::FToI { mode: plain, signed: true }, Type::I32, x);
    cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, r)
}

/// v_cvt_norm_i16_f16 / u16: clamp and the output modifier do not change the result (RDNA2
/// Float16Modifiers: `v_cvt_norm_u16_f16 mul:2` of 0.5 gives 32768).
fn norm_f16(cx: &mut Cx, at: &At, signed: bool) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 1)?;
    let x = fsrc(cx, &valu, at, &s[0], 0, FFmt::F16)?;
    let r = norm16(cx, x, FFmt::F16, signed);
    def16(cx, &valu, at, &d, r)
}

/// v_cvt_i16_f16 / v_cvt_u16_f16: truncate toward zero, saturate, NaN gives 0.
fn f16_to_int(cx: &mut Cx, at: &At, signed: bool) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 1)?;
    let x = fsrc(cx, &valu, at, &s[0], 0, FFmt::F16)?;
    let mut m = conv_mode(cx, FFmt::F16);
    m.round = Round::Rz;
    let r = cx.b().conv(ConvOp::FToI { mode: m, signed }, Type::I16, x);
    def16(cx, &valu, at, &d, r)
}

/// v_cvt_f16_i16 / v_cvt_f16_u16: the source's low half (or the half op_sel picks).
fn int_to_f16(cx: &mut Cx, at: &At, signed: bool) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 1)?;
    let w = valu.src32(cx, at, &s[0], 0, 0)?;
    let h = half(cx, w, super::vfloat::vop3_op_sel(at) & 1 != 0);
    let m = conv_mode(cx, FFmt::F16);
    let r = cx.b().conv(ConvOp::IToF { mode: m, signed }, fty(FFmt::F16), h);
    let r = super::vfloat::post(cx, at, r, FFmt::F16);
    let r = cx.b().bitcast(Type::I16, r);
    def16(cx, &valu, at, &d, r)
}

/// v_cvt_pkrtz_f16_f32: two f32 to f16, rounded toward zero, src0 in the low half.
fn pkrtz(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 2)?;
    let mut h = Vec::new();
    for (i, o) in s.iter().enumerate().take(2) {
        let x = fsrc(cx, &valu, at, o, i, FFmt::F32)?;
        let mut m = conv_mode(cx, FFmt::F16);
        m.ftz_in = conv_mode(cx, FFmt::F32).ftz_in;
        m.round = Round::Rz;
        let r = cx.b().conv(ConvOp::FToF { mode: m, satfinite: false }, fty(FFmt::F16), x);
        h.push(cx.b().bitcast(Type::I16, r));
    }
    let r = pack(cx, h[0], h[1]);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

/// v_cvt_pknorm_{i16,u16}_{f32,f16}: two normalized 16-bit integers, src0 in the low half.
fn pknorm(cx: &mut Cx, at: &At, fmt: FFmt, signed: bool) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 2)?;
    let mut h = Vec::new();
    for (i, o) in s.iter().enumerate().take(2) {
        let x = fsrc(cx, &valu, at, o, i, fmt)?;
        h.push(norm16(cx, x, fmt, signed));
    }
    let r = pack(cx, h[0], h[1]);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

/// v_cvt_pk_i16_i32 / v_cvt_pk_u16_u32: two 32-bit integers saturated to 16 bits.
fn pk_sat16(cx: &mut Cx, at: &At, signed: bool) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 2)?;
    let (lo, hi) = if signed { (i16::MIN as i32 as u32, i16::MAX as u32) } else { (0, u16::MAX as u32) };
    let mut h = Vec::new();
    for (i, o) in s.iter().enumerate().take(2) {
        let x = valu.src32(cx, at, o, i, 0)?;
        let x = if signed {
            let l = cx.k32(lo);
            cx.b().int(IntOp::Max(true), Type::I32, &[x, l])
        } else {
            x
        };
        let k = cx.k32(hi);
        let x = cx.b().int(IntOp::Min(signed), Type::I32, &[x, k]);
        h.push(cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, x));
    }
    let r = pack(cx, h[0], h[1]);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

/// v_cvt_pk_u8_f32: src0 converted to an unsigned byte (rounded to nearest even, saturated,
/// NaN 0) replaces byte `src1 & 3` of src2.
fn pk_u8(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 3)?;
    let x = fsrc(cx, &valu, at, &s[0], 0, FFmt::F32)?;
    let sel = valu.src32(cx, at, &s[1], 1, 0)?;
    let old = valu.src32(cx, at, &s[2], 2, 0)?;
    let mut m = conv_mode(cx, FFmt::F32);
    m.round = Round::Rn;
    let b = cx.b().conv(ConvOp::FToI { mode: m, signed: false }, Type::I32, x);
    let k = cx.k32(255);
    let b = cx.b().int(IntOp::Min(false), Type::I32, &[b, k]);
    let three = cx.k32(3);
    let idx = cx.b().int(IntOp::And, Type::I32, &[sel, three]);
    let eight = cx.k32(8);
    let shift = cx.b().int(IntOp::MulLo, Type::I32, &[idx, eight]);
    let placed = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[b, shift]);
    let byte = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[k, shift]);
    let hole = cx.b().int(IntOp::Not, Type::I32, &[byte]);
    let kept = cx.b().int(IntOp::And, Type::I32, &[old, hole]);
    let r = cx.b().int(IntOp::Or, Type::I32, &[kept, placed]);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

/// v_sat_pk_u8_i16: the two signed halves of src0 saturated to unsigned bytes, in bits 15:0.
fn sat_pk_u8(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 1)?;
    let w = valu.src32(cx, at, &s[0], 0, 0)?;
    let mut b = Vec::new();
    for hi in [false, true] {
        let h = half(cx, w, hi);
        let zero = cx.k(Type::I16, 0);
        let max = cx.k(Type::I16, 255);
        let h = cx.b().int(IntOp::Max(true), Type::I16, &[h, zero]);
        b.push(cx.b().int(IntOp::Min(true), Type::I16, &[h, max]));
    }
    let k = cx.k(Type::I16, 8);
    let hi = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I16, &[b[1], k]);
    let r = cx.b().int(IntOp::Or, Type::I16, &[b[0], hi]);
    def16(cx, &valu, at, &d, r)
}

/// v_pack_b32_f16: src0's f16 (the half op_sel picks, abs / neg applied) in the low half,
/// src1's in the high half.
fn pack_b32(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let (d, s) = operands(cx, at, 2)?;
    let a = fsrc(cx, &valu, at, &s[0], 0, FFmt::F16)?;
    let b = fsrc(cx, &valu, at, &s[1], 1, FFmt::F16)?;
    let a = cx.b().bitcast(Type::I16, a);
    let b = cx.b().bitcast(Type::I16, b);
    let r = pack(cx, a, b);
    cx.def_v32(at, &d, 0, r, valu.mask)
}
