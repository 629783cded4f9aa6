//! LEA, the shifted add ptxas builds 64-bit addresses with:
//! - `LEA d[.CC], a, b[, n]`: (a << n) + b in 32 bits (n 0 when not printed), the carry of
//!   that add to the condition code with `.CC`.
//! - `LEA.HI[.X] d[.CC], a, b, c, n`: b + the high word of the 64-bit c:a shifted left by n
//!   (+ the carry with `.X`).
//! - `LEA.HI[.X] Plg, d, a, b, c, n`: d as above, and Plg true when the address it forms is
//!   outside the shared window (`generic.rs` has the facts and the model).
//!
//! ptxas 12.9 computes `&p[i]` as `LEA lo.CC, i, p_lo, 2` / `LEA.HI.X hi, i, p_hi, RZ, 2` and
//! PTX `shl.b64 + add.s64` as `LEA lo.CC, y_lo, x_lo, n` / `LEA.HI.X hi, y_lo, x_hi, y_hi, n`
//! (kernel k_lea64 of fixtures/nvidia/lift/cc.sm50.ptx, checked by sm50_cc.rs). A negated
//! source and the 32-bit form with a predicate destination are typed errors: no kernel here
//! shows them.

use super::{reads_cc, writes_cc};
use crate::lift::sm86::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind, RegClass};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{IntOp, Overflow, ShiftRule};
use isabridge_ir::Type;

/// Lift `at` if it is a LEA.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    (name == "LEA").then(|| lea(cx, at))
}

fn lea(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let mut ops: Vec<&Operand> = at.inst.explicit().filter(|o| !super::is_cc(o)).collect();
    let plg = match ops.first() {
        Some(o) if matches!(o.kind, OperandKind::Reg(r) if r.class == RegClass::P) || super::generic::is_pt(o) => Some(ops.remove(0)),
        _ => None,
    };
    if plg.is_some() && !at.has("HI") {
        return Err(cx.unsupported(at, "LEA (32-bit) with a predicate result"));
    }
    let Some((d, srcs)) = ops.split_first() else { return Err(cx.unsupported(at, "operand shape")) };
    if srcs.iter().any(|o| o.mods.neg || o.mods.not || o.mods.abs) {
        return Err(cx.unsupported(at, "LEA with a negated source"));
    }
    let hi = at.has("HI");
    let x = at.has("X") || reads_cc(at);
    // The shift: field OPV or IMM3, or IMM after three registers of LEA.HI (0 when absent).
    let shift_field = |o: &Operand| matches!(o.field, "OPV" | "IMM3") || (hi && o.field == "IMM" && srcs.len() == 4);
    let (regs, n) = match srcs.last().filter(|o| shift_field(o)).map(|o| o.kind) {
        Some(OperandKind::Imm(n)) => (&srcs[..srcs.len() - 1], n as u32 & 31),
        Some(OperandKind::Field { value, .. }) => (&srcs[..srcs.len() - 1], value as u32 & 31),
        _ => (srcs, 0),
    };
    if regs.len() != if hi { 3 } else { 2 } || (x && !hi) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.word(at, regs[0], 0)?;
    let b = cx.word(at, regs[1], 0)?;
    let k = cx.k32(n);
    let shifted = if hi {
        let c = cx.word(at, regs[2], 0)?;
        cx.b().int(IntOp::ShfL(ShiftRule::Clamp), Type::I32, &[a, c, k])
    } else {
        cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[a, k])
    };
    let zext = ConvOp::IToI { signed: false };
    let t = cx.b().conv(zext, Type::I64, shifted);
    let b = cx.b().conv(zext, Type::I64, b);
    let mut s = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[t, b]);
    if x {
        let c = cx.rd(super::CC_CARRY);
        let c = cx.b().conv(zext, Type::I64, c);
        s = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[s, c]);
    }
    let (lo, _) = cx.split64(s);
    if let Some(p) = plg {
        // The effective address d : (a << n) (generic.rs); Plg is true outside the window.
        let a_lo = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[a, k]);
        let inside = super::generic::in_shared_window(cx, a_lo, lo);
        let outside = cx.not1(inside);
        cx.def_pred(at, p, outside)?;
    }
    cx.def32(at, d, lo)?;
    if writes_cc(at) {
        super::cc::write_add_flags(cx, s, x);
    }
    Ok(())
}
