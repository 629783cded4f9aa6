//! Relative VGPR moves (v_movrels / v_movreld / v_movrelsd / v_movrelsd_2): the source and / or
//! destination VGPR number is offset by M0 (v_movrelsd_2: the source by M0[9:0], the
//! destination by M0[25:16]). Registers are fixed when the function is lifted, so M0 must be a
//! constant the current block sets before the move; any other M0 is a typed error.

use super::lanes::Valu;
use super::{At, Cx, M0};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind, RegClass};
use isabridge_ir::ops::Op;

/// Lift a relative move; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let (src_rel, dst_rel) = match name {
        "V_MOVRELS_B32" => (true, false),
        "V_MOVRELD_B32" => (false, true),
        "V_MOVRELSD_B32" | "V_MOVRELSD_2_B32" => (true, true),
        _ => return None,
    };
    Some(relative(cx, at, src_rel, dst_rel, name == "V_MOVRELSD_2_B32"))
}

/// The constant the current block last wrote to M0, if it wrote one.
fn known_m0(cx: &Cx) -> Option<u32> {
    let r = *cx.regs.get(&M0)?;
    for &v in cx.f.blocks[cx.block].insts.iter().rev() {
        let i = &cx.f.insts[v];
        if i.op == Op::WriteReg(r) {
            let a = i.args.first()?;
            return match cx.f.insts[*a].op {
                Op::Const(x) => Some(x as u32),
                _ => None,
            };
        }
    }
    None
}

/// A VGPR operand moved `by` registers up.
fn offset(cx: &Cx, at: &At, op: &Operand, by: u32) -> Result<Operand, LiftError> {
    let mut o = *op;
    match &mut o.kind {
        OperandKind::Reg(r) if r.class == RegClass::Vgpr && r.first as u32 + by < 256 => r.first += by as u16,
        _ => return Err(cx.unsupported(at, "relative register outside the VGPRs")),
    }
    Ok(o)
}

fn relative(cx: &mut Cx, at: &At, src_rel: bool, dst_rel: bool, split: bool) -> Result<(), LiftError> {
    let m0 = known_m0(cx).ok_or_else(|| cx.unsupported(at, "M0 is not a constant set in this block"))?;
    let (src_by, dst_by) = if split { (m0 & 0x3ff, m0 >> 16 & 0x3ff) } else { (m0, m0) };
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s = *at.srcs().first().copied().ok_or_else(|| cx.unsupported(at, "no source"))?;
    let s = if src_rel { offset(cx, at, &s, src_by)? } else { s };
    let d = if dst_rel { offset(cx, at, &d, dst_by)? } else { d };
    let v = valu.src32(cx, at, &s, 0, 0)?;
    cx.def_v32(at, &d, 0, v, valu.mask)
}
