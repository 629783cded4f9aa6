//! Vector float ALU: add, sub, mul, fma / fmac, min / max, rounding to integral, conversions
//! between float and integer, with abs / neg source modifiers, clamp and omod, and the MODE
//! register's rounding and denormal controls.

use super::lanes::Valu;
use super::mode::AmdMode;
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand, OperandKind};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FCmp, FloatKind, FloatOp, Omod};
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

/// The IR type of a float format.
pub(super) fn fty(fmt: FFmt) -> Type {
    Type::S(isabridge_ir::Scalar::F(fmt))
}

/// The float mode of an op in `fmt` under the current MODE register.
pub(super) fn mode(cx: &Cx, fmt: FFmt, clamp: bool) -> FloatMode {
    let mut m = AmdMode::from_bits(cx.mode).float_mode(fmt, clamp);
    if cx.mode >> 9 & 1 == 0 {
        // IEEE mode off (RDNA2 default tables): f32 NaN operands come out unchanged, signalling
        // ones too, and invalid operations give -qNaN (F32ArithmeticNan); f64 NaNs are quieted,
        // invalid gives -qNaN (F64Arithmetic); f16 NaNs are quieted (Float16Rounding).
        m.nan = match fmt {
            FFmt::F32 => NanRule::Keep,
            FFmt::F64 => NanRule::PropagateNeg,
            _ => m.nan,
        };
    } else if fmt == FFmt::F32 {
        // IEEE mode on: f32 NaN operands come out quieted, an invalid operation gives -qNaN
        // 0xffc00000, and an fma's invalid product wins over a NaN addend (RDNA2
        // F32ArithmeticNan `expected32_ieee`: mul(inf, 0) and fma(inf, 0, 0x7fc00003) give
        // 0xffc00000, add(0x7f812345, 1) gives 0x7fc12345).
        m.nan = NanRule::PropagateNeg;
    }
    m
}

/// Whether the IEEE bit of the MODE register is set.
pub(super) fn ieee(cx: &Cx) -> bool {
    cx.mode >> 9 & 1 != 0
}

/// The min / max kind of an AMD float min / max under the MODE register. With IEEE on it is
/// IEEE 754-2008 minNum / maxNum: a signalling NaN operand wins over a quiet one and over a
/// number and comes out quieted; a quiet NaN is ignored (RDNA2 F16MinMaxNan `expected32_ieee`:
/// min(0, 0x7c01) = 0x7e01, min(0x7e00, 0xfd23) = 0xff23, min3(0, 0x7c01, 0x7c00) = 0x7c00;
/// F32OutputModifier `expected32_ieee`: min(0x7f800001, 2) = 0x7fc00001). f64 min / max are
/// IEEE 754-2008 in either mode (F64Arithmetic). Otherwise NaN operands are ignored.
pub(super) fn min_max_kind(cx: &Cx, fmt: FFmt) -> MinMaxKind {
    if ieee(cx) || fmt == FFmt::F64 {
        MinMaxKind::Num2008
    } else {
        MinMaxKind::Num
    }
}

/// Whether the clamp bit under the MODE register leaves a NaN result a NaN: with DX10_CLAMP
/// off it does, other results clamp to [0, 1] as with DX10_CLAMP on (RDNA2 Dx10Clamp
/// `expected32_no_dx10`). When it does, this takes `sat` off `m` and the caller clamps the
/// result with [`clamp_keeping_nan`].
pub(super) fn nan_survives_clamp(cx: &Cx, m: &mut FloatMode) -> bool {
    let keep = m.sat && cx.mode >> 8 & 1 == 0;
    if keep {
        m.sat = false;
    }
    keep
}

/// The float mode of an f16/f32/f64 op that passes NaN operands through (fract, ldexp,
/// frexp_mant, rounding to integral): with IEEE off f16 NaNs come out unchanged like f32 ones
/// (RDNA2 NanQuieting: v_fract_f16, v_ldexp_f16, v_frexp_mant_f16 and v_rndne_f16 of 0x7d23
/// give 0x7d23).
pub(super) fn pass_mode(cx: &Cx, fmt: FFmt, clamp: bool) -> FloatMode {
    let mut m = mode(cx, fmt, clamp);
    if fmt == FFmt::F16 && cx.mode >> 9 & 1 == 0 {
        m.nan = NanRule::Keep;
    }
    m
}

