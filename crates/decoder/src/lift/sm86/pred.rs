//! Predicate logic and moves between predicates and registers: PLOP3 (two truth tables of
//! three predicates or register sign bits), P2R (predicates P0-P6 into a byte of a register), R2P (the reverse).

use super::{At, Cx, P0};
use crate::lift::LiftError;
use crate::operand::OperandKind;
use isabridge_ir::ops::int::{ICmp, IntOp};
use isabridge_ir::Type;

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "PLOP3" | "UPLOP3" => plop3(cx, at),
        "P2R" => p2r(cx, at),
        "R2P" => r2p(cx, at),
        _ => return None,
    })
}

/// PLOP3.LUT Pd, Pq, a, b, c, lut_d, lut_q: each destination the truth table of a, b, c.
fn plop3(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 2 || srcs.len() != 5 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let (OperandKind::Imm(l0), OperandKind::Imm(l1)) = (srcs[3].kind, srcs[4].kind) else {
        return Err(cx.unsupported(at, "truth tables"));
    };
    let mut ins = Vec::new();
    for s in &srcs[..3] {
        ins.push(pred_or_sign(cx, at, s)?);
    }
    let (a, b, c) = (ins[0], ins[1], ins[2]);
    for (d, lut) in dsts.iter().zip([l0, l1]) {
        let r = cx.b().int(IntOp::Lop3(lut as u8), Type::B1, &[a, b, c]);
        cx.def_pred(at, d, r)?;
    }
    Ok(())
}

/// A PLOP3 source: a predicate, or the sign bit of a register or constant-bank word
/// (`R4.SIGN`, `c[0x0] [0x180].SIGN`).
fn pred_or_sign(cx: &mut Cx, at: &At, op: &crate::operand::Operand) -> Result<isabridge_ir::Value, LiftError> {
    match op.kind {
        OperandKind::Reg(crate::operand::RegRange { class: crate::operand::RegClass::R, .. })
        | OperandKind::ConstBank { .. }
        | OperandKind::Imm(_) => {
            let v = cx.word(at, op, 0)?;
            let zero = cx.k32(0);
            let s = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::I32, &[v, zero]);
            Ok(if op.mods.not { cx.not1(s) } else { s })
        }
        _ => cx.pred(at, op),
    }
}

/// The byte a `.B1` / `.B2` / `.B3` form works on (0 without).
fn byte(at: &At) -> u32 {
    match at.one_of(&["B1", "B2", "B3"]) {
        Some("B1") => 8,
        Some("B2") => 16,
        Some("B3") => 24,
        _ => 0,
    }
}

/// P2R d, PR, a, mask: d = a with the bits of mask (in the chosen byte) replaced by P0-P6.
fn p2r(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let OperandKind::Imm(m) = srcs[1].kind else { return Err(cx.unsupported(at, "mask operand")) };
    let sh = byte(at);
    let mut pr = cx.k32(0);
    for i in 0..7u16 {
        let p = cx.rd(P0 + i);
        let w = cx.b1_to_i32(p);
        let s = cx.k32(i as u32 + sh);
        let w = cx.b().int(IntOp::Shl(isabridge_ir::ops::int::ShiftRule::Clamp), Type::I32, &[w, s]);
        pr = cx.b().int(IntOp::Or, Type::I32, &[pr, w]);
    }
    let mask = ((m as u32) & 0x7f) << sh;
    let a = cx.src_int(at, srcs[0])?;
    let keep = cx.k32(!mask);
    let take = cx.k32(mask);
    let a = cx.b().int(IntOp::And, Type::I32, &[a, keep]);
    let pr = cx.b().int(IntOp::And, Type::I32, &[pr, take]);
    let r = cx.b().int(IntOp::Or, Type::I32, &[a, pr]);
    cx.def_word(at, dsts[0], 0, r)
}

/// R2P PR, a, mask: Pi = bit i (of the chosen byte) of a, for the bits of mask.
fn r2p(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let srcs = at.srcs();
    if srcs.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let OperandKind::Imm(m) = srcs[1].kind else { return Err(cx.unsupported(at, "mask operand")) };
    let sh = byte(at);
    let a = cx.src_int(at, srcs[0])?;
    for i in 0..7u16 {
        if m >> i & 1 == 0 {
            continue;
        }
        let bit = cx.k32(1 << (i as u32 + sh));
        let x = cx.b().int(IntOp::And, Type::I32, &[a, bit]);
        let zero = cx.k32(0);
        let p = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[x, zero]);
        cx.wr(P0 + i, p);
    }
    Ok(())
}
