//! Division helpers: v_div_scale_f32/f64 (result and VCC-style lane mask), v_div_fmas_f32/f64
//! (VCC read per lane), v_div_fixup_f16/f32/f64, lifted to the IR's `fdivscale`, `fdivflag`,
//! `fdivfmas` and `fdivfixup`.
//!
//! Output modifiers: the f32 helpers apply omod (RDNA2 DivisionOutputModifiers: div_fmas mul:2
//! and div:2, div_fixup mul:4, div_scale mul:2 scale their results); v_div_scale_f64 and
//! v_div_fixup_f64 ignore it and apply clamp only (RDNA2 DivisionOutputModifiers: div_scale_f64
//! mul:2 returns 1.0 for 1.0; DivisionResultModifiers: div_fixup_f64 div:2 returns the quotient).

use super::lanes::Valu;
use super::vfloat::{fdef, fmt_of, fsrc, fty, omod, pass_mode};
use super::vint::write_mask;
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand};
use isabridge_ir::ops::fdiv::{FDivKind, FDivOp};
use isabridge_ir::ops::float::Omod;
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::ops::Op;
use isabridge_ir::soft::FFmt;
use isabridge_ir::Type;

/// Lift a division helper; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let rest = name.strip_prefix("V_DIV_")?;
    let (op, ty) = rest.rsplit_once('_')?;
    let kind = match op {
        "SCALE" => FDivKind::Scale,
        "FMAS" => FDivKind::Fmas,
        "FIXUP" => FDivKind::Fixup,
        _ => return None,
    };
    let fmt = fmt_of(ty)?;
    if !kind.takes(fmt) {
        return None;
    }
    Some(helper(cx, at, kind, fmt))
}

/// The output modifier of a helper in `fmt` (f64 ignores it, f32 and f16 apply it).
fn helper_omod(cx: &Cx, at: &At, fmt: FFmt) -> Omod {
    if fmt == FFmt::F64 {
        Omod::None
    } else {
        omod(cx, at, fmt)
    }
}

fn helper(cx: &mut Cx, at: &At, kind: FDivKind, fmt: FFmt) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let defs: Vec<Operand> = at.inst.operands.iter().filter(|o| !o.implicit && o.access.writes()).copied().collect();
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if defs.is_empty() || srcs.len() < 3 || kind == FDivKind::Scale && defs.len() < 2 {
        return Err(cx.unsupported(at, "division helper operands"));
    }
    let mut s = Vec::new();
    for (i, o) in srcs.iter().enumerate().take(3) {
        // f16 sources and the f16 result take their half from op_sel (fsrc / fdef).
        s.push(fsrc(cx, &valu, at, o, i, fmt)?);
    }
    // NaN operands of div_fixup_f16 pass unchanged with IEEE off, as in f32 (RDNA2 NanQuieting).
    let op = FDivOp { kind, mode: pass_mode(cx, fmt, at.has(Modifier::Clamp)), omod: helper_omod(cx, at, fmt) };
    let t = fty(fmt);
    if kind == FDivKind::Fmas {
        // VCC is read per lane as the post-scaling flag.
        let vcc = cx.mask_of_pair(super::VCC_LO);
        let flag = cx.lane_bit(vcc);
        s.push(flag);
    }
    let r = cx.b().ins(Op::FDiv(op), &s, Some(t));
    fdef(cx, &valu, at, &defs[0], r, fmt)?;
    if kind == FDivKind::Scale {
        let flag = cx.b().ins(Op::FDiv(FDivOp::flag()), &s, Some(Type::B1));
        // The flag of lanes that write; other lanes' bits are 0.
        let m = cx.b().lane(LaneOp::Ballot, Type::Mask, &[flag, valu.mask]);
        write_mask(cx, at, &defs[1], m)?;
    }
    Ok(())
}
