//! IMAD, the Maxwell 32-bit integer multiply-add ptxas uses where XMAD sequences do not fit:
//! `IMAD.HI[.SAT] d, a, b, c`: the high word of the signed 64-bit product a * b plus c, with
//! `.SAT` clamped to the i32 range. PTX `mad.hi.sat.s32` (PTX ISA, Integer Arithmetic
//! Instructions: mad: "d = t<2n-1..n> + c" for `.hi`, `.sat` limiting the result to
//! MININT..MAXINT) is `IMAD.HI.SAT` (kernel k_madhisat of fixtures/nvidia/lift/cc.sm50.ptx,
//! checked by sm50_cc.rs). The unsigned and mixed-sign forms (`.U32`), the low-word forms, the
//! carry forms and negated sources are typed errors: no kernel here shows them.

use super::{reads_cc, writes_cc};
use crate::lift::sm86::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::int::{IntOp, Overflow};
use isabridge_ir::Type;

/// Lift `at` if it is an IMAD.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    (name == "IMAD").then(|| imad(cx, at))
}

fn imad(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 || writes_cc(at) || reads_cc(at) || at.has("X") || at.has("PO") {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if srcs.iter().any(|o| o.mods.neg || o.mods.not || o.mods.abs) {
        return Err(cx.unsupported(at, "IMAD with a negated source"));
    }
    // The model spells the operand types (`S32.S32` when nvdisasm prints none).
    if !at.has("HI") || at.has("U32") {
        return Err(cx.unsupported(at, "IMAD form other than the signed .HI"));
    }
    let a = cx.word(at, srcs[0], 0)?;
    let b = cx.word(at, srcs[1], 0)?;
    let c = cx.word(at, srcs[2], 0)?;
    let h = cx.b().int(IntOp::MulHi(true), Type::I32, &[a, b]);
    let ov = if at.has("SAT") { Overflow::SatS } else { Overflow::Wrap };
    let r = cx.b().int(IntOp::Add(ov), Type::I32, &[h, c]);
    cx.def32(at, dsts[0], r)
}