/// The float mode of a conversion into or out of `fmt`: NaNs come out quieted whatever the
/// IEEE bit (RDNA2 Float16Rounding, F64NanConversions).
pub(super) fn conv_mode(cx: &Cx, fmt: FFmt) -> FloatMode {
    AmdMode::from_bits(cx.mode).float_mode(fmt, false)
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
            let h = super::vop3p::half(cx, w, vop3_op_sel(at) >> i & 1 != 0);
            cx.b().bitcast(fty(fmt), h)
        }
        _ => {
            let w = valu.src32(cx, at, op, i, 0)?;
            cx.b().bitcast(fty(fmt), w)
        }
    };
    Ok(source_mods(cx, op, v, fmt))
}

/// A pure sign-bit operation (abs, neg; NaNs included).
fn sign_op(cx: &mut Cx, kind: FloatKind, x: Value, fmt: FFmt) -> Value {
    let op = FloatOp {
        kind,
        mode: FloatMode { nan: NanRule::Propagate, ..FloatMode::nv(Round::Rn) },
        fmz: false,
        relu: false,
        omod: Omod::None,
    };
    cx.b().float(op, fty(fmt), &[x])
}

/// A float source's abs and neg modifiers, in that order.
pub(super) fn source_mods(cx: &mut Cx, op: &Operand, v: Value, fmt: FFmt) -> Value {
    let mut v = v;
    if op.mods.abs {
        v = sign_op(cx, FloatKind::Abs, v, fmt);
    }
    if op.mods.neg {
        v = sign_op(cx, FloatKind::Neg, v, fmt);
    }
    v
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
            let h = cx.b().bitcast(Type::I16, v);
            def16(cx, valu, at, d, h)
        }
        _ => {
            let w = cx.b().bitcast(Type::I32, v);
            cx.def_v32(at, d, 0, w, valu.mask)
        }
    }
}

/// The op_sel bits of a VOP3 instruction (bit i: source i reads its high half; bit 3: the
/// result goes to the high half); 0 for other encodings.
pub(super) fn vop3_op_sel(at: &At) -> u8 {
    if at.inst.encoding != "ENC_VOP3" {
        return 0;
    }
    at.inst.modifiers.iter().find_map(|m| if let Modifier::OpSel(x) = m { Some(*x) } else { None }).unwrap_or(0)
}

/// Write a 16-bit result (i16) to a VGPR under the write mask: into the low half, or the high
/// half with VOP3 op_sel bit 3; the other half keeps its bits. An SDWA form hands the result,
/// zero-extended, to its destination select.
pub(super) fn def16(cx: &mut Cx, valu: &Valu, at: &At, d: &Operand, h: Value) -> Result<(), LiftError> {
    let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, h);
    if at.inst.modifiers.iter().any(|m| matches!(m, Modifier::DstSel(_))) {
        return cx.def_v32(at, d, 0, w, valu.mask);
    }
    let high = vop3_op_sel(at) >> 3 & 1 != 0;
    let key = cx.key_of(d, 0).ok_or_else(|| cx.unsupported(at, "destination"))?;
    let old = cx.rd(key);
    let (keep_mask, w) = if high {
        let k = cx.k32(16);
        (0xffff, cx.b().int(IntOp::Shl(isabridge_ir::ops::int::ShiftRule::Wrap), Type::I32, &[w, k]))
    } else {
        (0xffff_0000, w)
    };
    let km = cx.k32(keep_mask);
    let keep = cx.b().int(IntOp::And, Type::I32, &[old, km]);
    let w = cx.b().int(IntOp::Or, Type::I32, &[keep, w]);
    cx.def_v32(at, d, 0, w, valu.mask)
}

