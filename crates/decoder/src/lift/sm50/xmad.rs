//! XMAD: the 16x16-bit multiply-add Maxwell builds 32-bit multiplies from.
//!
//! `XMAD[.{U16,S16}.{U16,S16}][.PSL][.MRG][.{CLO,CHI,CSFU,CBCC}] d, a[.H1], b[.H1], c`:
//! the product of the low (or `.H1` high) halves of a and b (each zero- or sign-extended by
//! its `U16` / `S16` type, unsigned when none is printed), shifted left 16 with `.PSL`, plus c
//! as the mode gives it: all of c, `CLO` its low half, `CHI` its high half, `CBCC` c plus
//! b << 16, `CSFU` c minus a sign fix-up (below).
//! `.MRG` keeps the low 16 bits of the sum and puts b's low 16 bits above them.
//! The carry forms (`.CC` destination, `.X`) are typed errors: their carry is not derived here.

use super::{h1, reads_cc, writes_cc};
use crate::lift::sm86::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::{Type, Value};

/// Lift `at` if it is an XMAD.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    (name == "XMAD").then(|| xmad(cx, at))
}

/// The 16-bit half of source `op` (high with `.H1`), extended to i32.
fn half(cx: &mut Cx, at: &At, op: &Operand, signed: bool) -> Result<Value, LiftError> {
    let w = cx.word(at, op, 0)?;
    let w = if h1(at, op.field) {
        let s = cx.k32(16);
        cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[w, s])
    } else {
        w
    };
    let h = cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, w);
    Ok(cx.b().conv(ConvOp::IToI { signed }, Type::I32, h))
}

/// The 16-bit half of a source's word `w` that the multiplication does not take (zero-extended).
fn other_half(cx: &mut Cx, at: &At, op: &Operand, w: Value) -> Value {
    let s = cx.k32(16);
    if h1(at, op.field) {
        let m = cx.k32(0xffff);
        cx.b().int(IntOp::And, Type::I32, &[w, m])
    } else {
        cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[w, s])
    }
}

fn xmad(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if writes_cc(at) || reads_cc(at) || at.has("X") {
        return Err(cx.unsupported(at, "XMAD carry in or out"));
    }
    if let Some(s) = at.sfx.iter().find(|s| s.starts_with("???")) {
        return Err(cx.unsupported(at, &format!("unnamed modifier {s}")));
    }
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 || srcs.iter().any(|s| s.mods.neg || s.mods.not || s.mods.abs) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let types: Vec<&str> = at.sfx.iter().copied().filter(|s| *s == "U16" || *s == "S16").collect();
    let (sa, sb) = match types[..] {
        [] => (false, false),
        [a, b] => (a == "S16", b == "S16"),
        _ => return Err(cx.unsupported(at, "XMAD operand types")),
    };
    let a = half(cx, at, srcs[0], sa)?;
    let b = half(cx, at, srcs[1], sb)?;
    let mut p = cx.b().int(IntOp::MulLo, Type::I32, &[a, b]);
    if at.has("PSL") {
        let s = cx.k32(16);
        p = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[p, s]);
    }
    let c = cx.word(at, srcs[2], 0)?;
    let add = |cx: &mut Cx, x: Value, y: Value| cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[x, y]);
    let c = match at.one_of(&["CLO", "CHI", "CSFU", "CBCC"]) {
        Some("CLO") => {
            let m = cx.k32(0xffff);
            cx.b().int(IntOp::And, Type::I32, &[c, m])
        }
        Some("CHI") => {
            let s = cx.k32(16);
            cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[c, s])
        }
        Some("CBCC") => {
            let bw = cx.word(at, srcs[1], 0)?;
            let s = cx.k32(16);
            let sh = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[bw, s]);
            add(cx, c, sh)
        }
        Some(_) => {
            // CSFU: minus 0x10000 for each negative half whose partner register's other half
            // is non-zero (the borrow the 32-bit partial products a.H1 * b.H0 and a.H0 * b.H1
            // leave when they are added as unsigned: k_mul_hi_s32, whose 1024 H200 rows need
            // exactly this; a = b = 0x80000000 takes none).
            let zero = cx.k32(0);
            let aw = cx.word(at, srcs[0], 0)?;
            let bw = cx.word(at, srcs[1], 0)?;
            let a_other = other_half(cx, at, srcs[0], aw);
            let b_other = other_half(cx, at, srcs[1], bw);
            let an = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::I32, &[a, zero]);
            let bn = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::I32, &[b, zero]);
            let bo = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[b_other, zero]);
            let ao = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[a_other, zero]);
            let fa = cx.b().int(IntOp::And, Type::B1, &[an, bo]);
            let fb = cx.b().int(IntOp::And, Type::B1, &[bn, ao]);
            let step = cx.k32(0x10000);
            let fa = cx.b().select(Type::I32, fa, step, zero);
            let fb = cx.b().select(Type::I32, fb, step, zero);
            let f = add(cx, fa, fb);
            cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I32, &[c, f])
        }
        None => c,
    };
    let mut r = add(cx, p, c);
    if at.has("MRG") {
        let m = cx.k32(0xffff);
        let lo = cx.b().int(IntOp::And, Type::I32, &[r, m]);
        let bw = cx.word(at, srcs[1], 0)?;
        let s = cx.k32(16);
        let hi = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[bw, s]);
        r = cx.b().int(IntOp::Or, Type::I32, &[lo, hi]);
    }
    cx.def32(at, dsts[0], r)
}
