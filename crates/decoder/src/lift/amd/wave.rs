//! Wave state and scheduling: the MODE register (`s_setreg_b32`, `s_setreg_imm32_b32`,
//! `s_getreg_b32`, `s_round_mode`, `s_denorm_mode`), `s_barrier`, `s_sleep` and `s_setprio`.
//!
//! MODE is tracked by the lifter: float ops read the rounding and denormal modes it knows when
//! they are lifted ([`Cx::mode`]), so a change by a constant (every MODE write in the corpus is
//! one) applies to the instructions lifted after it, in address order. A MODE write from a
//! register holding a run-time value is a typed error: the IR's float ops carry their mode, so
//! a mode known only at run time would need a mode value in the IR, which it does not have yet.
//! Writes to FLAT_SCR_LO / FLAT_SCR_HI (how a gfx10 kernel points flat scratch at its private
//! segment) change nothing the IR sees: its scratch space is per lane and needs no base.
//!
//! `s_barrier` is the IR's workgroup barrier; `s_sleep` and `s_setprio` are scheduling ops the
//! interpreter runs as no-ops (no result of a wave depends on them).

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::OperandKind;
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::mem::Scope;
use isabridge_ir::ops::Op;

/// HW_REG_MODE.
const HW_REG_MODE: u64 = 1;
/// HW_REG_FLAT_SCR_LO and HW_REG_FLAT_SCR_HI (gfx10).
const HW_REG_FLAT_SCR: [u64; 2] = [20, 21];

/// Lift a wave-state or scheduling instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "S_SETREG_B32" | "S_SETREG_IMM32_B32" => setreg(cx, at),
        "S_GETREG_B32" => getreg(cx, at),
        "S_ROUND_MODE" | "S_DENORM_MODE" => {
            let v = imm(at).unwrap_or(0) as u32 & 15;
            let shift = if name == "S_ROUND_MODE" { 0 } else { 4 };
            cx.mode = (cx.mode & !(15 << shift)) | v << shift;
            Ok(())
        }
        "S_BARRIER" => {
            cx.b().ins(Op::Sync(SyncOp::Barrier(Scope::Workgroup)), &[], None);
            Ok(())
        }
        "S_SLEEP" => {
            let v = imm(at).unwrap_or(0) as u16;
            cx.b().ins(Op::Sync(SyncOp::Sleep(v)), &[], None);
            Ok(())
        }
        "S_SETPRIO" => {
            let v = imm(at).unwrap_or(0) as u8 & 3;
            cx.b().ins(Op::Sync(SyncOp::Priority(v)), &[], None);
            Ok(())
        }
        _ => return None,
    })
}

/// The SIMM16 value of a program-control instruction.
fn imm(at: &At) -> Option<u64> {
    at.inst.operands.iter().find_map(|o| match o.kind {
        OperandKind::Imm(v) => Some(v as u64),
        OperandKind::Field { value, .. } => Some(value),
        _ => None,
    })
}

/// (register id, bit offset, bit count) of the `hwreg(...)` operand.
fn hwreg(cx: &Cx, at: &At) -> Result<(u64, u32, u32), LiftError> {
    let v = at
        .inst
        .operands
        .iter()
        .find_map(|o| match o.kind {
            OperandKind::Field { ty: "OPR_HWREG", value } => Some(value),
            _ => None,
        })
        .ok_or_else(|| cx.unsupported(at, "no hwreg operand"))?;
    Ok((v & 63, (v >> 6 & 31) as u32, (v >> 11 & 31) as u32 + 1))
}

fn setreg(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (id, off, size) = hwreg(cx, at)?;
    if HW_REG_FLAT_SCR.contains(&id) {
        return Ok(());
    }
    if id != HW_REG_MODE {
        return Err(cx.unsupported(at, "writes a hardware register other than MODE and FLAT_SCR"));
    }
    let value = at.inst.operands.iter().find_map(|o| match o.kind {
        OperandKind::Literal(x) => Some(x),
        OperandKind::InlineConst { bits, .. } => Some(bits as u32),
        _ => None,
    });
    let Some(value) = value else {
        return Err(cx.unsupported(at, "MODE set from a run-time value (the IR has no run-time float mode yet)"));
    };
    let mask = if size >= 32 { u32::MAX } else { (1u32 << size) - 1 } << off;
    cx.mode = (cx.mode & !mask) | (value << off & mask);
    Ok(())
}

fn getreg(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (id, off, size) = hwreg(cx, at)?;
    if id != HW_REG_MODE {
        return Err(cx.unsupported(at, "reads a hardware register other than MODE"));
    }
    let mask = if size >= 32 { u32::MAX } else { (1u32 << size) - 1 };
    let v = cx.k32(cx.mode >> off & mask);
    let d = at.def().copied().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    cx.def_s32(at, &d, 0, v)
}