/// The output modifier of an op whose result is in `fmt`. The hardware applies it only when
/// the format's denormals are flushed (in and out) and IEEE mode is off; otherwise the result
/// is as without it (RDNA2 Float16Modifiers: `v_add_f16 mul:2` gives the plain sum with f16
/// denormals kept, in the default mode and with IEEE=1).
pub(super) fn omod(cx: &Cx, at: &At, fmt: FFmt) -> Omod {
    let m = AmdMode::from_bits(cx.mode).float_mode(fmt, false);
    if !(m.ftz_in && m.ftz_out) || cx.mode >> 9 & 1 != 0 {
        return Omod::None;
    }
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
    match op {
        "MAD" | "MAC" | "MADAK" | "MADMK" | "MAD_LEGACY" | "MAC_LEGACY" => return Some(mad(cx, at, op, fmt)),
        "MIN3" | "MAX3" | "MED3" => return Some(three(cx, at, op, fmt)),
        "FMA_MIX" if fmt == FFmt::F32 => return Some(fma_mix(cx, at)),
        "LDEXP" => return Some(ldexp(cx, at, fmt)),
        "FRACT" => return Some(fract(cx, at, fmt)),
        "FREXP_MANT" => return Some(frexp_mant(cx, at, fmt)),
        _ => {}
    }
    let kind = match op {
        "ADD" => FloatKind::Add,
        "SUB" | "SUBREV" => FloatKind::Sub,
        "MUL" | "MUL_LEGACY" => FloatKind::Mul,
        "FMA" | "FMAC" | "FMAAK" | "FMAMK" | "FMA_LEGACY" => FloatKind::Fma,
        "MIN" => FloatKind::Min(MinMaxKind::Num),
        "MAX" => FloatKind::Max(MinMaxKind::Num),
        "TRUNC" | "CEIL" | "FLOOR" | "RNDNE" => FloatKind::RoundInt,
        _ => return None,
    };
    Some(arith(cx, at, op, kind, fmt))
}

/// Sources of a float instruction, with the destination appended as the accumulator of the
/// `*MAC*` forms.
fn fsrcs(cx: &mut Cx, valu: &Valu, at: &At, op: &str, fmt: FFmt) -> Result<Vec<Value>, LiftError> {
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    let mut s = Vec::new();
    for (i, o) in srcs.iter().enumerate() {
        s.push(fsrc(cx, valu, at, o, i, fmt)?);
    }
    if op.contains("MAC") {
        let mut acc = d;
        acc.mods = Default::default();
        s.push(fsrc(cx, valu, at, &acc, 2, fmt)?);
    }
    Ok(s)
}

/// Multiply-add with two roundings (v_mad, v_mac and their constant and legacy forms; the
/// legacy ones multiply with 0 × anything = 0).
fn mad(cx: &mut Cx, at: &At, op: &str, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s = fsrcs(cx, &valu, at, op, fmt)?;
    if s.len() < 3 {
        return Err(cx.unsupported(at, "multiply-add operands"));
    }
    let m = mode(cx, fmt, false);
    let mul = FloatOp { kind: FloatKind::Mul, mode: m, fmz: op.ends_with("LEGACY"), relu: false, omod: Omod::None };
    let p = cx.b().float(mul, fty(fmt), &[s[0], s[1]]);
    let add = FloatOp { kind: FloatKind::Add, mode: mode(cx, fmt, at.has(Modifier::Clamp)), fmz: false, relu: false, omod: omod(cx, at, fmt) };
    let r = float_clamped(cx, add, fmt, &[p, s[2]]);
    fdef(cx, &valu, at, &d, r, fmt)
}

