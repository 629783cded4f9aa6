//! Maxwell system instructions:
//! - `CS2R d, SR_x`: a special register into one 32-bit register (Maxwell's CS2R has no 64-bit
//!   form), read as `S2R` reads it (the clocks, the global timer and the performance counters
//!   `SR_PM0`.. are system values).
//! - `BPT.TRAP n`: a trap with code n (PTX `trap` is `BPT.TRAP 0x1`); the IR's trap op stops
//!   the run. Other `BPT` modes (`.DRAIN`, `.PAUSE`, ...) are typed errors.

use crate::lift::sm86::{self, At, Cx};
use crate::lift::LiftError;
use crate::operand::{Inst, OperandKind};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::Op;

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "CS2R" => cs2r(cx, at),
        "BPT" => bpt(cx, at),
        _ => return None,
    })
}

/// CS2R d, SR_x: sm_86's S2R on the same operands.
fn cs2r(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let mut inst: Inst = at.inst.clone();
    inst.name = "S2R";
    let at2 = At::new(&inst, at.d);
    sm86::mov::lift(cx, &at2, "S2R").unwrap_or_else(|| Err(cx.unsupported(at, "special register read")))
}

/// BPT.TRAP n.
fn bpt(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if !at.has("TRAP") {
        return Err(cx.unsupported(at, "BPT mode other than .TRAP"));
    }
    let code = at.inst.explicit().find_map(|o| match o.kind {
        OperandKind::Imm(v) => Some(v as u64),
        _ => None,
    });
    let Some(code) = code.and_then(|c| u16::try_from(c).ok()) else { return Err(cx.unsupported(at, "trap code")) };
    cx.b().ins(Op::Sync(SyncOp::Trap(code)), &[], None);
    Ok(())
}
