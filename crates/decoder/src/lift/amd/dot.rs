//! gfx10.3 float dot products (RDNA2; [`crate::amd::dot_ext`] decodes them): v_dot2c_f32_f16
//! (VOP2 and its DPP forms, accumulating into the destination) and v_dot2_f32_f16 (VOP3P),
//! both the IR's `fdot2`: a.lo × b.lo + a.hi × b.hi + c with one rounding.
//!
//! Rules from the RDNA2 Float16Dot vectors (default MODE: f32 denormals flushed, f16 kept,
//! IEEE off), every lane of its ten slots:
//! - one rounding of the exact sum (round to nearest even): lane 23 of `v_dot2` (0x43380748);
//! - the f16 inputs are not flushed (lane 12, a.lo = 0x030c), the f32 addend is, keeping its
//!   sign (lane 15: 0x00000001 + -0 + -0 gives +0; lane 18 of `v_dot2 op_sel src0`: -0 + -0 +
//!   0x8029d2f0 gives -0);
//! - NaNs are quieted whatever the IEEE bit, an f16 NaN widened with its payload (lane 8:
//!   a.lo = 0x7c85 gives 0x7fd0a000; lane 27: c = 0x7fa00000 gives 0x7fe00000); the first NaN in
//!   the order a.lo, a.hi, b.lo, b.hi, c wins (lane 8: a.lo over b.hi; lane 9 of `v_dot2c dpp
//!   quad_perm`: a.lo over c; lane 10 of `v_dot2 neg_lo src1 neg_hi src0`: b.lo over c, negated
//!   to 0xffe00000: negation flips a NaN's sign); other orders fit these lanes too;
//! - ∞ × 0 gives 0xffc00000 (lanes 11, 24);
//! - clamp changes nothing (`v_dot2 clamp` equals `v_dot2` on every lane, NaNs and values
//!   outside [0, 1] included);
//! - an inline constant in a packed-f16 source is the f16 value in the low half and 0 in the
//!   high half (`v_dot2c inline 1.0`; the operand model reads it so).
//!
//! What no vector measures is a typed error: abs on a source, neg on a VOP2 / DPP source,
//! op_sel / op_sel_hi / neg_hi on the f32 addend, f16 denormals flushed by MODE, a rounding
//! mode other than nearest even. The integer dot products decode but do not lift.

use super::lanes::Valu;
use super::vfloat::mode;
use super::vop3p::{half, pack};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Modifier;
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::int::IntOp;
use isabridge_ir::soft::{FFmt, NanRule, Round};
use isabridge_ir::{Scalar, Type, Value};

/// Lift a gfx10.3 dot product; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    match name {
        "V_DOT2C_F32_F16" => Some(dot2_f32_f16(cx, at, true)),
        "V_DOT2_F32_F16" => Some(dot2_f32_f16(cx, at, false)),
        n if n.starts_with("V_DOT") && !n.contains("_F32_") => {
            Some(Err(cx.unsupported(at, "integer dot products: no RDNA2 vector measures them")))
        }
        _ => None,
    }
}

/// The (op_sel, op_sel_hi, neg_hi) bits of a VOP3P form; a VOP2 / DPP form reads each half
/// for its own lane.
fn selects(at: &At) -> (u8, u8, u8) {
    let mut s = (0, 0b111, 0);
    for m in &at.inst.modifiers {
        match *m {
            Modifier::OpSel(x) => s.0 = x,
            Modifier::OpSelHi(x) => s.1 = x,
            Modifier::Named("NEG_HI", v) => s.2 = v as u8,
            _ => {}
        }
    }
    s
}

fn dot2_f32_f16(cx: &mut Cx, at: &At, acc: bool) -> Result<(), LiftError> {
    let (op_sel, op_sel_hi, neg_hi) = selects(at);
    let vop3p = at.inst.encoding.starts_with("ENC_VOP3P");
    let srcs: Vec<_> = at.srcs().into_iter().copied().collect();
    if srcs.iter().any(|o| o.mods.abs) || (!vop3p && srcs.iter().any(|o| o.mods.neg)) {
        return Err(cx.unsupported(at, "abs, or neg on a VOP2 source, of a dot product: not measured"));
    }
    if op_sel & 4 != 0 || op_sel_hi & 4 == 0 || neg_hi & 4 != 0 {
        return Err(cx.unsupported(at, "op_sel, op_sel_hi or neg_hi on the f32 addend: not measured"));
    }
    if cx.mode >> 6 & 3 != 3 || cx.mode & 0xf != 0 {
        return Err(cx.unsupported(at, "dot product with f16 denormals flushed or directed rounding: not measured"));
    }
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    if srcs.len() < if acc { 2 } else { 3 } {
        return Err(cx.unsupported(at, "dot product operands"));
    }
    let pair_ty = Type::V(Scalar::F(FFmt::F16), 2);
    let mut pairs = Vec::new();
    for (i, o) in srcs.iter().take(2).enumerate() {
        let w = valu.src32(cx, at, o, i, 0)?;
        let lo = half(cx, w, op_sel >> i & 1 != 0);
        let hi = half(cx, w, op_sel_hi >> i & 1 != 0);
        let lo = if o.mods.neg { flip(cx, lo, Type::I16, 0x8000) } else { lo };
        let hi = if neg_hi >> i & 1 != 0 { flip(cx, hi, Type::I16, 0x8000) } else { hi };
        let p = pack(cx, lo, hi);
        pairs.push(cx.b().bitcast(pair_ty, p));
    }
    let c = if acc {
        let mut o = d;
        o.mods = Default::default();
        cx.src32(at, &o, 0)?
    } else {
        let c = valu.src32(cx, at, &srcs[2], 2, 0)?;
        if srcs[2].mods.neg {
            flip(cx, c, Type::I32, 0x8000_0000)
        } else {
            c
        }
    };
    let c = cx.b().bitcast(Type::F32, c);
    let mut m = mode(cx, FFmt::F32, false);
    m.round = Round::Rn;
    m.nan = NanRule::PropagateNeg;
    let op = FloatOp { kind: FloatKind::Dot2, mode: m, fmz: false, relu: false, omod: Omod::None };
    let r = cx.b().float(op, Type::F32, &[pairs[0], pairs[1], c]);
    let r = cx.b().bitcast(Type::I32, r);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

/// `x` with the sign bit `bit` flipped.
fn flip(cx: &mut Cx, x: Value, ty: Type, bit: u64) -> Value {
    let k = cx.k(ty, bit);
    cx.b().int(IntOp::Xor, ty, &[x, k])
}