/// Minimum, maximum and median of three.
fn three(cx: &mut Cx, at: &At, op: &str, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s = fsrcs(cx, &valu, at, op, fmt)?;
    if s.len() < 3 {
        return Err(cx.unsupported(at, "three operands"));
    }
    let mut inner = mode(cx, fmt, false);
    if !ieee(cx) {
        inner.nan = NanRule::Keep;
    }
    // As for min / max: no output flush where input denormals are kept.
    inner.ftz_out = inner.ftz_in;
    let mut outer = mode(cx, fmt, at.has(Modifier::Clamp));
    outer.nan = inner.nan;
    outer.ftz_out = outer.ftz_in;
    // RDNA2 Dx10Clamp [expected32_no_dx10]: v_med3_f32 clamp with a NaN operand gives a NaN.
    let keep_nan = nan_survives_clamp(cx, &mut outer);
    let mk = |kind, m| FloatOp { kind, mode: m, fmz: false, relu: false, omod: Omod::None };
    // Min3 / max3 / med3 are built of two-operand min / max of the same kind (RDNA2
    // F16MinMaxNan `expected32_ieee`: min3(0, 0x7c01, 0x7c00) = min(min(0, 0x7c01), 0x7c00)
    // = 0x7c00).
    let mmk = min_max_kind(cx, fmt);
    let (min, max) = (FloatKind::Min(mmk), FloatKind::Max(mmk));
    let t = fty(fmt);
    let r = match op {
        "MIN3" | "MAX3" => {
            let k = if op == "MIN3" { min } else { max };
            let a = cx.b().float(mk(k, inner), t, &[s[0], s[1]]);
            let mut o = mk(k, outer);
            o.omod = omod(cx, at, fmt);
            cx.b().float(o, t, &[a, s[2]])
        }
        _ => {
            // med3(a, b, c) = max(min(a, b), min(max(a, b), c)); with a NaN operand it is
            // min3(a, b, c) (AMD's definition; RDNA2 F16MinMaxNan: med3(0, 1, NaN) = 0).
            let lo = cx.b().float(mk(min, inner), t, &[s[0], s[1]]);
            let hi = cx.b().float(mk(max, inner), t, &[s[0], s[1]]);
            let hc = cx.b().float(mk(min, inner), t, &[hi, s[2]]);
            let mut o = mk(max, outer);
            o.omod = omod(cx, at, fmt);
            let med = cx.b().float(o, t, &[lo, hc]);
            let mut o = mk(min, outer);
            o.omod = omod(cx, at, fmt);
            let min3 = cx.b().float(o, t, &[lo, s[2]]);
            let n01 = cx.b().fcmp(isabridge_ir::ops::float::FCmp::Nan, false, s[0], s[1]);
            let n2 = cx.b().fcmp(isabridge_ir::ops::float::FCmp::Nan, false, s[2], s[2]);
            let any = cx.b().int(IntOp::Or, Type::B1, &[n01, n2]);
            cx.b().select(t, any, min3, med)
        }
    };
    let r = if keep_nan { clamp_keeping_nan(cx, r, outer, fmt) } else { r };
    fdef(cx, &valu, at, &d, r, fmt)
}

/// v_fma_mix_f32: an f32 fma whose sources are f32, or f16 (op_sel_hi bit set) taken from the
/// half op_sel picks and converted exactly.
fn fma_mix(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if srcs.len() < 3 {
        return Err(cx.unsupported(at, "fma_mix operands"));
    }
    let sel = |m: fn(&Modifier) -> Option<u8>| at.inst.modifiers.iter().find_map(m).unwrap_or(0);
    let op_sel = sel(|m| if let Modifier::OpSel(x) = m { Some(*x) } else { None });
    let op_sel_hi = sel(|m| if let Modifier::OpSelHi(x) = m { Some(*x) } else { None });
    let mut s = Vec::new();
    for (i, o) in srcs.iter().enumerate().take(3) {
        let v = if op_sel_hi >> i & 1 != 0 {
            let mut plain = *o;
            plain.mods = Default::default();
            let w = valu.src32(cx, at, &plain, i, 0)?;
            let w = if op_sel >> i & 1 != 0 {
                let k = cx.k32(16);
                cx.b().int(IntOp::Shr(false, isabridge_ir::ops::int::ShiftRule::Wrap), Type::I32, &[w, k])
            } else {
                w
            };
            let h = cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, w);
            let h = cx.b().bitcast(fty(FFmt::F16), h);
            let mut m = conv_mode(cx, FFmt::F32);
            m.ftz_in = conv_mode(cx, FFmt::F16).ftz_in;
            m.ftz_out = false;
            let x = cx.b().conv(ConvOp::FToF { mode: m, satfinite: false }, fty(FFmt::F32), h);
            source_mods(cx, o, x, FFmt::F32)
        } else {
            fsrc(cx, &valu, at, o, i, FFmt::F32)?
        };
        s.push(v);
    }
    let fop = FloatOp { kind: FloatKind::Fma, mode: mode(cx, FFmt::F32, at.has(Modifier::Clamp)), fmz: false, relu: false, omod: omod(cx, at, FFmt::F32) };
    let r = float_clamped(cx, fop, FFmt::F32, &s);
    fdef(cx, &valu, at, &d, r, FFmt::F32)
}

/// v_frexp_mant.
fn frexp_mant(cx: &mut Cx, at: &At, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s0 = *at.srcs().first().copied().ok_or_else(|| cx.unsupported(at, "no source"))?;
    let x = fsrc(cx, &valu, at, &s0, 0, fmt)?;
    let op = FloatOp { kind: FloatKind::FrexpMant, mode: pass_mode(cx, fmt, at.has(Modifier::Clamp)), fmz: false, relu: false, omod: omod(cx, at, fmt) };
    let r = float_clamped(cx, op, fmt, &[x]);
    fdef(cx, &valu, at, &d, r, fmt)
}

/// v_frexp_exp_i32 / _i16: the exponent as an integer (the i16 form writes the low half).
fn frexp_exp(cx: &mut Cx, at: &At, fmt: FFmt, half: bool) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s0 = *at.srcs().first().copied().ok_or_else(|| cx.unsupported(at, "no source"))?;
    let x = fsrc(cx, &valu, at, &s0, 0, fmt)?;
    let m = conv_mode(cx, fmt);
    let r = cx.b().conv(ConvOp::FrexpExp { mode: m }, Type::I32, x);
    let r = if half {
        let key = cx.key_of(&d, 0).ok_or_else(|| cx.unsupported(at, "destination"))?;
        let old = cx.rd(key);
        let hi = cx.k32(0xffff_0000);
        let lo = cx.k32(0xffff);
        let keep = cx.b().int(IntOp::And, Type::I32, &[old, hi]);
        let r = cx.b().int(IntOp::And, Type::I32, &[r, lo]);
        cx.b().int(IntOp::Or, Type::I32, &[keep, r])
    } else {
        r
    };
    cx.def_v32(at, &d, 0, r, valu.mask)
}

/// v_fract: x - floor(x), at most the largest value below 1 (AMD's definition).
fn fract(cx: &mut Cx, at: &At, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s0 = *at.srcs().first().copied().ok_or_else(|| cx.unsupported(at, "no source"))?;
    let x = fsrc(cx, &valu, at, &s0, 0, fmt)?;
    let m = pass_mode(cx, fmt, false);
    let mk = |kind, mode| FloatOp { kind, mode, fmz: false, relu: false, omod: Omod::None };
    let fl = cx.b().float(mk(FloatKind::RoundInt, FloatMode { round: Round::Rm, ..m }), fty(fmt), &[x]);
    let nf = negate(cx, fl, fmt);
    let diff = cx.b().float(mk(FloatKind::Add, m), fty(fmt), &[x, nf]);
    let below_one = match fmt {
        FFmt::F16 => 0x3bff,
        FFmt::F64 => 0x3fef_ffff_ffff_ffff,
        _ => 0x3f7f_ffff,
    };
    let k = cx.k(fty(fmt), below_one);
    let mut lm = pass_mode(cx, fmt, at.has(Modifier::Clamp));
    // RDNA2 Dx10Clamp [expected32_no_dx10]: v_fract_f32 clamp of 0x7f800001 gives 0x7f800001,
    // of +inf -qNaN 0xffc00000.
    let keep_nan = nan_survives_clamp(cx, &mut lm);
    let mut last = mk(FloatKind::Min(MinMaxKind::NanPropagating), lm);
    last.omod = omod(cx, at, fmt);
    let mut r = cx.b().float(last, fty(fmt), &[diff, k]);
    if keep_nan {
        r = clamp_keeping_nan(cx, r, lm, fmt);
    }
    fdef(cx, &valu, at, &d, r, fmt)
}

/// v_ldexp: src0 × 2^src1, src1 a signed integer (its low 16 bits for f16).
fn ldexp(cx: &mut Cx, at: &At, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if srcs.len() < 2 {
        return Err(cx.unsupported(at, "ldexp operands"));
    }
    let x = fsrc(cx, &valu, at, &srcs[0], 0, fmt)?;
    let n = valu.src32(cx, at, &srcs[1], 1, 0)?;
    let n = if fmt == FFmt::F16 {
        let h = cx.b().conv(ConvOp::IToI { signed: true }, Type::I16, n);
        cx.b().conv(ConvOp::IToI { signed: true }, Type::I32, h)
    } else {
        n
    };
    let op = FloatOp { kind: FloatKind::Ldexp, mode: pass_mode(cx, fmt, at.has(Modifier::Clamp)), fmz: false, relu: false, omod: omod(cx, at, fmt) };
    let r = float_clamped(cx, op, fmt, &[x, n]);
    fdef(cx, &valu, at, &d, r, fmt)
}

/// -x as a sign-bit operation (NaNs included).
pub(super) fn negate(cx: &mut Cx, x: Value, fmt: FFmt) -> Value {
    sign_op(cx, FloatKind::Neg, x, fmt)
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
    let kind = if kind == FloatKind::Sub {
        // a - b is a + (-b) and subrev -a + b, operands kept in instruction order: a NaN
        // subtrahend comes out with its sign flipped, and the first source's NaN wins (RDNA2
        // F32ArithmeticNan).
        let k = if op == "SUBREV" { 0 } else { 1 };
        s[k] = negate(cx, s[k], fmt);
        FloatKind::Add
    } else {
        kind
    };

    let mut m = if kind == FloatKind::RoundInt { pass_mode(cx, fmt, at.has(Modifier::Clamp)) } else { mode(cx, fmt, at.has(Modifier::Clamp)) };
    // f64 min/max are IEEE 754-2008 minNum/maxNum: a quiet NaN is ignored, a signalling one
    // comes out quieted (RDNA2 F64Arithmetic: min(1, 0x7ff0000000000001) = 0x7ff8000000000001,
    // min(0x7ff8000000000000, inf) = inf).
    let kind = match kind {
        FloatKind::Min(_) => FloatKind::Min(min_max_kind(cx, fmt)),
        FloatKind::Max(_) => FloatKind::Max(min_max_kind(cx, fmt)),
        k => k,
    };
    if matches!(kind, FloatKind::Min(_) | FloatKind::Max(_)) {
        if cx.mode >> 9 & 1 == 0 && matches!(kind, FloatKind::Min(MinMaxKind::Num) | FloatKind::Max(MinMaxKind::Num)) {
            m.nan = NanRule::Keep;
        }
        // min / max return an operand: a denormal one is not flushed on the way out when the
        // mode keeps input denormals (RDNA2 F16MinMaxNan_DenormVop3: the same table for f16
        // denorm fields 1 and 3).
        m.ftz_out = m.ftz_in;
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
    // RDNA2 Dx10Clamp [expected32_no_dx10]: v_add_f32 clamp of qNaN + sNaN gives a NaN, not +0.
    let fop = FloatOp { kind, mode: m, fmz: op.ends_with("LEGACY"), relu: false, omod: omod(cx, at, fmt) };
    let r = float_clamped(cx, fop, fmt, &s[..need]);
    fdef(cx, &valu, at, &d, r, fmt)
}

/// A float op of `fmt` whose mode's `sat` is the clamp bit, under the DX10_CLAMP rule of
/// [`nan_survives_clamp`].
pub(super) fn float_clamped(cx: &mut Cx, op: FloatOp, fmt: FFmt, args: &[Value]) -> Value {
    let mut op = op;
    let keep_nan = nan_survives_clamp(cx, &mut op.mode);
    let r = cx.b().float(op, fty(fmt), args);
    if keep_nan {
        clamp_keeping_nan(cx, r, op.mode, fmt)
    } else {
        r
    }
}

/// `r` clamped to [0, 1] with a NaN left as it is (the clamp bit with DX10_CLAMP off).
pub(super) fn clamp_keeping_nan(cx: &mut Cx, r: Value, m: FloatMode, fmt: FFmt) -> Value {
    let mut cm = m;
    cm.sat = true;
    cm.ftz_in = false;
    let canon = FloatOp { kind: FloatKind::Canon, mode: cm, fmz: false, relu: false, omod: Omod::None };
    let clamped = cx.b().float(canon, fty(fmt), &[r]);
    let is_nan = cx.b().fcmp(FCmp::Neu, false, r, r);
    cx.b().select(fty(fmt), is_nan, r, clamped)
}

/// The output modifier and clamp of an instruction whose op has no fields for them (a
/// conversion), applied to its rounded result.
pub(super) fn post(cx: &mut Cx, at: &At, r: Value, fmt: FFmt) -> Value {
    let (om, clamp) = (omod(cx, at, fmt), at.has(Modifier::Clamp));
    if om == Omod::None && !clamp {
        return r;
    }
    let mut m = mode(cx, fmt, clamp);
    m.ftz_in = false;
    // RDNA2 Dx10Clamp [expected32_no_dx10]: v_cvt_f16_f32 clamp of a NaN gives a NaN.
    let keep_nan = nan_survives_clamp(cx, &mut m);
    let op = FloatOp { kind: FloatKind::Canon, mode: m, fmz: false, relu: false, omod: om };
    let r = cx.b().float(op, fty(fmt), &[r]);
    if keep_nan {
        clamp_keeping_nan(cx, r, m, fmt)
    } else {
        r
    }
}

/// Clamp only (an instruction whose unit ignores the output modifier).
fn post_clamp(cx: &mut Cx, at: &At, r: Value, fmt: FFmt) -> Value {
    if !at.has(Modifier::Clamp) {
        return r;
    }
    let mut m = mode(cx, fmt, true);
    m.ftz_in = false;
    if nan_survives_clamp(cx, &mut m) {
        return clamp_keeping_nan(cx, r, m, fmt);
    }
    let op = FloatOp { kind: FloatKind::Canon, mode: m, fmz: false, relu: false, omod: Omod::None };
    cx.b().float(op, fty(fmt), &[r])
}

fn convert(cx: &mut Cx, at: &At, op: &str, ty: &str) -> Option<Result<(), LiftError>> {
    if op == "CVT_FLR_I32" {
        // floor(x) to i32, saturating (v_cvt_flr_i32_f32).
        return Some((|| {
            let valu = Valu::new(cx, at)?;
            let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
            let s0 = *at.srcs().first().copied().ok_or_else(|| cx.unsupported(at, "no source"))?;
            let sf = fmt_of(ty).ok_or_else(|| cx.unsupported(at, "conversion source"))?;
            let x = fsrc(cx, &valu, at, &s0, 0, sf)?;
            let mut m = conv_mode(cx, sf);
            m.round = Round::Rm;
            let r = cx.b().conv(ConvOp::FToI { mode: m, signed: true }, Type::I32, x);
            // A NaN gives i32::MAX (RDNA2 F32DenormalFlush row 14: cvt_flr(0x7fc00000)).
            let nan = cx.b().fcmp(isabridge_ir::ops::float::FCmp::Nan, false, x, x);
            let max = cx.k32(i32::MAX as u32);
            let r = cx.b().select(Type::I32, nan, max, r);
            cx.def_v32(at, &d, 0, r, valu.mask)
        })());
    }
    if op == "FREXP_EXP_I32" || op == "FREXP_EXP_I16" {
        return Some(frexp_exp(cx, at, fmt_of(ty)?, op == "FREXP_EXP_I16"));
    }
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
                let m = conv_mode(cx, df);
                let r = cx.b().conv(ConvOp::IToF { mode: m, signed }, fty(df), x);
                let r = post(cx, at, r, df);
                fdef(cx, &valu, at, &d, r, df)
            }
            (None, Some(sf), Some(signed), _) => {
                let x = fsrc(cx, &valu, at, &s0, 0, sf)?;
                let mut m = conv_mode(cx, sf);
                m.round = Round::Rz;
                let r = cx.b().conv(ConvOp::FToI { mode: m, signed }, Type::I32, x);
                cx.def_v32(at, &d, 0, r, valu.mask)
            }
            (Some(df), Some(sf), _, _) => {
                let x = fsrc(cx, &valu, at, &s0, 0, sf)?;
                let mut m = conv_mode(cx, df);
                m.ftz_in = conv_mode(cx, sf).ftz_in;
                let r = cx.b().conv(ConvOp::FToF { mode: m, satfinite: false }, fty(df), x);
                // v_cvt_f32_f64 ignores omod (RDNA2 F64Rounding: mul:2 leaves -2^-60 as is).
                let r = if sf == FFmt::F64 { post_clamp(cx, at, r, df) } else { post(cx, at, r, df) };
                fdef(cx, &valu, at, &d, r, df)
            }
            _ => Err(cx.unsupported(at, "conversion kind")),
        }
    })())
}
